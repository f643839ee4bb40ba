// The tape-free kernels (nn/kernels.h) against obvious scalar references in double precision, over
// sizes that exercise every path: empty, below one 4-wide vector, the vector loops' remainders,
// the blocked product's edges. Built twice: natively (Eigen's kernels) in test_nn, and as
// test_kernels.js for Node.js (the 128-bit WebAssembly SIMD loops) by the web preset.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "nn/kernels.h"

using namespace graphcost;

namespace {

std::vector<float> random_values(size_t count, uint64_t seed, float scale = 3.0f) {
  std::mt19937_64 random(seed);
  std::vector<float> values(count);
  for (float& v : values) v = scale * (static_cast<float>(random() % 2000001) / 1000000.0f - 1.0f);
  return values;
}

double reference_gelu(double x) { return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

const std::vector<Eigen::Index> kSizes = {0, 1, 3, 4, 5, 7, 8, 15, 16, 17, 31, 63, 64, 65, 130};

}  // namespace

TEST_CASE("gelu_in_place matches the tanh formula on every path", "[nn][kernels]") {
  for (Eigen::Index count : kSizes) {
    std::vector<float> values = random_values(static_cast<size_t>(count), 1 + static_cast<uint64_t>(count), 12.0f);
    if (count >= 3) values[0] = 0.0f, values[1] = 1e-4f, values[2] = -40.0f;  // the rational tanh's tiny and clamped ranges
    const std::vector<float> input = values;
    nn::gelu_in_place(values.data(), count);
    for (size_t i = 0; i < values.size(); ++i) {
      INFO("count " << count << ", x = " << input[i]);
      CHECK(values[i] == Approx(reference_gelu(input[i])).margin(2e-6).epsilon(2e-6));
    }
  }
}

TEST_CASE("copy, add and scaled add are exact on every length", "[nn][kernels]") {
  for (Eigen::Index count : kSizes) {
    const std::vector<float> source = random_values(static_cast<size_t>(count), 100 + static_cast<uint64_t>(count));
    const std::vector<float> start = random_values(static_cast<size_t>(count), 200 + static_cast<uint64_t>(count));
    std::vector<float> copied(static_cast<size_t>(count) + 1, 7.0f), added = start, scaled = start;
    nn::copy_into(copied.data(), source.data(), count);
    nn::add_into(added.data(), source.data(), count);
    nn::add_scaled_into(scaled.data(), source.data(), -0.37f, count);
    CHECK(copied.back() == 7.0f);  // nothing past the end
    for (size_t i = 0; i < source.size(); ++i) {
      CHECK(copied[i] == source[i]);
      CHECK(added[i] == start[i] + source[i]);
      CHECK(scaled[i] == Approx(static_cast<double>(start[i]) - 0.37 * source[i]).margin(1e-6));
    }
  }
}

TEST_CASE("residual_layer_norm matches a double-precision layer norm", "[nn][kernels]") {
  for (Eigen::Index count : kSizes) {
    if (count == 0) continue;
    const std::vector<float> message = random_values(static_cast<size_t>(count), 300 + static_cast<uint64_t>(count));
    const std::vector<float> in = random_values(static_cast<size_t>(count), 400 + static_cast<uint64_t>(count));
    const std::vector<float> gain = random_values(static_cast<size_t>(count), 500 + static_cast<uint64_t>(count), 1.5f);
    const std::vector<float> shift = random_values(static_cast<size_t>(count), 600 + static_cast<uint64_t>(count), 0.5f);
    std::vector<float> out(static_cast<size_t>(count));
    nn::residual_layer_norm(message.data(), in.data(), gain.data(), shift.data(), 1e-5f, out.data(), count);
    double mean = 0, variance = 0;
    for (float m : message) mean += m / static_cast<double>(count);
    for (float m : message) variance += (m - mean) * (m - mean) / static_cast<double>(count);
    for (size_t i = 0; i < out.size(); ++i) {
      const double expected = in[i] + (message[i] - mean) / std::sqrt(variance + 1e-5) * gain[i] + shift[i];
      INFO("count " << count << ", element " << i);
      CHECK(out[i] == Approx(expected).margin(1e-5).epsilon(1e-5));
    }
  }
}

TEST_CASE("aggregate_rows: sum, mean and max of rows as written, the first maximum's position", "[nn][kernels]") {
  using nn::aggregate_rows;
  using nn::Aggregation;
  for (const Eigen::Index m : {1, 3, 4, 7, 64}) {
    for (const int count : {0, 1, 2, 5}) {
      std::vector<std::vector<float>> rows;
      std::vector<const float*> pointers;
      for (int k = 0; k < count; ++k) rows.push_back(random_values(static_cast<size_t>(m), 40 + static_cast<uint64_t>(k)));
      if (count == 5) rows[3] = rows[1];  // a tie: the first of the equal rows is the argmax
      for (const auto& row : rows) pointers.push_back(row.data());
      for (const Aggregation kind : {Aggregation::Sum, Aggregation::Mean, Aggregation::Max}) {
        std::vector<float> out(static_cast<size_t>(m), 9.0f);
        std::vector<int32_t> argmax(static_cast<size_t>(m), 9);
        aggregate_rows(kind, pointers.data(), count, out.data(), m, kind == Aggregation::Max ? argmax.data() : nullptr);
        std::vector<float> without_argmax(static_cast<size_t>(m), 9.0f);  // the inference's path
        aggregate_rows(kind, pointers.data(), count, without_argmax.data(), m);
        CHECK(without_argmax == out);
        for (Eigen::Index c = 0; c < m; ++c) {
          INFO("m " << m << " count " << count << " kind " << static_cast<int>(kind) << " column " << c);
          if (count == 0) {
            CHECK(out[static_cast<size_t>(c)] == 0.0f);
            continue;
          }
          float expected = rows[0][static_cast<size_t>(c)];
          int32_t first = 0;
          for (int k = 1; k < count; ++k) {
            const float v = rows[static_cast<size_t>(k)][static_cast<size_t>(c)];
            if (kind == Aggregation::Max) {
              if (v > expected) expected = v, first = k;
            } else {
              expected += v;
            }
          }
          if (kind == Aggregation::Mean && count > 1) expected /= static_cast<float>(count);
          CHECK(out[static_cast<size_t>(c)] == expected);  // the same operations in the same order: exact
          if (kind == Aggregation::Max) CHECK(argmax[static_cast<size_t>(c)] == first);
        }
      }
    }
  }
}

TEST_CASE("multiply_into matches the triple loop, blocked edges included", "[nn][kernels]") {
  for (const auto& [rows, depth, cols] :
       std::vector<std::tuple<int, int, int>>{{1, 1, 1}, {2, 3, 4}, {3, 16, 16}, {5, 7, 17}, {9, 64, 33}, {4, 130, 66}}) {
    const std::vector<float> a_values = random_values(static_cast<size_t>(rows * depth), 700 + static_cast<uint64_t>(rows));
    const std::vector<float> b_values = random_values(static_cast<size_t>(depth * cols), 800 + static_cast<uint64_t>(cols));
    nn::Matrix a(rows, depth), b(depth, cols), out(rows, cols);
    for (int i = 0; i < rows; ++i) {
      for (int k = 0; k < depth; ++k) a(i, k) = a_values[static_cast<size_t>(i * depth + k)];
    }
    for (int k = 0; k < depth; ++k) {
      for (int j = 0; j < cols; ++j) b(k, j) = b_values[static_cast<size_t>(k * cols + j)];
    }
    nn::multiply_into(a, b, out);
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) {
        double sum = 0, magnitude = 0;
        for (int k = 0; k < depth; ++k) sum += static_cast<double>(a(i, k)) * b(k, j), magnitude += std::fabs(a(i, k) * b(k, j));
        INFO(rows << "x" << depth << " times " << depth << "x" << cols << " at (" << i << ", " << j << ")");
        CHECK(out(i, j) == Approx(sum).margin(1e-6 * (1 + magnitude)));
      }
    }
  }
}

