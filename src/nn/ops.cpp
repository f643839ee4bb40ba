#include "nn/ops.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>

namespace graphcost::nn {
namespace {

// Backward helper: adds `contribution` to the gradient of `input` if it needs one.
void accumulate(Tape& tape, Var input, const Matrix& contribution) {
  if (tape.needs_grad(input.id)) tape.grad(input.id) += contribution;
}

template <typename Forward, typename Derivative>
Var unary(Var a, Forward forward, Derivative derivative) {
  Matrix out = a.value().unaryExpr(forward);
  return a.tape->record(std::move(out), {a}, [a, derivative](Tape& tape, int id) {
    const Matrix& x = tape.value(a.id);
    const Matrix& y = tape.value(id);
    Matrix local(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.size(); ++i) local.data()[i] = derivative(x.data()[i], y.data()[i]);
    accumulate(tape, a, tape.grad(id).cwiseProduct(local));
  });
}

}  // namespace

Var matmul(Var a, Var b) {
  assert(a.cols() == b.rows());
  return a.tape->record(a.value() * b.value(), {a, b}, [a, b](Tape& tape, int id) {
    const Matrix& g = tape.grad(id);
    if (tape.needs_grad(a.id)) tape.grad(a.id).noalias() += g * tape.value(b.id).transpose();
    if (tape.needs_grad(b.id)) tape.grad(b.id).noalias() += tape.value(a.id).transpose() * g;
  });
}

Var add(Var a, Var b) {
  assert(a.rows() == b.rows() && a.cols() == b.cols());
  return a.tape->record(a.value() + b.value(), {a, b}, [a, b](Tape& tape, int id) {
    accumulate(tape, a, tape.grad(id));
    accumulate(tape, b, tape.grad(id));
  });
}

Var add_row(Var a, Var row) {
  assert(row.rows() == 1 && row.cols() == a.cols());
  Matrix out = a.value();
  out.rowwise() += row.value().row(0);
  return a.tape->record(std::move(out), {a, row}, [a, row](Tape& tape, int id) {
    accumulate(tape, a, tape.grad(id));
    if (tape.needs_grad(row.id)) tape.grad(row.id) += tape.grad(id).colwise().sum();
  });
}

Var mul(Var a, Var b) {
  assert(a.rows() == b.rows() && a.cols() == b.cols());
  return a.tape->record(a.value().cwiseProduct(b.value()), {a, b}, [a, b](Tape& tape, int id) {
    if (tape.needs_grad(a.id)) tape.grad(a.id) += tape.grad(id).cwiseProduct(tape.value(b.id));
    if (tape.needs_grad(b.id)) tape.grad(b.id) += tape.grad(id).cwiseProduct(tape.value(a.id));
  });
}

Var scale(Var a, float factor) {
  return a.tape->record(a.value() * factor, {a}, [a, factor](Tape& tape, int id) { accumulate(tape, a, tape.grad(id) * factor); });
}

Var scale_by(Var a, Var factor) {
  assert(factor.rows() == 1 && factor.cols() == 1);
  return a.tape->record(a.value() * factor.value()(0, 0), {a, factor}, [a, factor](Tape& tape, int id) {
    const Matrix& g = tape.grad(id);
    if (tape.needs_grad(factor.id)) tape.grad(factor.id)(0, 0) += g.cwiseProduct(tape.value(a.id)).sum();
    if (tape.needs_grad(a.id)) tape.grad(a.id) += g * tape.value(factor.id)(0, 0);
  });
}

Var gelu(Var a) {
  Matrix out = a.value();
  gelu_in_place(out.data(), out.size());
  return a.tape->record(std::move(out), {a}, [a](Tape& tape, int id) {
    if (!tape.needs_grad(a.id)) return;
    const Matrix& in = tape.value(a.id);
    const auto x = Eigen::Map<const Eigen::ArrayXf>(in.data(), in.size());
    const Eigen::ArrayXf t = (kGeluScale * (x + kGeluCubic * x.cube())).tanh();
    const Eigen::ArrayXf local = 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t.square()) * kGeluScale * (1.0f + 3 * kGeluCubic * x.square());
    const Matrix& g = tape.grad(id);
    Eigen::Map<Eigen::ArrayXf>(tape.grad(a.id).data(), in.size()) += Eigen::Map<const Eigen::ArrayXf>(g.data(), g.size()) * local;
  });
}

