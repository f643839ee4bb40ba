#include "nn/kernels.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#include <cassert>
#include <cmath>

namespace graphcost::nn {

#ifdef __wasm_simd128__
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

}  // namespace
#endif

void gelu_in_place(float* values, Eigen::Index count) {
  Eigen::Index done = 0;
#ifdef __wasm_simd128__
  for (; done + 4 <= count; done += 4) wasm_v128_store(values + done, gelu4(wasm_v128_load(values + done)));
#endif
  Eigen::Map<Eigen::ArrayXf> x(values + done, count - done);
  x = 0.5f * x * (1.0f + (kGeluScale * (x + kGeluCubic * x.cube())).tanh());
}

Matrix gelu_backward(const Matrix& pre, const Matrix& upstream) {
  const auto x = Eigen::Map<const Eigen::ArrayXf>(pre.data(), pre.size());
  const Eigen::ArrayXf t = (kGeluScale * (x + kGeluCubic * x.cube())).tanh();
  Matrix out(pre.rows(), pre.cols());
  Eigen::Map<Eigen::ArrayXf>(out.data(), out.size()) =
      Eigen::Map<const Eigen::ArrayXf>(upstream.data(), upstream.size()) *
      (0.5f * (1.0f + t) + 0.5f * x * (1.0f - t.square()) * kGeluScale * (1.0f + 3 * kGeluCubic * x.square()));
  return out;
}

void multiply_into(const Matrix& a, const Matrix& b, Matrix& out) {
  assert(a.cols() == b.rows());
#ifdef __wasm_simd128__
  // Two rows of a at a time and a block of 16 output columns: eight f32x4 accumulators stay in
  // registers while the depth loop streams b's rows (a layer's weights, in cache), each load of b
  // serving both rows.
  const Eigen::Index n = a.rows(), depth = a.cols(), m = b.cols(), blocked = m - m % 16;
  out.resize(n, m);
  Eigen::Index i = 0;
  for (; i + 2 <= n; i += 2) {
    const float* left0 = a.row(i).data();
    const float* left1 = a.row(i + 1).data();
    float* target0 = out.row(i).data();
    float* target1 = out.row(i + 1).data();
    for (Eigen::Index j = 0; j < blocked; j += 16) {
      v128_t a0 = splat(0.0f), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
      const float* right = b.data() + j;
      for (Eigen::Index k = 0; k < depth; ++k, right += m) {
        const v128_t r0 = wasm_v128_load(right), r1 = wasm_v128_load(right + 4), r2 = wasm_v128_load(right + 8),
                     r3 = wasm_v128_load(right + 12);
        const v128_t f0 = splat(left0[k]), f1 = splat(left1[k]);
        a0 = madd(f0, r0, a0), a1 = madd(f0, r1, a1), a2 = madd(f0, r2, a2), a3 = madd(f0, r3, a3);
        b0 = madd(f1, r0, b0), b1 = madd(f1, r1, b1), b2 = madd(f1, r2, b2), b3 = madd(f1, r3, b3);
      }
      wasm_v128_store(target0 + j, a0), wasm_v128_store(target0 + j + 4, a1);
      wasm_v128_store(target0 + j + 8, a2), wasm_v128_store(target0 + j + 12, a3);
      wasm_v128_store(target1 + j, b0), wasm_v128_store(target1 + j + 4, b1);
      wasm_v128_store(target1 + j + 8, b2), wasm_v128_store(target1 + j + 12, b3);
    }
  }
  for (; i < n; ++i) {  // the last odd row
    const float* left = a.row(i).data();
    float* target = out.row(i).data();
    for (Eigen::Index j = 0; j < blocked; j += 16) {
      v128_t a0 = splat(0.0f), a1 = a0, a2 = a0, a3 = a0;
      const float* right = b.data() + j;
      for (Eigen::Index k = 0; k < depth; ++k, right += m) {
        const v128_t f = splat(left[k]);
        a0 = madd(f, wasm_v128_load(right), a0), a1 = madd(f, wasm_v128_load(right + 4), a1);
        a2 = madd(f, wasm_v128_load(right + 8), a2), a3 = madd(f, wasm_v128_load(right + 12), a3);
      }
      wasm_v128_store(target + j, a0), wasm_v128_store(target + j + 4, a1);
      wasm_v128_store(target + j + 8, a2), wasm_v128_store(target + j + 12, a3);
    }
  }
  for (i = 0; i < n; ++i) {  // columns past the last block of 16
    for (Eigen::Index j = blocked; j < m; ++j) {
      float sum = 0;
      for (Eigen::Index k = 0; k < depth; ++k) sum += a(i, k) * b(k, j);
      out(i, j) = sum;
    }
  }
#else
  out.noalias() = a * b;
#endif
}

void copy_into(float* target, const float* source, Eigen::Index count) {
  Eigen::Index done = 0;
#ifdef __wasm_simd128__
  for (; done + 4 <= count; done += 4) wasm_v128_store(target + done, wasm_v128_load(source + done));
#endif
  Eigen::Map<Eigen::ArrayXf>(target + done, count - done) = Eigen::Map<const Eigen::ArrayXf>(source + done, count - done);
}

void add_into(float* target, const float* source, Eigen::Index count) {
  Eigen::Index done = 0;
#ifdef __wasm_simd128__
  for (; done + 4 <= count; done += 4) {
    wasm_v128_store(target + done, wasm_f32x4_add(wasm_v128_load(target + done), wasm_v128_load(source + done)));
  }
#endif
  Eigen::Map<Eigen::ArrayXf>(target + done, count - done) += Eigen::Map<const Eigen::ArrayXf>(source + done, count - done);
}

void add_scaled_into(float* target, const float* source, float factor, Eigen::Index count) {
  Eigen::Index done = 0;
#ifdef __wasm_simd128__
  const v128_t f = splat(factor);
  for (; done + 4 <= count; done += 4) {
    wasm_v128_store(target + done, madd(f, wasm_v128_load(source + done), wasm_v128_load(target + done)));
  }
#endif
  Eigen::Map<Eigen::ArrayXf>(target + done, count - done) += factor * Eigen::Map<const Eigen::ArrayXf>(source + done, count - done);
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

void residual_layer_norm(const float* message, const float* in, const float* gain, const float* shift, float epsilon, float* out,
                         Eigen::Index count) {
#ifdef __wasm_simd128__
  if (count % 4 == 0) {
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
    return;
  }
#endif
  const Eigen::Map<const Eigen::ArrayXf> row(message, count);
  const float mean = row.mean();
  const float inverse_std = 1.0f / std::sqrt((row - mean).square().mean() + epsilon);
  Eigen::Map<Eigen::ArrayXf>(out, count) = Eigen::Map<const Eigen::ArrayXf>(in, count) +
                                           ((row - mean) * inverse_std) * Eigen::Map<const Eigen::ArrayXf>(gain, count) +
                                           Eigen::Map<const Eigen::ArrayXf>(shift, count);
}

}  // namespace graphcost::nn
