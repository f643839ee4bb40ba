// The portable kernels as inline functions: the whole of the native build's kernels
// (nn/kernels.cpp) and the tails and fallbacks of the WebAssembly ones (nn/wasm_kernels.cpp), so both
// builds compute a row's last values and an odd-length layer norm the same way.
#pragma once

#include <cmath>

#include "nn/kernels.h"

namespace graphcost::nn::portable {

inline void gelu_in_place(float* values, Eigen::Index count) {
  Eigen::Map<Eigen::ArrayXf> x(values, count);
  x = 0.5f * x * (1.0f + (kGeluScale * (x + kGeluCubic * x.cube())).tanh());
}

inline void copy_into(float* target, const float* source, Eigen::Index count) {
  Eigen::Map<Eigen::ArrayXf>(target, count) = Eigen::Map<const Eigen::ArrayXf>(source, count);
}

inline void add_into(float* target, const float* source, Eigen::Index count) {
  Eigen::Map<Eigen::ArrayXf>(target, count) += Eigen::Map<const Eigen::ArrayXf>(source, count);
}

inline void add_scaled_into(float* target, const float* source, float factor, Eigen::Index count) {
  Eigen::Map<Eigen::ArrayXf>(target, count) += factor * Eigen::Map<const Eigen::ArrayXf>(source, count);
}

inline void residual_layer_norm(const float* message, const float* in, const float* gain, const float* shift, float epsilon, float* out,
                                Eigen::Index count) {
  const Eigen::Map<const Eigen::ArrayXf> row(message, count);
  const float mean = row.mean();
  const float inverse_std = 1.0f / std::sqrt((row - mean).square().mean() + epsilon);
  Eigen::Map<Eigen::ArrayXf>(out, count) = Eigen::Map<const Eigen::ArrayXf>(in, count) +
                                           ((row - mean) * inverse_std) * Eigen::Map<const Eigen::ArrayXf>(gain, count) +
                                           Eigen::Map<const Eigen::ArrayXf>(shift, count);
}

}  // namespace graphcost::nn::portable
