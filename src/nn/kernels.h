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

// GELU's derivative at `pre` times `upstream`, elementwise (the tanh approximation's exact
// derivative, as gelu_in_place computes GELU): the backward of every op that applies GELU.
Matrix gelu_backward(const Matrix& pre, const Matrix& upstream);

// out = a * b (inference: no tape). Eigen's product natively.
void multiply_into(const Matrix& a, const Matrix& b, Matrix& out);

// The training's products, accumulated into `out` (sized already): out += a * b, out += a^T * b
// (a weight's gradient: a sum over every row of a batch), out += a * b^T (the gradient passed
// back through a weight). Eigen's products natively; SIMD loops in WebAssembly, where Eigen's
// scalar products were most of a fine-tuning round (docs/tuning.md, "Speed").
void multiply_add(const Matrix& a, const Matrix& b, Matrix& out);
void multiply_transposed_left_add(const Matrix& a, const Matrix& b, Matrix& out);
void multiply_transposed_right_add(const Matrix& a, const Matrix& b, Matrix& out);

// target = source, target += source, and target += factor * source, over `count` values (the
// copy too: Emscripten's memcpy is a call and a byte loop for rows this short).
void copy_into(float* target, const float* source, Eigen::Index count);
void add_into(float* target, const float* source, Eigen::Index count);
void add_scaled_into(float* target, const float* source, float factor, Eigen::Index count);

// How a node combines its neighbours' rows in a message layer. Sum and Mean are linear (a change
// of one neighbour changes the result by its own delta: the incremental inference's shortcut);
// Max is not (elementwise, so a node can keep the strongest signal of any neighbour).
enum class Aggregation { Sum, Mean, Max };
inline bool is_linear(Aggregation kind) { return kind != Aggregation::Max; }

// out = the aggregation of `count` rows of `m` values (zeros when count is 0). Mean adds the rows
// in order and divides by count. Max also writes, per column, the position
// (0..count-1) of the first row holding the maximum to `argmax` when given: a tape op's backward
// sends each column's gradient there.
void aggregate_rows(Aggregation kind, const float* const* rows, int count, float* out, Eigen::Index m, int32_t* argmax = nullptr);

// One row of a residual block's end: out = in + layer_norm(message) * gain + shift, with the
// norm's mean and variance over the row's `count` values (epsilon added to the variance).
void residual_layer_norm(const float* message, const float* in, const float* gain, const float* shift, float epsilon, float* out,
                         Eigen::Index count);

}  // namespace graphcost::nn