Var tanh(Var a) {
  return unary(
      a, [](float x) { return std::tanh(x); }, [](float, float y) { return 1.0f - y * y; });
}

Var concat_columns(const std::vector<Var>& parts) {
  assert(!parts.empty());
  const Eigen::Index rows = parts.front().rows();
  Eigen::Index cols = 0;
  for (const Var& part : parts) {
    assert(part.rows() == rows);
    cols += part.cols();
  }
  Matrix out(rows, cols);
  Eigen::Index offset = 0;
  for (const Var& part : parts) {
    out.middleCols(offset, part.cols()) = part.value();
    offset += part.cols();
  }
  return parts.front().tape->record(std::move(out), parts, [parts](Tape& tape, int id) {
    Eigen::Index start = 0;
    for (const Var& part : parts) {
      const Eigen::Index width = tape.value(part.id).cols();
      if (tape.needs_grad(part.id)) tape.grad(part.id) += tape.grad(id).middleCols(start, width);
      start += width;
    }
  });
}

Var sum_all(Var a) {
  Matrix out(1, 1);
  out(0, 0) = a.value().sum();
  return a.tape->record(std::move(out), {a}, [a](Tape& tape, int id) {
    if (tape.needs_grad(a.id)) tape.grad(a.id).array() += tape.grad(id)(0, 0);
  });
}

Var embedding(Var table, const std::vector<int32_t>& ids) {
  Matrix out(static_cast<Eigen::Index>(ids.size()), table.cols());
  for (size_t i = 0; i < ids.size(); ++i) {
    assert(ids[i] >= 0 && ids[i] < table.rows());
    out.row(static_cast<Eigen::Index>(i)) = table.value().row(ids[i]);
  }
  return table.tape->record(std::move(out), {table}, [table, ids](Tape& tape, int id) {
    if (!tape.needs_grad(table.id)) return;
    Matrix& target = tape.grad(table.id);
    const Matrix& g = tape.grad(id);
    for (size_t i = 0; i < ids.size(); ++i) target.row(ids[i]) += g.row(static_cast<Eigen::Index>(i));
  });
}

Var scatter_rows(Var x, const std::vector<int32_t>& rows, Eigen::Index total_rows) {
  assert(static_cast<Eigen::Index>(rows.size()) == x.rows());
  Matrix out = Matrix::Zero(total_rows, x.cols());
  for (size_t i = 0; i < rows.size(); ++i) out.row(rows[i]) += x.value().row(static_cast<Eigen::Index>(i));
  return x.tape->record(std::move(out), {x}, [x, rows](Tape& tape, int id) {
    if (!tape.needs_grad(x.id)) return;
    Matrix& target = tape.grad(x.id);
    const Matrix& g = tape.grad(id);
    for (size_t i = 0; i < rows.size(); ++i) target.row(static_cast<Eigen::Index>(i)) += g.row(rows[i]);
  });
}

Var repeat_rows(Var x, int times) {
  assert(times > 0);
  const Eigen::Index rows = x.rows();
  Matrix out(rows * times, x.cols());
  for (int t = 0; t < times; ++t) out.middleRows(t * rows, rows) = x.value();
  return x.tape->record(std::move(out), {x}, [x, times, rows](Tape& tape, int id) {
    if (!tape.needs_grad(x.id)) return;
    Matrix& target = tape.grad(x.id);
    const Matrix& g = tape.grad(id);
    for (int t = 0; t < times; ++t) target += g.middleRows(t * rows, rows);
  });
}

Var slice_rows(Var x, Eigen::Index begin, Eigen::Index count) {
  assert(begin >= 0 && count >= 0 && begin + count <= x.rows());
  return x.tape->record(x.value().middleRows(begin, count), {x}, [x, begin, count](Tape& tape, int id) {
    if (tape.needs_grad(x.id)) tape.grad(x.id).middleRows(begin, count) += tape.grad(id);
  });
}

Var reshape(Var x, Eigen::Index rows, Eigen::Index cols) {
  assert(rows * cols == x.value().size());
  Matrix out = Eigen::Map<const Matrix>(x.value().data(), rows, cols);
  return x.tape->record(std::move(out), {x}, [x](Tape& tape, int id) {
    if (!tape.needs_grad(x.id)) return;
    Matrix& target = tape.grad(x.id);
    target += Eigen::Map<const Matrix>(tape.grad(id).data(), target.rows(), target.cols());
  });
}

