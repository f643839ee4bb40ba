#include "learners/learner_support.h"

#include <algorithm>
#include <cmath>

#include "common/internal_error.h"
#include "metrics/kendall_tau.h"

namespace graphcost {

int64_t runtime_ns(double seconds) { return std::max<int64_t>(1, static_cast<int64_t>(std::llround(std::min(seconds, 9e9) * 1e9))); }

TpuGraph unlabelled_copy(const TpuGraph& graph) {
  TpuGraph copy = graph;
  copy.config_runtime_ns.assign(static_cast<size_t>(graph.config_count), 0);
  copy.config_runtime_normalizers_ns.assign(graph.kind == GraphKind::Tile ? static_cast<size_t>(graph.config_count) : 0, 1);
  copy.runtimes_hidden = false;
  return copy;
}

void add_standardised(const std::vector<float>& costs, double weight, std::vector<float>& sum) {
  check_invariant(costs.size() == sum.size(), "add_standardised: costs of every candidate");
  if (costs.empty()) return;
  double mean = 0, square = 0;
  for (const float c : costs) mean += c;
  mean /= static_cast<double>(costs.size());
  for (const float c : costs) square += (c - mean) * (c - mean);
  const double sd = std::sqrt(square / static_cast<double>(costs.size())) + 1e-12;
  for (size_t c = 0; c < costs.size(); ++c) sum[c] += static_cast<float>(weight * (costs[c] - mean) / sd);
}

double tau_of(const std::vector<float>& costs, const std::vector<double>& seconds) {
  check_invariant(costs.size() == seconds.size(), "tau_of: a runtime per cost");
  if (costs.size() < 2) return NAN;
  const std::vector<double> predicted(costs.begin(), costs.end());
  return kendall_tau_b(predicted.data(), seconds.data(), predicted.size());
}

}  // namespace graphcost
