#include "nn/ops.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <memory>
#include <numeric>

namespace graphcost::nn {
namespace {

// Backward helper: adds `contribution` to the gradient of `input` if it needs one.
void accumulate(Tape& tape, Var input, const Matrix& contribution) {
  if (tape.needs_grad(input.id)) tape.add_to_grad(input.id, contribution);
}

// GELU's derivative at `pre` times `upstream`, elementwise (the tanh approximation's exact
// derivative, as in gelu()).
Matrix gelu_backward(const Matrix& pre, const Matrix& upstream) {
  const auto x = Eigen::Map<const Eigen::ArrayXf>(pre.data(), pre.size());
  const Eigen::ArrayXf t = (kGeluScale * (x + kGeluCubic * x.cube())).tanh();
  Matrix out(pre.rows(), pre.cols());
  Eigen::Map<Eigen::ArrayXf>(out.data(), out.size()) =
      Eigen::Map<const Eigen::ArrayXf>(upstream.data(), upstream.size()) *
      (0.5f * (1.0f + t) + 0.5f * x * (1.0f - t.square()) * kGeluScale * (1.0f + 3 * kGeluCubic * x.square()));
  return out;
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
    tape.add_to_grad(a.id, gelu_backward(tape.value(a.id), tape.grad(id)));
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
  // Max: the row each output element came from (the first of equal maxima), for the backward.
  std::vector<Eigen::Index> source(kind == Aggregation::Max ? static_cast<size_t>(out.size()) : 0, -1);
  for (Eigen::Index b = 0; b < blocks; ++b) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const int32_t begin = adjacency.offsets[static_cast<size_t>(i)], end = adjacency.offsets[static_cast<size_t>(i) + 1];
      if (begin == end) continue;
      auto row = out.row(b * n + i);
      if (kind == Aggregation::Max) {
        for (Eigen::Index c = 0; c < in.cols(); ++c) {
          for (int32_t k = begin; k < end; ++k) {
            const Eigen::Index from = b * n + adjacency.neighbours[static_cast<size_t>(k)];
            Eigen::Index& best = source[static_cast<size_t>((b * n + i) * in.cols() + c)];
            if (best < 0 || in(from, c) > in(best, c)) best = from;
          }
          row(c) = in(source[static_cast<size_t>((b * n + i) * in.cols() + c)], c);
        }
        continue;
      }
      for (int32_t k = begin; k < end; ++k) row += in.row(b * n + adjacency.neighbours[static_cast<size_t>(k)]);
      if (kind == Aggregation::Mean) row /= static_cast<float>(end - begin);
    }
  }
  return x.tape->record(std::move(out), {x}, [x, &adjacency, kind, n, blocks, source = std::move(source)](Tape& tape, int id) {
    if (!tape.needs_grad(x.id)) return;
    Matrix& target = tape.grad(x.id);
    const Matrix& g = tape.grad(id);
    if (kind == Aggregation::Max) {
      for (Eigen::Index e = 0; e < g.size(); ++e) {
        if (source[static_cast<size_t>(e)] >= 0) target(source[static_cast<size_t>(e)], e % g.cols()) += g(e / g.cols(), e % g.cols());
      }
      return;
    }
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

// The input layer over `shared` rows repeated `times` times, or (times 0) picked by shared_rows,
// plus the sparse rows, plus the bias, through GELU.
Var gelu_of_shared_rows_and_sparse(Var shared, std::vector<int32_t> shared_rows, int times, Var sparse, const std::vector<int32_t>& rows,
                                   Var bias) {
  const bool gathered = times == 0;  // 0: rows picked by shared_rows
  assert(sparse.rows() == static_cast<Eigen::Index>(rows.size()) && sparse.cols() == shared.cols());
  assert(bias.rows() == 1 && bias.cols() == shared.cols());
  const Eigen::Index n = shared.rows();
  const Eigen::Index total = gathered ? static_cast<Eigen::Index>(shared_rows.size()) : n * times;
  Matrix pre(total, shared.cols());
  if (gathered) {
    for (Eigen::Index r = 0; r < total; ++r) {
      assert(shared_rows[static_cast<size_t>(r)] >= 0 && shared_rows[static_cast<size_t>(r)] < n);
      pre.row(r) = shared.value().row(shared_rows[static_cast<size_t>(r)]);
    }
  } else {
    for (int t = 0; t < times; ++t) pre.middleRows(t * n, n) = shared.value();
  }
  pre.rowwise() += bias.value().row(0);
  for (size_t i = 0; i < rows.size(); ++i) {
    assert(rows[i] >= 0 && rows[i] < pre.rows());
    pre.row(rows[i]) += sparse.value().row(static_cast<Eigen::Index>(i));
  }
  Matrix out = pre;
  gelu_in_place(out.data(), out.size());
  return shared.tape->record(
      std::move(out), {shared, sparse, bias},
      [shared, gathered, shared_rows = std::move(shared_rows), times, sparse, rows, bias, pre = std::move(pre)](Tape& tape, int id) {
        const Matrix d_pre = gelu_backward(pre, tape.grad(id));
        const Eigen::Index n = tape.value(shared.id).rows();
        if (tape.needs_grad(shared.id) && gathered) {
          Matrix& target = tape.grad(shared.id);
          for (Eigen::Index r = 0; r < d_pre.rows(); ++r) target.row(shared_rows[static_cast<size_t>(r)]) += d_pre.row(r);
        } else if (tape.needs_grad(shared.id)) {
          Matrix total = d_pre.topRows(n);
          for (int t = 1; t < times; ++t) total += d_pre.middleRows(t * n, n);
          tape.add_to_grad(shared.id, total);
        }
        if (tape.needs_grad(sparse.id)) {
          Matrix picked(static_cast<Eigen::Index>(rows.size()), d_pre.cols());
          for (size_t i = 0; i < rows.size(); ++i) picked.row(static_cast<Eigen::Index>(i)) = d_pre.row(rows[i]);
          tape.add_to_grad(sparse.id, picked);
        }
        if (tape.needs_grad(bias.id)) tape.add_to_grad(bias.id, d_pre.colwise().sum());
      });
}

}  // namespace

Var gelu_of_shared_and_sparse(Var shared, int times, Var sparse, const std::vector<int32_t>& rows, Var bias) {
  assert(times > 0);
  return gelu_of_shared_rows_and_sparse(shared, {}, times, sparse, rows, bias);
}

Var gelu_of_gathered_and_sparse(Var shared, std::vector<int32_t> shared_rows, Var sparse, const std::vector<int32_t>& rows, Var bias) {
  return gelu_of_shared_rows_and_sparse(shared, std::move(shared_rows), 0, sparse, rows, bias);
}

namespace {

using IndexMatrix = Eigen::Matrix<int32_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Where a message layer's row finds its inputs in x: blocked (self == nullptr), x holds stacked
// blocks of `producers.nodes` rows and row b*n + i reads row b*n + i and its neighbours b*n + j;
// gathered, row i reads x rows self[i] and the neighbours as listed.
struct MessageInputs {
  const Adjacency& producers;
  const Adjacency& consumers;
  const std::vector<int32_t>* self;
  Eigen::Index n() const { return producers.nodes; }
  Eigen::Index blocks(Eigen::Index x_rows) const { return self != nullptr ? 1 : x_rows / n(); }
  Eigen::Index self_row(Eigen::Index b, Eigen::Index i) const { return self != nullptr ? (*self)[static_cast<size_t>(i)] : b * n() + i; }
  Eigen::Index neighbour_base(Eigen::Index b) const { return self != nullptr ? 0 : b * n(); }
};

// [x's own row | aggregate over producers | aggregate over consumers] for every output row
// (nn::aggregate_rows). For Max, `argmax` (rows x 2m) gets the x row each value came from.
Matrix stack_neighbour_aggregates(const Matrix& x, const MessageInputs& inputs, Aggregation kind, IndexMatrix* argmax) {
  const Eigen::Index n = inputs.n(), m = x.cols(), blocks = inputs.blocks(x.rows());
  Matrix stacked(n * blocks, 3 * m);
  if (inputs.self == nullptr) {
    stacked.leftCols(m) = x;
  } else {
    for (Eigen::Index i = 0; i < n; ++i) stacked.block(i, 0, 1, m) = x.row(inputs.self_row(0, i));
  }
  if (argmax != nullptr) argmax->resize(n * blocks, 2 * m);
  std::vector<const float*> rows;
  std::vector<int32_t> positions(static_cast<size_t>(m));
  for (int side = 0; side < 2; ++side) {
    const Adjacency& adjacency = side == 0 ? inputs.producers : inputs.consumers;
    for (Eigen::Index b = 0; b < blocks; ++b) {
      const Eigen::Index base = inputs.neighbour_base(b);
      for (Eigen::Index i = 0; i < n; ++i) {
        const int32_t begin = adjacency.offsets[static_cast<size_t>(i)], end = adjacency.offsets[static_cast<size_t>(i) + 1];
        rows.clear();
        for (int32_t k = begin; k < end; ++k) rows.push_back(x.row(base + adjacency.neighbours[static_cast<size_t>(k)]).data());
        float* out = stacked.row(b * n + i).data() + (side + 1) * m;
        aggregate_rows(kind, rows.data(), static_cast<int>(rows.size()), out, m, argmax != nullptr ? positions.data() : nullptr);
        if (argmax == nullptr) continue;
        for (Eigen::Index c = 0; c < m; ++c) {
          const int32_t k = positions[static_cast<size_t>(c)];
          (*argmax)(b * n + i, side * m + c) =
              k < 0 ? -1 : static_cast<int32_t>(base + adjacency.neighbours[static_cast<size_t>(begin + k)]);
        }
      }
    }
  }
  return stacked;
}

// The backward of the neighbour aggregates: column block `column` of each row of d_aggregates added
// to the neighbours' rows of `target`: every neighbour over the count (Mean), every neighbour (Sum),
// or per value the neighbour it came from (Max, `argmax`).
void scatter_neighbour_aggregates(const Matrix& d_aggregates, Eigen::Index column, const MessageInputs& inputs, Aggregation kind,
                                  const IndexMatrix& argmax, Matrix& target) {
  const Eigen::Index n = inputs.n(), m = target.cols(), blocks = d_aggregates.rows() / n;
  if (kind == Aggregation::Max) {
    for (Eigen::Index r = 0; r < d_aggregates.rows(); ++r) {
      for (Eigen::Index c = 0; c < 2 * m; ++c) {
        const int32_t from = argmax(r, c);
        if (from >= 0) target(from, c % m) += d_aggregates(r, column + c);
      }
    }
    return;
  }
  for (int side = 0; side < 2; ++side) {
    const Adjacency& adjacency = side == 0 ? inputs.producers : inputs.consumers;
    for (Eigen::Index b = 0; b < blocks; ++b) {
      const Eigen::Index base = inputs.neighbour_base(b);
      for (Eigen::Index i = 0; i < n; ++i) {
        const int32_t begin = adjacency.offsets[static_cast<size_t>(i)], end = adjacency.offsets[static_cast<size_t>(i) + 1];
        if (begin == end) continue;
        const float weight = kind == Aggregation::Mean ? 1.0f / static_cast<float>(end - begin) : 1.0f;
        const auto upstream = weight * d_aggregates.block(b * n + i, column + side * m, 1, m);
        for (int32_t k = begin; k < end; ++k) target.row(base + adjacency.neighbours[static_cast<size_t>(k)]) += upstream;
      }
    }
  }
}

Matrix stack_rows(std::initializer_list<const Matrix*> parts) {
  Eigen::Index rows = 0;
  for (const Matrix* part : parts) rows += part->rows();
  Matrix out(rows, (*parts.begin())->cols());
  Eigen::Index offset = 0;
  for (const Matrix* part : parts) {
    out.middleRows(offset, part->rows()) = *part;
    offset += part->rows();
  }
  return out;
}

// `owner` keeps what `inputs` refers to alive until the backward pass (null: the caller does).
Var sage_message_over(Var x, MessageInputs inputs, std::shared_ptr<const RowSources> owner, Aggregation kind, Var w_self, Var w_producers,
                      Var w_consumers, Var bias) {
  assert(inputs.n() > 0 && inputs.producers.nodes == inputs.consumers.nodes);
  assert(inputs.self != nullptr || x.rows() % inputs.n() == 0);
  assert(inputs.self == nullptr || static_cast<Eigen::Index>(inputs.self->size()) == inputs.n());
  assert(w_self.rows() == x.cols() && w_producers.rows() == x.cols() && w_consumers.rows() == x.cols());
  IndexMatrix argmax;
  Matrix stacked = stack_neighbour_aggregates(x.value(), inputs, kind, kind == Aggregation::Max ? &argmax : nullptr);
  // The bias first and the product added to it: Eigen would otherwise zero `pre` before the
  // product and add the bias in another pass.
  Matrix pre(stacked.rows(), w_self.cols());
  pre.rowwise() = bias.value().row(0);
  pre.noalias() += stacked * stack_rows({&w_self.value(), &w_producers.value(), &w_consumers.value()});
  Matrix out = pre;
  gelu_in_place(out.data(), out.size());
  return x.tape->record(std::move(out), {x, w_self, w_producers, w_consumers, bias},
                        [x, inputs, owner, kind, w_self, w_producers, w_consumers, bias, stacked = std::move(stacked), pre = std::move(pre),
                         argmax = std::move(argmax)](Tape& tape, int id) {
                          const Matrix d_pre = gelu_backward(pre, tape.grad(id));
                          if (tape.needs_grad(bias.id)) tape.add_to_grad(bias.id, d_pre.colwise().sum());
                          const Eigen::Index m = tape.value(x.id).cols();
                          const Var weights[3] = {w_self, w_producers, w_consumers};
                          if (tape.needs_grad(w_self.id) || tape.needs_grad(w_producers.id) || tape.needs_grad(w_consumers.id)) {
                            Matrix d_weights(3 * m, d_pre.cols());
                            d_weights.noalias() = stacked.transpose() * d_pre;
                            for (int k = 0; k < 3; ++k) {
                              if (tape.needs_grad(weights[k].id)) tape.add_to_grad(weights[k].id, d_weights.middleRows(k * m, m));
                            }
                          }
                          if (!tape.needs_grad(x.id)) return;
                          Matrix& target = tape.grad(x.id);
                          if (inputs.self == nullptr) {
                            // x's own part straight into its gradient (usually already holding the residual's), then
                            // the neighbour means' part scattered back to the neighbours.
                            target.noalias() += d_pre * tape.value(w_self.id).transpose();
                            Matrix d_means(d_pre.rows(), 2 * m);
                            d_means.noalias() = d_pre * stack_rows({&tape.value(w_producers.id), &tape.value(w_consumers.id)}).transpose();
                            scatter_neighbour_aggregates(d_means, 0, inputs, kind, argmax, target);
                            return;
                          }
                          // Gathered: one product for all three parts, each scattered to its rows of x.
                          Matrix d_stacked(d_pre.rows(), 3 * m);
                          d_stacked.noalias() =
                              d_pre *
                              stack_rows({&tape.value(w_self.id), &tape.value(w_producers.id), &tape.value(w_consumers.id)}).transpose();
                          for (Eigen::Index i = 0; i < d_stacked.rows(); ++i)
                            target.row(inputs.self_row(0, i)) += d_stacked.block(i, 0, 1, m);
                          scatter_neighbour_aggregates(d_stacked, m, inputs, kind, argmax, target);
                        });
}

}  // namespace

Var sage_message(Var x, const Adjacency& producers, const Adjacency& consumers, Aggregation kind, Var w_self, Var w_producers,
                 Var w_consumers, Var bias) {
  return sage_message_over(x, MessageInputs{producers, consumers, nullptr}, nullptr, kind, w_self, w_producers, w_consumers, bias);
}

Var sage_message(Var x, std::shared_ptr<const RowSources> sources, Aggregation kind, Var w_self, Var w_producers, Var w_consumers,
                 Var bias) {
  const MessageInputs inputs{sources->producers, sources->consumers, &sources->self};
  return sage_message_over(x, inputs, std::move(sources), kind, w_self, w_producers, w_consumers, bias);
}

namespace {

// x[x_rows[r]] (x_rows null: x[r]) + layer_norm(update)[r].
Var add_layer_norm_over(Var x, std::vector<int32_t> x_rows, bool gathered, Var update, Var gain, Var shift, float epsilon) {
  assert(x.cols() == update.cols() && (gathered ? static_cast<Eigen::Index>(x_rows.size()) : x.rows()) == update.rows());
  assert(gain.rows() == 1 && gain.cols() == x.cols() && shift.rows() == 1 && shift.cols() == x.cols());
  const Matrix& in = update.value();
  const Eigen::Index m = in.cols();
  Eigen::VectorXf means(in.rows()), inverse_stds(in.rows());
  Matrix out(in.rows(), m);
  for (Eigen::Index r = 0; r < in.rows(); ++r) {
    const float mean = in.row(r).mean();
    const float variance = (in.row(r).array() - mean).square().mean();
    means(r) = mean;
    inverse_stds(r) = 1.0f / std::sqrt(variance + epsilon);
    const Eigen::Index source = gathered ? x_rows[static_cast<size_t>(r)] : r;
    out.row(r) = x.value().row(source).array() + (in.row(r).array() - mean) * inverse_stds(r) * gain.value().row(0).array() +
                 shift.value().row(0).array();
  }
  return x.tape->record(std::move(out), {x, update, gain, shift},
                        [x, x_rows = std::move(x_rows), gathered, update, gain, shift, means, inverse_stds](Tape& tape, int id) {
                          const Matrix& g = tape.grad(id);
                          if (tape.needs_grad(x.id) && gathered) {
                            Matrix& target = tape.grad(x.id);
                            for (Eigen::Index r = 0; r < g.rows(); ++r) target.row(x_rows[static_cast<size_t>(r)]) += g.row(r);
                          } else if (tape.needs_grad(x.id)) {
                            tape.add_to_grad(x.id, g);
                          }
                          if (tape.needs_grad(shift.id)) tape.add_to_grad(shift.id, g.colwise().sum());
                          const bool gain_grad = tape.needs_grad(gain.id), update_grad = tape.needs_grad(update.id);
                          if (!gain_grad && !update_grad) return;
                          const Matrix& in = tape.value(update.id);
                          const Eigen::Index m = in.cols();
                          const auto gain_row = tape.value(gain.id).row(0).array();
                          Eigen::RowVectorXf d_gain = Eigen::RowVectorXf::Zero(m);
                          Matrix d_update(update_grad ? in.rows() : 0, m);
                          Eigen::RowVectorXf normalized(m), g_hat(m);
                          for (Eigen::Index r = 0; r < in.rows(); ++r) {
                            normalized = (in.row(r).array() - means(r)) * inverse_stds(r);
                            if (gain_grad) d_gain.array() += g.row(r).array() * normalized.array();
                            if (!update_grad) continue;
                            g_hat = g.row(r).array() * gain_row;
                            const float mean_g = g_hat.mean();
                            const float mean_g_xhat = g_hat.dot(normalized) / static_cast<float>(m);
                            d_update.row(r) = inverse_stds(r) * (g_hat.array() - mean_g - normalized.array() * mean_g_xhat);
                          }
                          if (gain_grad) tape.add_to_grad(gain.id, d_gain);
                          if (update_grad) tape.add_to_grad(update.id, d_update);
                        });
}

}  // namespace

Var add_layer_norm(Var x, Var update, Var gain, Var shift, float epsilon) {
  return add_layer_norm_over(x, {}, false, update, gain, shift, epsilon);
}

Var add_layer_norm(Var x, std::vector<int32_t> x_rows, Var update, Var gain, Var shift, float epsilon) {
  return add_layer_norm_over(x, std::move(x_rows), true, update, gain, shift, epsilon);
}

Var pool_rows(Var x, std::vector<int32_t> rows, int segments) {
  assert(segments > 0 && rows.size() % static_cast<size_t>(segments) == 0);
  const size_t per_segment = rows.size() / static_cast<size_t>(segments);
  const Matrix& in = x.value();
  Matrix out = Matrix::Zero(segments, in.cols());
  for (size_t k = 0; k < rows.size(); ++k) {
    assert(rows[k] >= 0 && rows[k] < in.rows());
    out.row(static_cast<Eigen::Index>(k / per_segment)) += in.row(rows[k]);
  }
  return x.tape->record(std::move(out), {x}, [x, rows = std::move(rows), per_segment](Tape& tape, int id) {
    if (!tape.needs_grad(x.id)) return;
    Matrix& target = tape.grad(x.id);
    const Matrix& g = tape.grad(id);
    for (size_t k = 0; k < rows.size(); ++k) target.row(rows[k]) += g.row(static_cast<Eigen::Index>(k / per_segment));
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
