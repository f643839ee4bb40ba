// libFuzzer target: arbitrary bytes as an .npz archive, then as a TpuGraphs example. Any outcome
// but InputError (a crash, a sanitizer report, another exception, an allocation over the fuzzer's
// -malloc_limit_mb) is a bug.
#include <cstddef>
#include <cstdint>

#include "common/input_error.h"
#include "common/memory_limit.h"
#include "data/tpu_graph.h"

// Arrays may declare at most 64 MiB in all: well under the fuzzer's -malloc_limit_mb=100, so an
// input that declares more is refused by the memory policy, as it would be under a real limit.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  graphcost::set_input_memory_limit(64u << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const graphcost::NpzFile npz = graphcost::read_npz(graphcost::ByteSource::view_memory("fuzz.npz", data, size));
    (void)graphcost::tpu_graph_from_npz(npz, "fuzz.npz");
  } catch (const graphcost::InputError&) {
  }
  return 0;
}
