// Reference ops: plain tape ops that the cost model never runs, kept as the slow, obvious
// compositions the fused ops of nn/ops.h are checked against (tests/test_nn_ops.cpp: each fused op
// equals its composition of these, and every op passes finite differences). Namespace
// nn::reference, so a call in model code reads as what it is.
#pragma once

#include <cstdint>
#include <vector>

#include "nn/kernels.h"
#include "nn/ops.h"
#include "nn/tape.h"

namespace graphcost::nn::reference {

Var tanh(Var a);
Var sum_all(Var a);  // 1 x 1

// A total_rows x cols matrix of zeros with x's row i added at row rows[i] (the inverse of a lookup).
Var scatter_rows(Var x, const std::vector<int32_t>& rows, Eigen::Index total_rows);

// (Aggregation, nn/kernels.h: Sum, Mean, Max.)
// out[b*n + i] = sum (mean, elementwise max) over j in neighbours(i) of x[b*n + j], for every stacked block b
// (x.rows() must be a multiple of adjacency.nodes). Nodes without neighbours get zeros.
// `adjacency` is referenced, not copied: it must outlive the tape's backward pass.
Var aggregate(Var x, const Adjacency& adjacency, Aggregation kind);

// Per-row layer normalisation with a learned gain and bias (1 x m each).
Var layer_norm(Var x, Var gain, Var bias, float epsilon = 1e-5f);

}  // namespace graphcost::nn::reference