Var aggregate(Var x, const Adjacency& adjacency, Aggregation kind) {
  const Eigen::Index n = adjacency.nodes;
  assert(n > 0 && x.rows() % n == 0);
  const Eigen::Index blocks = x.rows() / n;
  const Matrix& in = x.value();
  Matrix out = Matrix::Zero(in.rows(), in.cols());
  for (Eigen::Index b = 0; b < blocks; ++b) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const int32_t begin = adjacency.offsets[static_cast<size_t>(i)], end = adjacency.offsets[static_cast<size_t>(i) + 1];
      if (begin == end) continue;
      auto row = out.row(b * n + i);
      for (int32_t k = begin; k < end; ++k) row += in.row(b * n + adjacency.neighbours[static_cast<size_t>(k)]);
      if (kind == Aggregation::Mean) row /= static_cast<float>(end - begin);
    }
  }
  return x.tape->record(std::move(out), {x}, [x, &adjacency, kind, n, blocks](Tape& tape, int id) {
    if (!tape.needs_grad(x.id)) return;
    Matrix& target = tape.grad(x.id);
    const Matrix& g = tape.grad(id);
    for (Eigen::Index b = 0; b < blocks; ++b) {
      for (Eigen::Index i = 0; i < n; ++i) {
        const int32_t begin = adjacency.offsets[static_cast<size_t>(i)], end = adjacency.offsets[static_cast<size_t>(i) + 1];
        if (begin == end) continue;
        const float weight = kind == Aggregation::Mean ? 1.0f / static_cast<float>(end - begin) : 1.0f;
        for (int32_t k = begin; k < end; ++k) target.row(b * n + adjacency.neighbours[static_cast<size_t>(k)]) += weight * g.row(b * n + i);
      }
    }
  });
}

namespace {

// The learned affine step shared by layer and instance norm: normalized * gain + bias (row
// broadcast), and its backward: gain and bias gradients accumulated, d(loss)/d(normalized) returned.
Matrix apply_gain_bias(const Matrix& normalized, Var gain, Var bias) {
  Matrix out = normalized.array().rowwise() * gain.value().row(0).array();
  out.rowwise() += bias.value().row(0);
  return out;
}

Matrix gain_bias_backward(Tape& tape, int id, const Matrix& normalized, Var gain, Var bias) {
  const Matrix& g = tape.grad(id);
  if (tape.needs_grad(gain.id)) tape.grad(gain.id) += (g.cwiseProduct(normalized)).colwise().sum();
  if (tape.needs_grad(bias.id)) tape.grad(bias.id) += g.colwise().sum();
  return g.array().rowwise() * tape.value(gain.id).row(0).array();
}

}  // namespace

Var layer_norm(Var x, Var gain, Var bias, float epsilon) {
  assert(gain.rows() == 1 && gain.cols() == x.cols() && bias.rows() == 1 && bias.cols() == x.cols());
  const Matrix& in = x.value();
  const Eigen::Index m = in.cols();
  Matrix normalized(in.rows(), m);
  Eigen::VectorXf inverse_std(in.rows());
  for (Eigen::Index r = 0; r < in.rows(); ++r) {
    const float mean = in.row(r).mean();
    const float variance = (in.row(r).array() - mean).square().mean();
    inverse_std(r) = 1.0f / std::sqrt(variance + epsilon);
    normalized.row(r) = (in.row(r).array() - mean) * inverse_std(r);
  }
  return x.tape->record(
      apply_gain_bias(normalized, gain, bias), {x, gain, bias}, [x, gain, bias, normalized, inverse_std, m](Tape& tape, int id) {
        const Matrix g_hat = gain_bias_backward(tape, id, normalized, gain, bias);
        if (!tape.needs_grad(x.id)) return;
        Matrix& target = tape.grad(x.id);
        for (Eigen::Index r = 0; r < g_hat.rows(); ++r) {
          const float mean_g = g_hat.row(r).mean();
          const float mean_g_xhat = g_hat.row(r).dot(normalized.row(r)) / static_cast<float>(m);
          target.row(r).array() += inverse_std(r) * (g_hat.row(r).array() - mean_g - normalized.row(r).array() * mean_g_xhat);
        }
      });
}

