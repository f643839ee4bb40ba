// The WebAssembly build's kernels: 128-bit SIMD loops for what nn/kernels.h declares (Eigen 3.4
// has no WebAssembly packets, and its scalar code was most of the browser's ranking time), their
// tails through nn/portable_kernels.h. The native build compiles this file empty (nn/kernels.cpp
// holds its kernels); tests/test_kernels.cpp checks both against the reference ops, natively and
// in Node.js.
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <algorithm>
#include <cassert>
#include <cmath>

#include "nn/kernels.h"
#include "nn/portable_kernels.h"

namespace graphcost::nn {
namespace {

v128_t splat(float value) { return wasm_f32x4_splat(value); }
v128_t madd(v128_t a, v128_t b, v128_t c) { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }  // a b + c (no FMA)

// GELU, with Eigen's generic_fast_tanh_float (its non-FMA clamp) for tanh: the rational
// approximation Eigen's own vector kernels evaluate, so both builds agree to float rounding.
v128_t gelu4(v128_t x) {
  const v128_t u = wasm_f32x4_mul(splat(kGeluScale), madd(wasm_f32x4_mul(splat(kGeluCubic), x), wasm_f32x4_mul(x, x), x));
  const v128_t t = wasm_f32x4_max(wasm_f32x4_min(u, splat(7.90531110763549805f)), splat(-7.90531110763549805f));
  const v128_t tiny = wasm_f32x4_lt(wasm_f32x4_abs(u), splat(0.0004f));
  const v128_t t2 = wasm_f32x4_mul(t, t);
  v128_t p = madd(t2, splat(-2.76076847742355e-16f), splat(2.00018790482477e-13f));
  p = madd(t2, p, splat(-8.60467152213735e-11f));
  p = madd(t2, p, splat(5.12229709037114e-08f));
  p = madd(t2, p, splat(1.48572235717979e-05f));
  p = madd(t2, p, splat(6.37261928875436e-04f));
  p = madd(t2, p, splat(4.89352455891786e-03f));
  p = wasm_f32x4_mul(t, p);
  v128_t q = madd(t2, splat(1.19825839466702e-06f), splat(1.18534705686654e-04f));
  q = madd(t2, q, splat(2.26843463243900e-03f));
  q = madd(t2, q, splat(4.89352518554385e-03f));
  const v128_t tanh_u = wasm_v128_bitselect(t, wasm_f32x4_div(p, q), tiny);
  return wasm_f32x4_mul(wasm_f32x4_mul(splat(0.5f), x), wasm_f32x4_add(splat(1.0f), tanh_u));
}

float horizontal_sum(v128_t v) {
  return wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3);
}

// out(i.., j..j+16) for `rows` (1 or 2) rows of out starting at `target`, from `depth` steps: step
// k multiplies left[r][k * left_step] by the 16 floats at right + k * right_step. Accumulators
// start at zero or at out's values (accumulate).
template <int rows>
void product_block(const float* const* left, Eigen::Index left_step, const float* right, Eigen::Index right_step, Eigen::Index depth,
                   float* const* target, bool accumulate) {
  v128_t acc[rows][4];
  for (int r = 0; r < rows; ++r) {
    for (int v = 0; v < 4; ++v) acc[r][v] = accumulate ? wasm_v128_load(target[r] + 4 * v) : splat(0.0f);
  }
  for (Eigen::Index k = 0; k < depth; ++k, right += right_step) {
    const v128_t r0 = wasm_v128_load(right), r1 = wasm_v128_load(right + 4), r2 = wasm_v128_load(right + 8),
                 r3 = wasm_v128_load(right + 12);
    for (int r = 0; r < rows; ++r) {
      const v128_t f = splat(left[r][k * left_step]);
      acc[r][0] = madd(f, r0, acc[r][0]), acc[r][1] = madd(f, r1, acc[r][1]);
      acc[r][2] = madd(f, r2, acc[r][2]), acc[r][3] = madd(f, r3, acc[r][3]);
    }
  }
  for (int r = 0; r < rows; ++r) {
    for (int v = 0; v < 4; ++v) wasm_v128_store(target[r] + 4 * v, acc[r][v]);
  }
}

// out (+)= a * b where a's element (i, k) is at a_data[i * a_row + k * a_depth]: a itself (a_row =
// depth, a_depth = 1) or a^T of a stored matrix (a_row = 1, a_depth = its row length). Two rows of
// out at a time and a block of 16 columns, so eight f32x4 accumulators stay in registers while the
// depth loop streams b's rows, each load of b serving both rows.
// b: `depth` rows of m floats from b_data.
void product(const float* a_data, Eigen::Index a_row, Eigen::Index a_depth, Eigen::Index n, Eigen::Index depth, const float* b_data,
             Eigen::Index m, Matrix& out, bool accumulate) {
  const Eigen::Index blocked = m - m % 16;
  Eigen::Index i = 0;
  for (; i + 2 <= n; i += 2) {
    const float* left[2] = {a_data + i * a_row, a_data + (i + 1) * a_row};
    for (Eigen::Index j = 0; j < blocked; j += 16) {
      float* target[2] = {out.row(i).data() + j, out.row(i + 1).data() + j};
      product_block<2>(left, a_depth, b_data + j, m, depth, target, accumulate);
    }
  }
  for (; i < n; ++i) {  // the last odd row
    const float* left[1] = {a_data + i * a_row};
    for (Eigen::Index j = 0; j < blocked; j += 16) {
      float* target[1] = {out.row(i).data() + j};
      product_block<1>(left, a_depth, b_data + j, m, depth, target, accumulate);
    }
  }
  for (i = 0; i < n; ++i) {  // columns past the last block of 16
    for (Eigen::Index j = blocked; j < m; ++j) {
      float sum = accumulate ? out(i, j) : 0.0f;
      for (Eigen::Index k = 0; k < depth; ++k) sum += a_data[i * a_row + k * a_depth] * b_data[k * m + j];
      out(i, j) = sum;
    }
  }
}

}  // namespace

