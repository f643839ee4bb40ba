// libFuzzer target: a parameter space's JSON (T4, Kernel Tuner cache, T1 with its Python value and
// restriction expressions) must load or be refused with an InputError, never crash, hang or
// allocate past the fuzzer's limit (spaces/parameter_space.h).
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/input_error.h"
#include "spaces/parameter_space.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const graphcost::ParameterSpace space =
        graphcost::parameter_space_from_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    if (!space.configs.empty()) (void)graphcost::summarize_parameter_space(space);
  } catch (const graphcost::InputError&) {
  }
  return 0;
}