Var segment_pool(Var x, int segment_rows, Pool kind) {
  assert(segment_rows > 0 && x.rows() % segment_rows == 0);
  const Matrix& in = x.value();
  const Eigen::Index segments = in.rows() / segment_rows;
  Matrix out(segments, in.cols());
  for (Eigen::Index s = 0; s < segments; ++s) {
    out.row(s) = in.middleRows(s * segment_rows, segment_rows).colwise().sum();
    if (kind == Pool::Mean) out.row(s) /= static_cast<float>(segment_rows);
  }
  return x.tape->record(std::move(out), {x}, [x, segment_rows, kind](Tape& tape, int id) {
    if (!tape.needs_grad(x.id)) return;
    Matrix& target = tape.grad(x.id);
    const Matrix& g = tape.grad(id);
    const float weight = kind == Pool::Mean ? 1.0f / static_cast<float>(segment_rows) : 1.0f;
    for (Eigen::Index s = 0; s < g.rows(); ++s) target.middleRows(s * segment_rows, segment_rows).rowwise() += weight * g.row(s);
  });
}

Var group_softmax(Var x, int groups) {
  assert(groups > 0 && x.rows() % groups == 0);
  const Matrix& in = x.value();
  const Eigen::Index per_group = in.rows() / groups;
  Matrix out(in.rows(), in.cols());
  for (Eigen::Index i = 0; i < per_group; ++i) {
    for (Eigen::Index c = 0; c < in.cols(); ++c) {
      float largest = -std::numeric_limits<float>::infinity();
      for (int g = 0; g < groups; ++g) largest = std::max(largest, in(g * per_group + i, c));
      float total = 0;
      for (int g = 0; g < groups; ++g) total += (out(g * per_group + i, c) = std::exp(in(g * per_group + i, c) - largest));
      for (int g = 0; g < groups; ++g) out(g * per_group + i, c) /= total;
    }
  }
  return x.tape->record(std::move(out), {x}, [x, groups, per_group](Tape& tape, int id) {
    if (!tape.needs_grad(x.id)) return;
    const Matrix& y = tape.value(id);
    const Matrix& g = tape.grad(id);
    Matrix& target = tape.grad(x.id);
    for (Eigen::Index i = 0; i < per_group; ++i) {
      for (Eigen::Index c = 0; c < y.cols(); ++c) {
        float dot = 0;
        for (int h = 0; h < groups; ++h) dot += g(h * per_group + i, c) * y(h * per_group + i, c);
        for (int h = 0; h < groups; ++h) target(h * per_group + i, c) += y(h * per_group + i, c) * (g(h * per_group + i, c) - dot);
      }
    }
  });
}

namespace {

// Mean over pairs with runtime_i < runtime_j of max(0, margin(i, j) - (cost_j - cost_i)).
template <typename Margin>
Var hinge_over_pairs(Var predicted_cost, const std::vector<double>& runtimes, const Margin& margin) {
  assert(predicted_cost.cols() == 1 && predicted_cost.rows() == static_cast<Eigen::Index>(runtimes.size()));
  const Matrix& cost = predicted_cost.value();
  const size_t n = runtimes.size();
  double total = 0;
  int64_t pairs = 0;
  Matrix local = Matrix::Zero(cost.rows(), 1);  // d loss / d cost, before normalising by pairs
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (!(runtimes[i] < runtimes[j])) continue;  // i truly faster: want cost_i + margin <= cost_j
      ++pairs;
      const float violation = margin(i, j) - (cost(static_cast<Eigen::Index>(j), 0) - cost(static_cast<Eigen::Index>(i), 0));
      if (violation > 0) {
        total += violation;
        local(static_cast<Eigen::Index>(i), 0) += 1;
        local(static_cast<Eigen::Index>(j), 0) -= 1;
      }
    }
  }
  const float normaliser = pairs > 0 ? 1.0f / static_cast<float>(pairs) : 0.0f;
  Matrix out(1, 1);
  out(0, 0) = static_cast<float>(total) * normaliser;
  local *= normaliser;
  return predicted_cost.tape->record(std::move(out), {predicted_cost}, [predicted_cost, local](Tape& tape, int id) {
    accumulate(tape, predicted_cost, local * tape.grad(id)(0, 0));
  });
}

}  // namespace

