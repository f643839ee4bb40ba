// Tape-free kernels on contiguous floats, shared by the tape ops (nn/ops.h) and the incremental
// layout inference (model/layout_inference.h). Natively they are Eigen expressions (AVX when the
// build has it). In WebAssembly they are 128-bit SIMD loops written here, because Eigen 3.4 has no
// WebAssembly packets: its scalar code was most of the browser's ranking time.
#pragma once

#include "nn/tape.h"

namespace graphcost::nn {

// GELU's tanh approximation: 0.5 x (1 + tanh(kGeluScale (x + kGeluCubic x^3))).
inline constexpr float kGeluScale = 0.7978845608f;  // sqrt(2 / pi)
inline constexpr float kGeluCubic = 0.044715f;

// GELU (tanh approximation) of `count` values, in place, with Eigen's rational tanh (the same
// polynomial in both builds): what gelu() applies, so the tape and the inference agree.
void gelu_in_place(float* values, Eigen::Index count);

// out = a * b (inference: no tape). Eigen's product natively.
void multiply_into(const Matrix& a, const Matrix& b, Matrix& out);

// target = source, target += source, and target += factor * source, over `count` values (the
// copy too: Emscripten's memcpy is a call and a byte loop for rows this short).
void copy_into(float* target, const float* source, Eigen::Index count);
void add_into(float* target, const float* source, Eigen::Index count);
void add_scaled_into(float* target, const float* source, float factor, Eigen::Index count);

// One row of a residual block's end: out = in + layer_norm(message) * gain + shift, with the
// norm's mean and variance over the row's `count` values (epsilon added to the variance).
void residual_layer_norm(const float* message, const float* in, const float* gain, const float* shift, float epsilon, float* out,
                         Eigen::Index count);

}  // namespace graphcost::nn
