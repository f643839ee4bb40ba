#include "train/segment_training.h"

#include <algorithm>
#include <stdexcept>

#include "nn/ops.h"

namespace graphcost {

SegmentedGraph::SegmentedGraph(const PreparedGraph& whole, int layers, const SegmentOptions& options, uint64_t seed)
    : whole_(whole), options_(options) {
  if (options.segments_per_step < 1) throw InputError("", "segments per step", "at least 1", std::to_string(options.segments_per_step));
  if (!(options.stale_dropout >= 0 && options.stale_dropout < 1)) {
    throw InputError("", "stale dropout", "a probability in [0, 1)", std::to_string(options.stale_dropout));
  }
  const GraphPartition partition = partition_graph(whole.view, options.segment_nodes, options.partition, seed);
  cut_edges_ = partition.cut_edges;
  const bool tile = whole.graph->kind == GraphKind::Tile;
  std::vector<char> configurable(static_cast<size_t>(whole.view.size()), 0);
  for (int32_t v : whole.view.configurable) configurable[static_cast<size_t>(v)] = 1;
  for (const std::vector<int32_t>& core : partition.segments) {
    Segment segment;
    const std::vector<int32_t> kept = k_hop_neighbourhood(whole.view, core, layers);
    segment.prepared = restrict_prepared(whole, kept);
    size_t k = 0;
    for (size_t i = 0; i < kept.size(); ++i) {
      if (k < core.size() && core[k] == kept[i]) {
        segment.core_rows.push_back(static_cast<int32_t>(i));
        ++k;
      }
    }
    segment.config_dependent = tile;
    for (int32_t v : kept) segment.config_dependent = segment.config_dependent || configurable[static_cast<size_t>(v)];
    segments_.push_back(std::move(segment));
  }
}

double SegmentedGraph::halo_ratio() const {
  double rows = 0;
  for (const Segment& segment : segments_) rows += segment.prepared.view.size();
  return rows / std::max(1, whole_.view.size());
}

nn::Var SegmentedGraph::segment_sum(nn::Tape& tape, CostModel& model, Segment& segment, const std::vector<int32_t>& configs) {
  // A segment no config reaches has one sum for all: compute it for the first config and repeat.
  const std::vector<int32_t> computed = segment.config_dependent ? configs : std::vector<int32_t>{configs.front()};
  const nn::Var states = model.node_states(tape, segment.prepared, computed);
  const int32_t rows = segment.prepared.view.size();
  std::vector<int32_t> picked;
  picked.reserve(computed.size() * segment.core_rows.size());
  for (size_t b = 0; b < computed.size(); ++b) {
    for (int32_t r : segment.core_rows) picked.push_back(static_cast<int32_t>(b) * rows + r);
  }
  const nn::Var sums = nn::segment_pool(nn::embedding(states, picked), static_cast<int>(segment.core_rows.size()), nn::Pool::Sum);
  return segment.config_dependent ? sums : nn::repeat_rows(sums, static_cast<int>(configs.size()));
}

void SegmentedGraph::fill_history(CostModel& model, Segment& segment, const std::vector<int32_t>& configs) {
  std::vector<int32_t> missing;
  for (int32_t config : configs) {
    const int32_t key = segment.config_dependent ? config : -1;
    const auto found = segment.history.find(key);
    const bool usable =
        found != segment.history.end() && (options_.max_staleness < 0 || step_ - found->second.step <= options_.max_staleness);
    if (!usable && std::find(missing.begin(), missing.end(), config) == missing.end() && (segment.config_dependent || missing.empty())) {
      missing.push_back(config);
    }
  }
  if (missing.empty()) return;
  nn::Tape scratch;  // no backward: values only
  const nn::Var sums = segment_sum(scratch, model, segment, missing);
  for (size_t b = 0; b < missing.size(); ++b) {
    segment.history[segment.config_dependent ? missing[b] : -1] = {sums.value().row(static_cast<Eigen::Index>(b)), step_};
  }
  ++counters_.filled;
}

const Eigen::RowVectorXf& SegmentedGraph::historical_sum(const Segment& segment, int32_t config) const {
  return segment.history.at(segment.config_dependent ? config : -1).sum;
}

nn::Var SegmentedGraph::cost(nn::Tape& tape, CostModel& model, const std::vector<int32_t>& configs, std::mt19937_64& random) {
  ++step_;
  const size_t count = segments_.size();
  const size_t fresh_count = std::min(count, static_cast<size_t>(options_.segments_per_step));
  // A random choice of fresh segments: a partial Fisher-Yates shuffle of the segment indices.
  std::vector<size_t> order(count);
  for (size_t i = 0; i < count; ++i) order[i] = i;
  for (size_t i = 0; i < fresh_count; ++i) std::swap(order[i], order[i + random() % (count - i)]);
  const auto batch = static_cast<Eigen::Index>(configs.size());
  const int hidden = model.config().hidden;
  nn::Var total;
  for (size_t i = 0; i < fresh_count; ++i) {
    Segment& segment = segments_[order[i]];
    const nn::Var sum = segment_sum(tape, model, segment, configs);
    for (Eigen::Index b = 0; b < batch; ++b) {
      segment.history[segment.config_dependent ? configs[static_cast<size_t>(b)] : -1] = {sum.value().row(b), step_};
    }
    total = i == 0 ? sum : nn::add(total, sum);
    ++counters_.fresh;
  }
  // Stale segments: kept ones summed, then scaled up to stand for the dropped ones' nodes too.
  nn::Matrix stale = nn::Matrix::Zero(batch, hidden);
  double stale_nodes = 0, kept_nodes = 0;
  std::vector<size_t> kept;
  for (size_t i = fresh_count; i < count; ++i) {
    const double nodes = static_cast<double>(segments_[order[i]].core_rows.size());
    stale_nodes += nodes;
    const double draw = static_cast<double>(random() >> 11) * 0x1.0p-53;
    if (draw < options_.stale_dropout) {
      ++counters_.dropped;
      continue;
    }
    kept.push_back(order[i]);
    kept_nodes += nodes;
  }
  if (kept.empty() && count > fresh_count) {  // all dropped: keep them all rather than none
    for (size_t i = fresh_count; i < count; ++i) kept.push_back(order[i]);
    kept_nodes = stale_nodes;
  }
  for (size_t s : kept) {
    fill_history(model, segments_[s], configs);
    for (Eigen::Index b = 0; b < batch; ++b) stale.row(b) += historical_sum(segments_[s], configs[static_cast<size_t>(b)]);
    ++counters_.stale;
  }
  if (kept_nodes > 0) stale *= static_cast<float>(stale_nodes / kept_nodes);
  if (count > fresh_count) total = nn::add(total, tape.constant(std::move(stale)));
  return model.head(tape, total, whole_.view.size());
}

nn::Var SegmentedGraph::frozen_backbone_cost(nn::Tape& tape, CostModel& model, const std::vector<int32_t>& configs) {
  const auto batch = static_cast<Eigen::Index>(configs.size());
  nn::Matrix sums = nn::Matrix::Zero(batch, model.config().hidden);
  for (Segment& segment : segments_) {
    fill_history(model, segment, configs);
    for (Eigen::Index b = 0; b < batch; ++b) sums.row(b) += historical_sum(segment, configs[static_cast<size_t>(b)]);
  }
  return model.head(tape, tape.constant(std::move(sums)), whole_.view.size());
}

void SegmentedGraph::forget_history() {
  for (Segment& segment : segments_) segment.history.clear();
}

}  // namespace graphcost