TEST_CASE("the training's products add a*b, a^T*b and a*b^T to what out holds, chunk and block edges included", "[nn][kernels]") {
  // (rows of a, columns of a, columns of b): a^T*b's depth is a's rows, chunked by 64 in WebAssembly.
  for (const auto& shape :
       std::vector<std::tuple<int, int, int>>{{1, 1, 1}, {2, 3, 4}, {3, 16, 16}, {5, 7, 17}, {65, 9, 33}, {130, 4, 66}, {0, 3, 5}}) {
    // Plain ints, not structured bindings: clang 14 (Emscripten's) cannot capture those in lambdas.
    const int rows = std::get<0>(shape), inner = std::get<1>(shape), cols = std::get<2>(shape);
    const auto matrix = [](int r, int c, uint64_t seed) {
      const std::vector<float> values = random_values(static_cast<size_t>(r * c), seed);
      nn::Matrix m(r, c);
      for (int i = 0; i < r; ++i) {
        for (int j = 0; j < c; ++j) m(i, j) = values[static_cast<size_t>(i * c + j)];
      }
      return m;
    };
    // product: a (rows x inner) * b (inner x cols); transposed left: a (rows x inner)^T * c (rows x cols);
    // transposed right: a (rows x inner) * d (cols x inner)^T.
    const nn::Matrix a = matrix(rows, inner, 900 + static_cast<uint64_t>(rows)), b = matrix(inner, cols, 910 + static_cast<uint64_t>(cols)),
                     c = matrix(rows, cols, 920), d = matrix(cols, inner, 930);
    const auto check = [&](const nn::Matrix& start, const nn::Matrix& out, int depth, auto term) {
      for (int i = 0; i < out.rows(); ++i) {
        for (int j = 0; j < out.cols(); ++j) {
          double sum = start(i, j), magnitude = std::fabs(start(i, j));
          for (int k = 0; k < depth; ++k) sum += term(i, j, k), magnitude += std::fabs(term(i, j, k));
          INFO(rows << "x" << inner << ", " << cols << " columns, at (" << i << ", " << j << ")");
          CHECK(out(i, j) == Approx(sum).margin(1e-6 * (1 + magnitude)));
        }
      }
    };
    const nn::Matrix start_ab = matrix(rows, cols, 940), start_atc = matrix(inner, cols, 950), start_adt = matrix(rows, cols, 960);
    nn::Matrix out = start_ab;
    nn::multiply_add(a, b, out);
    check(start_ab, out, inner, [&](int i, int j, int k) { return static_cast<double>(a(i, k)) * b(k, j); });
    out = start_atc;
    nn::multiply_transposed_left_add(a, c, out);
    check(start_atc, out, rows, [&](int i, int j, int k) { return static_cast<double>(a(k, i)) * c(k, j); });
    out = start_adt;
    nn::multiply_transposed_right_add(a, d, out);
    check(start_adt, out, inner, [&](int i, int j, int k) { return static_cast<double>(a(i, k)) * d(j, k); });
  }
}