void gelu_in_place(float* values, Eigen::Index count) {
  Eigen::Index done = 0;
  for (; done + 4 <= count; done += 4) wasm_v128_store(values + done, gelu4(wasm_v128_load(values + done)));
  portable::gelu_in_place(values + done, count - done);
}

void multiply_into(const Matrix& a, const Matrix& b, Matrix& out) {
  assert(a.cols() == b.rows());
  out.resize(a.rows(), b.cols());
  product(a.data(), a.cols(), 1, a.rows(), a.cols(), b.data(), b.cols(), out, false);
}

void multiply_add(const Matrix& a, const Matrix& b, Matrix& out) {
  assert(a.cols() == b.rows() && out.rows() == a.rows() && out.cols() == b.cols());
  product(a.data(), a.cols(), 1, a.rows(), a.cols(), b.data(), b.cols(), out, true);
}

void multiply_transposed_left_add(const Matrix& a, const Matrix& b, Matrix& out) {
  assert(a.rows() == b.rows() && out.rows() == a.cols() && out.cols() == b.cols());
  // The depth (a batch's rows) is long: in chunks of 64 rows, so the chunk of b stays in cache
  // while every block of out passes over it.
  constexpr Eigen::Index kChunk = 64;
  for (Eigen::Index start = 0; start < a.rows(); start += kChunk) {
    const Eigen::Index rows = std::min(kChunk, a.rows() - start);
    product(a.row(start).data(), 1, a.cols(), a.cols(), rows, b.row(start).data(), b.cols(), out, true);
  }
}

void multiply_transposed_right_add(const Matrix& a, const Matrix& b, Matrix& out) {
  assert(a.cols() == b.cols() && out.rows() == a.rows() && out.cols() == b.rows());
  const Matrix b_transposed = b.transpose();  // a weight: small beside the product
  product(a.data(), a.cols(), 1, a.rows(), a.cols(), b_transposed.data(), b_transposed.cols(), out, true);
}

void copy_into(float* target, const float* source, Eigen::Index count) {
  Eigen::Index done = 0;
  for (; done + 4 <= count; done += 4) wasm_v128_store(target + done, wasm_v128_load(source + done));
  portable::copy_into(target + done, source + done, count - done);
}

void add_into(float* target, const float* source, Eigen::Index count) {
  Eigen::Index done = 0;
  for (; done + 4 <= count; done += 4) {
    wasm_v128_store(target + done, wasm_f32x4_add(wasm_v128_load(target + done), wasm_v128_load(source + done)));
  }
  portable::add_into(target + done, source + done, count - done);
}

void add_scaled_into(float* target, const float* source, float factor, Eigen::Index count) {
  Eigen::Index done = 0;
  const v128_t f = splat(factor);
  for (; done + 4 <= count; done += 4) {
    wasm_v128_store(target + done, madd(f, wasm_v128_load(source + done), wasm_v128_load(target + done)));
  }
  portable::add_scaled_into(target + done, source + done, factor, count - done);
}

void residual_layer_norm(const float* message, const float* in, const float* gain, const float* shift, float epsilon, float* out,
                         Eigen::Index count) {
  if (count % 4 != 0) {
    portable::residual_layer_norm(message, in, gain, shift, epsilon, out, count);
    return;
  }
  v128_t sum = splat(0.0f);
  for (Eigen::Index i = 0; i < count; i += 4) sum = wasm_f32x4_add(sum, wasm_v128_load(message + i));
  const float mean = horizontal_sum(sum) / static_cast<float>(count);
  const v128_t centre = splat(mean);
  v128_t squares = splat(0.0f);
  for (Eigen::Index i = 0; i < count; i += 4) {
    const v128_t d = wasm_f32x4_sub(wasm_v128_load(message + i), centre);
    squares = madd(d, d, squares);
  }
  const v128_t inverse_std = splat(1.0f / std::sqrt(horizontal_sum(squares) / static_cast<float>(count) + epsilon));
  for (Eigen::Index i = 0; i < count; i += 4) {
    const v128_t normed = wasm_f32x4_mul(wasm_f32x4_sub(wasm_v128_load(message + i), centre), inverse_std);
    wasm_v128_store(out + i, wasm_f32x4_add(madd(normed, wasm_v128_load(gain + i), wasm_v128_load(shift + i)), wasm_v128_load(in + i)));
  }
}

}  // namespace graphcost::nn
#endif  // __wasm_simd128__
