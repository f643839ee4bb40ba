// The ranking losses of nn/ops.h (pairwise hinge, gap-margin hinge, ListMLE, MSE) on a Tape.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "nn/ops.h"

namespace graphcost::nn {
namespace {

// Backward helper: adds `contribution` to the gradient of `input` if it needs one.
void accumulate(Tape& tape, Var input, const Matrix& contribution) {
  if (tape.needs_grad(input.id)) tape.add_to_grad(input.id, contribution);
}

}  // namespace

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
