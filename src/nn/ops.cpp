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

}  // namespace

Var matmul(Var a, Var b) {
  assert(a.cols() == b.rows());
  Matrix product;
  multiply_into(a.value(), b.value(), product);
  return a.tape->record(std::move(product), {a, b}, [a, b](Tape& tape, int id) {
    const Matrix& g = tape.grad(id);
    if (tape.needs_grad(a.id)) multiply_transposed_right_add(g, tape.value(b.id), tape.grad(a.id));
    if (tape.needs_grad(b.id)) multiply_transposed_left_add(tape.value(a.id), g, tape.grad(b.id));
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

}  // namespace graphcost::nn
