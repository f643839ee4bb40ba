#include "nn/reference_ops.h"

#include <cassert>
#include <cmath>
#include <vector>

namespace graphcost::nn::reference {
namespace {

template <typename Forward, typename Derivative>
Var unary(Var a, Forward forward, Derivative derivative) {
  Matrix out = a.value().unaryExpr(forward);
  return a.tape->record(std::move(out), {a}, [a, derivative](Tape& tape, int id) {
    const Matrix& x = tape.value(a.id);
    const Matrix& y = tape.value(id);
    Matrix local(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.size(); ++i) local.data()[i] = derivative(x.data()[i], y.data()[i]);
    if (tape.needs_grad(a.id)) tape.add_to_grad(a.id, tape.grad(id).cwiseProduct(local));
  });
}

// The learned affine step of layer norm: normalized * gain + bias (row
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

Var tanh(Var a) {
  return unary(
      a, [](float x) { return std::tanh(x); }, [](float, float y) { return 1.0f - y * y; });
}

Var sum_all(Var a) {
  Matrix out(1, 1);
  out(0, 0) = a.value().sum();
  return a.tape->record(std::move(out), {a}, [a](Tape& tape, int id) {
    if (tape.needs_grad(a.id)) tape.grad(a.id).array() += tape.grad(id)(0, 0);
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

}  // namespace graphcost::nn::reference
