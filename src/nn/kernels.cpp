// The kernels every build shares (GELU's backward, neighbour aggregation) and, natively, the
// portable ones: Eigen's products and the inline loops of nn/portable_kernels.h. The WebAssembly
// build's SIMD versions of the others are in nn/wasm_kernels.cpp.
#include "nn/kernels.h"

#include <algorithm>
#include <cassert>

#include "nn/portable_kernels.h"

namespace graphcost::nn {

Matrix gelu_backward(const Matrix& pre, const Matrix& upstream) {
  const auto x = Eigen::Map<const Eigen::ArrayXf>(pre.data(), pre.size());
  const Eigen::ArrayXf t = (kGeluScale * (x + kGeluCubic * x.cube())).tanh();
  Matrix out(pre.rows(), pre.cols());
  Eigen::Map<Eigen::ArrayXf>(out.data(), out.size()) =
      Eigen::Map<const Eigen::ArrayXf>(upstream.data(), upstream.size()) *
      (0.5f * (1.0f + t) + 0.5f * x * (1.0f - t.square()) * kGeluScale * (1.0f + 3 * kGeluCubic * x.square()));
  return out;
}

void aggregate_rows(Aggregation kind, const float* const* rows, int count, float* out, Eigen::Index m, int32_t* argmax) {
  if (count == 0) {
    std::fill(out, out + m, 0.0f);
    if (argmax != nullptr) std::fill(argmax, argmax + m, -1);
    return;
  }
  copy_into(out, rows[0], m);
  if (kind != Aggregation::Max) {
    for (int k = 1; k < count; ++k) add_into(out, rows[k], m);
    if (kind == Aggregation::Mean && count > 1) Eigen::Map<Eigen::ArrayXf>(out, m) /= static_cast<float>(count);
    return;
  }
  if (argmax == nullptr) {
    Eigen::Map<Eigen::ArrayXf> best(out, m);
    for (int k = 1; k < count; ++k) best = best.max(Eigen::Map<const Eigen::ArrayXf>(rows[k], m));
    return;
  }
  std::fill(argmax, argmax + m, 0);
  for (int k = 1; k < count; ++k) {
    const float* row = rows[k];
    for (Eigen::Index c = 0; c < m; ++c) {
      if (row[c] > out[c]) {  // strictly greater: ties keep the first row
        out[c] = row[c];
        argmax[c] = k;
      }
    }
  }
}

#ifndef __wasm_simd128__
void gelu_in_place(float* values, Eigen::Index count) { portable::gelu_in_place(values, count); }

void multiply_into(const Matrix& a, const Matrix& b, Matrix& out) {
  assert(a.cols() == b.rows());
  out.noalias() = a * b;
}

void multiply_add(const Matrix& a, const Matrix& b, Matrix& out) {
  assert(a.cols() == b.rows() && out.rows() == a.rows() && out.cols() == b.cols());
  out.noalias() += a * b;
}

void multiply_transposed_left_add(const Matrix& a, const Matrix& b, Matrix& out) {
  assert(a.rows() == b.rows() && out.rows() == a.cols() && out.cols() == b.cols());
  out.noalias() += a.transpose() * b;
}

void multiply_transposed_right_add(const Matrix& a, const Matrix& b, Matrix& out) {
  assert(a.cols() == b.cols() && out.rows() == a.rows() && out.cols() == b.rows());
  out.noalias() += a * b.transpose();
}

void copy_into(float* target, const float* source, Eigen::Index count) { portable::copy_into(target, source, count); }

void add_into(float* target, const float* source, Eigen::Index count) { portable::add_into(target, source, count); }

void add_scaled_into(float* target, const float* source, float factor, Eigen::Index count) {
  portable::add_scaled_into(target, source, factor, count);
}

void residual_layer_norm(const float* message, const float* in, const float* gain, const float* shift, float epsilon, float* out,
                         Eigen::Index count) {
  portable::residual_layer_norm(message, in, gain, shift, epsilon, out, count);
}
#endif

}  // namespace graphcost::nn
