// Runs a lowered computation (hlo_to_halide.h) through Halide's JIT on given arrays: how the
// lowering is checked against numpy (tests/fixtures/lowering_cases.py) and how a user checks it
// on their own module (`graphcost lower MODULE --inputs IN.npz --out OUT.npz`).
#pragma once

#include <string>
#include <vector>

#include "io/npy_array.h"
#include "lowering/hlo_to_halide.h"

namespace graphcost {

// The outputs (the root, or a root tuple's elements, in order) for `inputs` (by parameter number,
// numpy's C or Fortran order). Each input's dtype and shape must be the parameter's: otherwise
// InputError names `inputs_file`, the array ("param0") and both. Element types without a numpy
// equal in npz files (f16, bf16, u16-u64) are refused by name.
std::vector<NpyArray> run_lowered(LoweredComputation& lowered, const std::vector<NpyArray>& inputs, const std::string& inputs_file);

// The numpy dtype of an HLO element type, or false when npz files have none.
bool npy_dtype_of(std::string_view element_type, DType* dtype);

}  // namespace graphcost
