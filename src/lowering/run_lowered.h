// Runs a lowered computation (hlo_to_halide.h) through Halide's JIT on given arrays: how the
// lowering is checked against numpy (tests/fixtures/lowering_cases.py) and how a user checks it
// on their own module (`graphcost lower MODULE --inputs IN.npz --out OUT.npz`).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <new>
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

// Bytes on their own pages: a measured buffer starts at the same offset in every cache line and
// page whatever the heap did before, so no config is measured with luckier or unluckier alignment.
template <typename T>
struct PageAlignedAllocator {
  using value_type = T;
  PageAlignedAllocator() = default;
  template <typename U>
  PageAlignedAllocator(const PageAlignedAllocator<U>&) {}
  T* allocate(size_t n) {
    const size_t bytes = (n * sizeof(T) + 4095) / 4096 * 4096;
    void* p = std::aligned_alloc(4096, bytes == 0 ? 4096 : bytes);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { std::free(p); }
  template <typename U>
  bool operator==(const PageAlignedAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const PageAlignedAllocator<U>&) const {
    return false;
  }
};
using PageAlignedBytes = std::vector<uint8_t, PageAlignedAllocator<uint8_t>>;

// A lowered computation JIT-compiled once (one pipeline per output rank, as run_lowered) with its
// parameters bound to buffers of random values (seeded: floats in [-1, 1], integers in [0, 4),
// booleans) and its outputs to buffers of its own, run as often as asked: what a measurement times.
class CompiledComputation {
 public:
  CompiledComputation(LoweredComputation& lowered, uint64_t seed);
  void run();
  // Every output's bytes of the last run, in order: a layout config must not change them.
  std::vector<uint8_t> output_bytes() const;
  // Whether this run's outputs equal `reference` (an output_bytes() of the same computation):
  // integers exactly, floats to 1e-4 of the output's largest magnitude (1e-2 for f16 and bf16):
  // a margin, as lowering_target's StrictFloat keeps float sums in order; else false and why.
  bool outputs_match(const std::vector<uint8_t>& reference, std::string* why) const;

 private:
  std::vector<PageAlignedBytes> storage_;   // the parameters' and outputs' bytes
  size_t first_output_ = 0;                 // storage_ from here on holds outputs
  std::vector<Halide::Type> output_types_;  // of storage_'s outputs
  std::vector<Halide::Pipeline> pipelines_;
  std::vector<std::vector<Halide::Buffer<>>> outputs_;  // per pipeline
};

// The computation as Halide lowers it for lowering_target(), every pipeline CompiledComputation
// compiles: two configs whose statements are equal are one program, the same machine code (their
// layouts or tiles change nothing Halide emits), and are measured once (measure_configs.h).
std::string lowered_statement(LoweredComputation& lowered);

// The target the lowering JIT-compiles for: this CPU's, with StrictFloat (no fast-math: NaN and
// infinity keep XLA's meaning, float sums are not reassociated).
Halide::Target lowering_target();

// The numpy dtype of an HLO element type, or false when npz files have none.
bool npy_dtype_of(std::string_view element_type, DType* dtype);

}  // namespace graphcost
