#include "model/config_explainer.h"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>

#include "common/internal_error.h"
#include "data/node_features.h"

namespace graphcost {

std::vector<int8_t> layout_config_values(const TpuGraph& graph, int32_t config) {
  if (graph.kind != GraphKind::Layout || config < 0 || config >= graph.config_count) {
    throw InternalError("layout_config_values: config " + std::to_string(config) + " of a graph with " +
                        std::to_string(graph.config_count) + " layout configs");
  }
  const size_t width = static_cast<size_t>(graph.configurable_count()) * kLayoutConfigFeatureCount;
  const auto first = graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(config) * width);
  return std::vector<int8_t>(first, first + static_cast<std::ptrdiff_t>(width));
}

ValuePredictions::ValuePredictions(const LayoutInference& inference, std::vector<int8_t> values, size_t width)
    : inference_(inference), values_(std::move(values)), width_(width) {
  if (width_ == 0 || values_.size() % width_ != 0) throw InternalError("ValuePredictions: values are not whole configs");
  costs_.assign(values_.size() / width_, 0.0f);
}

bool ValuePredictions::step(size_t max_configs) {
  const size_t end = std::min(costs_.size(), next_ + std::max<size_t>(1, max_configs));
  if (next_ < end) {
    const std::vector<int8_t> chunk(values_.begin() + static_cast<std::ptrdiff_t>(next_ * width_),
                                    values_.begin() + static_cast<std::ptrdiff_t>(end * width_));
    const std::vector<float> costs = inference_.predict_values(chunk);
    std::copy(costs.begin(), costs.end(), costs_.begin() + static_cast<std::ptrdiff_t>(next_));
    next_ = end;
  }
  return done();
}

namespace {

constexpr size_t kRow = kLayoutConfigFeatureCount;

bool same_row(const std::vector<int8_t>& a, const std::vector<int8_t>& b, size_t slot) {
  return std::equal(a.begin() + static_cast<std::ptrdiff_t>(slot * kRow), a.begin() + static_cast<std::ptrdiff_t>((slot + 1) * kRow),
                    b.begin() + static_cast<std::ptrdiff_t>(slot * kRow));
}

void copy_row(const std::vector<int8_t>& from, std::vector<int8_t>& to, size_t slot) {
  std::copy(from.begin() + static_cast<std::ptrdiff_t>(slot * kRow), from.begin() + static_cast<std::ptrdiff_t>((slot + 1) * kRow),
            to.begin() + static_cast<std::ptrdiff_t>(slot * kRow));
}

// [reference, other, then `reference` with each differing slot's row taken from `other`].
std::vector<int8_t> variants(const std::vector<int8_t>& reference, const std::vector<int8_t>& other, std::vector<int32_t>& slots) {
  if (reference.size() != other.size() || reference.size() % kRow != 0) throw InternalError("configs of different graphs");
  std::vector<int8_t> values = reference;
  values.insert(values.end(), other.begin(), other.end());
  for (size_t slot = 0; slot < reference.size() / kRow; ++slot) {
    if (same_row(reference, other, slot)) continue;
    slots.push_back(static_cast<int32_t>(slot));
    std::vector<int8_t> variant = reference;
    copy_row(other, variant, slot);
    values.insert(values.end(), variant.begin(), variant.end());
  }
  return values;
}

}  // namespace

ContributionJob::ContributionJob(const LayoutInference& inference, const std::vector<int8_t>& config)
    : compare_(false), predictions_(inference, variants(config, inference.base_values(), slots_), config.size()) {}

ContributionJob::ContributionJob(const LayoutInference& inference, const std::vector<int8_t>& a, const std::vector<int8_t>& b)
    : compare_(true), predictions_(inference, variants(a, b, slots_), a.size()) {}

bool ContributionJob::step(size_t max_configs) { return predictions_.step(max_configs); }

NodeContributions ContributionJob::result() const {
  if (!done()) throw InternalError("ContributionJob::result before done");
  const std::vector<float>& costs = predictions_.costs();
  NodeContributions result;
  result.slots = slots_;
  result.reference_cost = costs[0];
  result.other_cost = costs[1];
  for (size_t i = 0; i < slots_.size(); ++i) {
    const float variant = costs[2 + i];
    // Occlusion: what the node's own values add to the cost. Compare: what taking b's values adds.
    result.contribution.push_back(compare_ ? variant - costs[0] : costs[0] - variant);
  }
  return result;
}

GreedyLayoutSearch::GreedyLayoutSearch(const LayoutInference& inference, const TpuGraph& graph, std::vector<int8_t> start, int max_rounds,
                                       int max_candidates)
    : inference_(inference), width_(start.size()), start_(std::move(start)), max_rounds_(max_rounds) {
  const size_t slots = width_ / kRow;
  candidates_.resize(slots);
  for (size_t slot = 0; slot < slots; ++slot) {
    std::map<std::vector<int8_t>, int> counts;
    for (int32_t c = 0; c < graph.config_count; ++c) {
      const auto first = graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(c) * width_ + slot * kRow);
      ++counts[std::vector<int8_t>(first, first + static_cast<std::ptrdiff_t>(kRow))];
    }
    std::vector<std::pair<int, std::vector<int8_t>>> ranked;
    for (const auto& [row, count] : counts) ranked.emplace_back(-count, row);
    std::sort(ranked.begin(), ranked.end());
    for (size_t i = 0; i < ranked.size() && static_cast<int>(i) < max_candidates; ++i) candidates_[slot].push_back(ranked[i].second);
  }
  best_ = start_;
  start_cost_ = best_cost_ = inference_.predict_values(start_)[0];
  begin_round();
}

void GreedyLayoutSearch::begin_round() {
  round_changes_.clear();
  std::vector<int8_t> values;
  for (size_t slot = 0; slot < candidates_.size(); ++slot) {
    for (size_t k = 0; k < candidates_[slot].size(); ++k) {
      const std::vector<int8_t>& row = candidates_[slot][k];
      if (std::equal(row.begin(), row.end(), best_.begin() + static_cast<std::ptrdiff_t>(slot * kRow))) continue;
      std::vector<int8_t> variant = best_;
      std::copy(row.begin(), row.end(), variant.begin() + static_cast<std::ptrdiff_t>(slot * kRow));
      values.insert(values.end(), variant.begin(), variant.end());
      round_changes_.emplace_back(static_cast<int32_t>(slot), static_cast<int32_t>(k));
    }
  }
  if (round_changes_.empty()) {
    finished_ = true;
    round_.reset();
    return;
  }
  round_ = std::make_unique<ValuePredictions>(inference_, std::move(values), width_);
}

bool GreedyLayoutSearch::step(size_t max_configs) {
  if (finished_) return true;
  if (!round_->step(max_configs)) return false;
  const std::vector<float>& costs = round_->costs();
  const size_t best = static_cast<size_t>(std::min_element(costs.begin(), costs.end()) - costs.begin());
  ++rounds_;
  if (costs[best] >= best_cost_) {
    finished_ = true;
  } else {
    const auto [slot, k] = round_changes_[best];
    const std::vector<int8_t>& row = candidates_[static_cast<size_t>(slot)][static_cast<size_t>(k)];
    std::copy(row.begin(), row.end(), best_.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(slot) * kRow));
    best_cost_ = costs[best];
    changed_nodes_ = 0;
    for (size_t s = 0; s < candidates_.size(); ++s) changed_nodes_ += !same_row(best_, start_, s);
    if (rounds_ >= max_rounds_) finished_ = true;
  }
  if (!finished_) begin_round();
  return finished_;
}

}  // namespace graphcost
