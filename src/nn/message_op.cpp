// The message step of the cost model's SAGE layers as one tape op (nn/ops.h: sage_message): one
// product of [x | producer aggregates | consumer aggregates] with the stacked weights, over a
// stacked batch's rows or over a deduplicated batch's row sources; aggregates by nn::aggregate_rows.
#include <cassert>
#include <memory>
#include <vector>

#include "nn/ops.h"

namespace graphcost::nn {

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
  multiply_add(stacked, stack_rows({&w_self.value(), &w_producers.value(), &w_consumers.value()}), pre);
  Matrix out = pre;
  gelu_in_place(out.data(), out.size());
  return x.tape->record(
      std::move(out), {x, w_self, w_producers, w_consumers, bias},
      [x, inputs, owner, kind, w_self, w_producers, w_consumers, bias, stacked = std::move(stacked), pre = std::move(pre),
       argmax = std::move(argmax)](Tape& tape, int id) {
        const Matrix d_pre = gelu_backward(pre, tape.grad(id));
        if (tape.needs_grad(bias.id)) tape.add_to_grad(bias.id, d_pre.colwise().sum());
        const Eigen::Index m = tape.value(x.id).cols();
        const Var weights[3] = {w_self, w_producers, w_consumers};
        if (tape.needs_grad(w_self.id) || tape.needs_grad(w_producers.id) || tape.needs_grad(w_consumers.id)) {
          Matrix d_weights = Matrix::Zero(3 * m, d_pre.cols());
          multiply_transposed_left_add(stacked, d_pre, d_weights);
          for (int k = 0; k < 3; ++k) {
            if (tape.needs_grad(weights[k].id)) tape.add_to_grad(weights[k].id, d_weights.middleRows(k * m, m));
          }
        }
        if (!tape.needs_grad(x.id)) return;
        Matrix& target = tape.grad(x.id);
        if (inputs.self == nullptr) {
          // x's own part straight into its gradient (usually already holding the residual's), then
          // the neighbour means' part scattered back to the neighbours.
          multiply_transposed_right_add(d_pre, tape.value(w_self.id), target);
          Matrix d_means = Matrix::Zero(d_pre.rows(), 2 * m);
          multiply_transposed_right_add(d_pre, stack_rows({&tape.value(w_producers.id), &tape.value(w_consumers.id)}), d_means);
          scatter_neighbour_aggregates(d_means, 0, inputs, kind, argmax, target);
          return;
        }
        // Gathered: one product for all three parts, each scattered to its rows of x.
        Matrix d_stacked = Matrix::Zero(d_pre.rows(), 3 * m);
        multiply_transposed_right_add(d_pre, stack_rows({&tape.value(w_self.id), &tape.value(w_producers.id), &tape.value(w_consumers.id)}),
                                      d_stacked);
        for (Eigen::Index i = 0; i < d_stacked.rows(); ++i) target.row(inputs.self_row(0, i)) += d_stacked.block(i, 0, 1, m);
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

}  // namespace graphcost::nn
