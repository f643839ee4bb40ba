// One matrix multiplication (C[M,N] = A[M,K] x B[K,N]) priced on a TPU as its measured timings show
// it (../shared/data/tpu-gemm: 450 single jnp.dot GEMMs on a TPU v5e, docs/simulator.md):
//   compute = 2 x ceil8(M) x ceil_mxu(K) x ceil_mxu(N) / (peak(dtype) x mxu_efficiency)
//     (the systolic array works on mxu_dim x mxu_dim blocks, rows in groups of 8);
//   memory  = (A + B + C bytes, each padded to its memory tiles: (8, 128) for 16- and 32-bit
//     elements, (32, 128) for 8-bit) / (HBM bandwidth x hbm_efficiency); an input that fits in
//     resident_share of VMEM is read resident_read_speedup times faster (it stays resident across
//     calls), except in a matrix-vector product (M or N = 1, which runs off the MXU);
//   time    = launch_seconds + max(compute, memory) + overlap_share x min(compute, memory).
// The constants are a HardwareModel's (simulator/cost_simulator.h); the tpu-v5e and tpu-v6e profiles
// (simulator/hardware_profile.h) hold the chips' published numbers and the dimensionless efficiencies
// fitted on v5e rows only (fit_gemm_efficiencies), so v6e's carry over without refitting.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simulator/cost_simulator.h"

namespace graphcost {

enum class GemmType { BF16, Int8 };  // bf16 in, f32 out; int8 in, int32 out

struct Gemm {
  int64_t m = 0, n = 0, k = 0;
  GemmType type = GemmType::BF16;
  std::string family;     // the row's group (random, skinny, ...), for held-out figures; may be empty
  double measured_s = 0;  // 0 when unknown
};

double gemm_seconds(const Gemm& gemm, const HardwareModel& hardware);

// How well a model prices measured GEMMs: median and 90th percentile of |predicted / measured - 1|,
// and Kendall tau-b of predicted against measured.
struct GemmFit {
  double median_error = 0, p90_error = 0, kendall_tau = 0;
};
GemmFit gemm_fit_quality(const std::vector<Gemm>& gemms, const HardwareModel& hardware);

// mxu_efficiency, hbm_efficiency, overlap_share and resident_read_speedup of `start` fitted to
// `gemms` (coordinate descent on median + 0.5 x p90 of the relative error); the chip's own
// constants are left as they are.
HardwareModel fit_gemm_efficiencies(const std::vector<Gemm>& gemms, HardwareModel start);

}  // namespace graphcost
