// libFuzzer target: arbitrary bytes as an .npz archive, then as a TpuGraphs example. Any outcome
// but InputError (a crash, a sanitizer report, another exception, an allocation over the fuzzer's
// -malloc_limit_mb) is a bug.
#include <cstddef>
#include <cstdint>

#include "common/input_error.h"
#include "data/tpu_graph.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const graphcost::NpzFile npz = graphcost::read_npz(graphcost::ByteSource::view_memory("fuzz.npz", data, size));
    (void)graphcost::tpu_graph_from_npz(npz, "fuzz.npz");
  } catch (const graphcost::InputError&) {
  }
  return 0;
}
