// Differentiable operations on a Tape (nn/tape.h): the layers a GNN cost model needs.
// Shapes: rows are items (nodes, or configs x nodes when a batch of configurations is stacked:
// row = config * nodes + node), columns are channels. Every op records its own backward.
// The plain ops the fused ones below are checked against, and that the model never runs
// (aggregate, layer_norm, scatter_rows, sum_all, tanh), are in nn/reference_ops.h.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "nn/kernels.h"
#include "nn/tape.h"

namespace graphcost::nn {

Var matmul(Var a, Var b);     // (n x k) (k x m)
Var add(Var a, Var b);        // same shape
Var add_row(Var a, Var row);  // a + a (1 x m) row broadcast to every row (a bias)
Var mul(Var a, Var b);        // elementwise
Var scale(Var a, float factor);
Var scale_by(Var a, Var factor);  // a * factor, factor 1 x 1 (e.g. a learned temperature)
Var gelu(Var a);                  // tanh approximation: gelu_in_place
Var concat_columns(const std::vector<Var>& parts);

// Rows of `table` picked by `ids` (an embedding lookup); gradients scatter-add into the table.
Var embedding(Var table, const std::vector<int32_t>& ids);
// x stacked `times` times vertically (the same nodes for every config of a batch).
Var repeat_rows(Var x, int times);
// Rows [begin, begin + count) of x (e.g. the part of a weight matrix that multiplies some columns).
Var slice_rows(Var x, Eigen::Index begin, Eigen::Index count);
// The same row-major data seen as rows x cols (rows * cols == x.size()).
Var reshape(Var x, Eigen::Index rows, Eigen::Index cols);

// A graph's neighbour lists in CSR form: neighbours of node i are
// neighbours[offsets[i] .. offsets[i+1]).
struct Adjacency {
  int32_t nodes = 0;
  std::vector<int32_t> offsets;  // nodes + 1
  std::vector<int32_t> neighbours;
};

enum class Pool { Sum, Mean };
// Consecutive segments of `segment_rows` rows pooled into one row each (e.g. nodes -> graph, per
// config). x.rows() must be a multiple of segment_rows.
Var segment_pool(Var x, int segment_rows, Pool kind);

// Softmax across `groups` stacked blocks, separately for every (row within block, column):
// out[g*r + i][c] = exp(x[g*r+i][c]) / sum_h exp(x[h*r+i][c]). The cross-configuration attention
// of the winning TpuGraphs models (groups = configs in the batch).
Var group_softmax(Var x, int groups);

// The cost model's layers as single ops: one pass over the configs x nodes rows where the
// compositions named take one per elementary op, and one matrix product where they take three.
// Each equals its composition (tests/test_nn_ops.cpp checks both that and finite differences).
//
// gelu(repeat_rows(shared, times) + scatter_rows(sparse, rows, times * shared.rows()) + bias): an
// input layer whose config-independent part is computed once per graph and whose config part
// touches only the listed rows (a row may be listed more than once: its parts add).
Var gelu_of_shared_and_sparse(Var shared, int times, Var sparse, const std::vector<int32_t>& rows, Var bias);
// gelu(x w_self + aggregate(x, producers, kind) w_producers + aggregate(x, consumers, kind)
// w_consumers + bias), as one product of [x | producer aggregates | consumer aggregates] with the
// stacked weights (aggregates by nn::aggregate_rows). Both adjacencies are referenced, not copied
// (they must outlive the backward pass).
Var sage_message(Var x, const Adjacency& producers, const Adjacency& consumers, Aggregation kind, Var w_self, Var w_producers,
                 Var w_consumers, Var bias);
// x + layer_norm(update, gain, shift): a residual block's end.
Var add_layer_norm(Var x, Var update, Var gain, Var shift, float epsilon = 1e-5f);

// The same layers over a deduplicated batch, whose rows are the distinct (config, node) values of
// a layer (model/distinct_rows.h): a layer's row reads its inputs from given rows of the layer
// below instead of from the same row index. A row's sources:
struct RowSources {
  std::vector<int32_t> self;  // the row of the same node one layer down
  Adjacency producers;        // nodes = this layer's rows; neighbours = rows one layer down
  Adjacency consumers;
};
// gelu(shared[shared_rows[r]] + (sparse rows listed at r) + bias) for every row r: the input layer
// with each row's config-independent part picked from a per-node `shared`.
Var gelu_of_gathered_and_sparse(Var shared, std::vector<int32_t> shared_rows, Var sparse, const std::vector<int32_t>& rows, Var bias);
// sage_message where row r is gelu(x[self[r]] w_self + aggregate of x[producers of r] w_producers +
// aggregate of x[consumers of r] w_consumers + bias). The op shares ownership of `sources`.
Var sage_message(Var x, std::shared_ptr<const RowSources> sources, Aggregation kind, Var w_self, Var w_producers, Var w_consumers,
                 Var bias);
// x[x_rows[r]] + layer_norm(update, gain, shift)[r] (the residual's rows picked from the layer below).
Var add_layer_norm(Var x, std::vector<int32_t> x_rows, Var update, Var gain, Var shift, float epsilon = 1e-5f);
// Sum pooling of picked rows: out[s] = sum of x[rows[k]] over k in [s * per_segment, (s + 1) *
// per_segment), per_segment = rows.size() / segments. The pooling of a deduplicated batch.
Var pool_rows(Var x, std::vector<int32_t> rows, int segments);

// Losses over one graph's configs. `predicted_cost`: configs x 1, lower = predicted faster.
// Pairwise hinge: mean over pairs with runtime_i < runtime_j of max(0, margin - (cost_j - cost_i)).
Var pairwise_hinge_loss(Var predicted_cost, const std::vector<double>& runtimes, float margin = 1.0f);
// Pairwise hinge whose margin is the pair's log-runtime gap in units of the sample's standard
// deviation of log runtime: near-ties (a compiler's search clusters its configs within 0.1% of the
// best) ask for almost no separation, far-apart pairs for a lot; invariant to the graph's runtime
// scale and spread (per-graph normalisation).
Var gap_margin_hinge_loss(Var predicted_cost, const std::vector<double>& runtimes);
// ListMLE (Xia et al. 2008) on utilities -cost, true order fastest first; log-sum-exp computed
// stably from the end of the list.
Var listmle_loss(Var predicted_cost, const std::vector<double>& runtimes);
// Mean squared error against `targets` (same shape).
Var mse_loss(Var prediction, const Matrix& targets);

}  // namespace graphcost::nn