Var pairwise_hinge_loss(Var predicted_cost, const std::vector<double>& runtimes, float margin) {
  return hinge_over_pairs(predicted_cost, runtimes, [margin](size_t, size_t) { return margin; });
}

Var gap_margin_hinge_loss(Var predicted_cost, const std::vector<double>& runtimes) {
  std::vector<double> log_runtime(runtimes.size());
  double mean = 0;
  for (size_t i = 0; i < runtimes.size(); ++i) {
    log_runtime[i] = std::log(runtimes[i]);
    mean += log_runtime[i] / static_cast<double>(runtimes.size());
  }
  double variance = 0;
  for (double v : log_runtime) variance += (v - mean) * (v - mean) / static_cast<double>(std::max<size_t>(1, runtimes.size()));
  // All runtimes equal: no pair is ordered, the loss is 0 whatever the scale.
  const double scale = variance > 0 ? 1.0 / std::sqrt(variance) : 0.0;
  return hinge_over_pairs(predicted_cost, runtimes,
                          [&](size_t i, size_t j) { return static_cast<float>((log_runtime[j] - log_runtime[i]) * scale); });
}

Var listmle_loss(Var predicted_cost, const std::vector<double>& runtimes) {
  assert(predicted_cost.cols() == 1 && predicted_cost.rows() == static_cast<Eigen::Index>(runtimes.size()));
  const size_t n = runtimes.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return runtimes[a] < runtimes[b]; });
  const Matrix& cost = predicted_cost.value();
  // utility u = -cost in true order; loss = sum_i [ logsumexp(u[i:]) - u[i] ].
  std::vector<double> u(n), tail_lse(n);
  for (size_t i = 0; i < n; ++i) u[i] = -static_cast<double>(cost(static_cast<Eigen::Index>(order[i]), 0));
  double running = -std::numeric_limits<double>::infinity();
  for (size_t i = n; i-- > 0;) {
    const double high = std::max(running, u[i]);
    running = high + std::log(std::exp(running - high) + std::exp(u[i] - high));
    tail_lse[i] = running;
  }
  double loss = 0;
  for (size_t i = 0; i < n; ++i) loss += tail_lse[i] - u[i];
  // d loss / d u[k] = sum_{i <= k} softmax_i(u[i:])[k] - 1 = exp(u[k]) sum_{i <= k} exp(-tail_lse[i]) - 1.
  // Each term exp(u[k] - tail_lse[i]) <= 1 for i <= k, so the sum stays finite; it is kept in log
  // space so no exp of a large number is ever taken.
  Matrix local(static_cast<Eigen::Index>(n), 1);
  double log_prefix = -std::numeric_limits<double>::infinity();
  for (size_t k = 0; k < n; ++k) {
    const double term = -tail_lse[k];
    const double high = std::max(log_prefix, term);
    log_prefix = high + std::log(std::exp(log_prefix - high) + std::exp(term - high));
    const double d_u = std::exp(u[k] + log_prefix) - 1.0;
    local(static_cast<Eigen::Index>(order[k]), 0) = static_cast<float>(-d_u / static_cast<double>(n));  // d cost = -d u
  }
  Matrix out(1, 1);
  out(0, 0) = static_cast<float>(loss / static_cast<double>(n));
  return predicted_cost.tape->record(std::move(out), {predicted_cost}, [predicted_cost, local](Tape& tape, int id) {
    accumulate(tape, predicted_cost, local * tape.grad(id)(0, 0));
  });
}

Var mse_loss(Var prediction, const Matrix& targets) {
  assert(prediction.rows() == targets.rows() && prediction.cols() == targets.cols());
  const Matrix difference = prediction.value() - targets;
  Matrix out(1, 1);
  out(0, 0) = difference.squaredNorm() / static_cast<float>(std::max<Eigen::Index>(1, difference.size()));
  return prediction.tape->record(std::move(out), {prediction}, [prediction, difference](Tape& tape, int id) {
    accumulate(tape, prediction,
               difference * (2.0f / static_cast<float>(std::max<Eigen::Index>(1, difference.size())) * tape.grad(id)(0, 0)));
  });
}

}  // namespace graphcost::nn
