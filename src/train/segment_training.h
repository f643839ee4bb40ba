// Graph Segment Training (GST; Cao et al., "Learning Large Graph Property Prediction via Graph
// Segment Training", NeurIPS 2023), for graphs too big to backpropagate through whole.
//
// A training graph's view is cut into segments (model/graph_partition: METIS or contiguous id
// ranges). The model's pooling is a sum over nodes, so a graph's pooled vector is the sum of its
// segments' sums. Each segment is computed on its nodes plus a halo of `layers` hops, which makes
// its sum exactly the whole-graph forward's contribution of those nodes (tested). Per step only
// `segments_per_step` random segments go on the tape; the others come from a historical embedding
// table (their sums from earlier steps: stale), each dropped with probability `stale_dropout` and
// the kept ones rescaled by node count (stale embedding dropout). After the last epoch the head
// (head.*, out.*) is finetuned on exact sums from the frozen backbone. Prediction is unchanged:
// the model file is an ordinary one and ranks through the whole graph (LayoutInference).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/cost_model.h"
#include "model/graph_partition.h"

namespace graphcost {

struct SegmentOptions {
  int segment_nodes = 0;  // 0: full-graph training (no GST)
  PartitionMethod partition = PartitionMethod::Metis;
  int segments_per_step = 1;  // segments backpropagated per step
  // Defaults measured on 55k-100k-node graphs (docs/experiments.md): per-config sums from older
  // steps differ by parameter drift more than configs differ, so by default the other segments
  // are recomputed without gradient each step (max_staleness 0) and none are dropped.
  float stale_dropout = 0.0f;  // probability of dropping each stale segment in a step
  int max_staleness = 0;       // historical sums older than this many of the graph's steps are
                               // recomputed (no gradient) before use; -1: never, 0: always
  int finetune_steps = -1;     // head finetuning steps after the last epoch (-1: steps_per_epoch)
};

struct SegmentCounters {
  int64_t fresh = 0;    // segment passes on the tape
  int64_t stale = 0;    // historical sums used
  int64_t dropped = 0;  // historical sums dropped
  int64_t filled = 0;   // no-gradient passes that filled missing historical sums
};

class SegmentedGraph {
 public:
  // `whole` must outlive this object. `layers` = the model's SAGE layers (the halo depth).
  SegmentedGraph(const PreparedGraph& whole, int layers, const SegmentOptions& options, uint64_t seed);

  size_t segment_count() const { return segments_.size(); }
  int64_t cut_edges() const { return cut_edges_; }
  // Rows computed per pass over all segments / view rows (the halo's overhead; 1 = none).
  double halo_ratio() const;

  // One GST step's predicted costs (B x 1) of `configs` on `tape`; updates the historical table.
  nn::Var cost(nn::Tape& tape, CostModel& model, const std::vector<int32_t>& configs, std::mt19937_64& random);
  // Costs from exact sums of every segment, the backbone frozen (sums cached per config, so call
  // forget_history() first whenever the backbone has changed): the head finetuning pass.
  nn::Var frozen_backbone_cost(nn::Tape& tape, CostModel& model, const std::vector<int32_t>& configs);
  void forget_history();

  const SegmentCounters& counters() const { return counters_; }

 private:
  struct Segment {
    PreparedGraph prepared;          // core + halo
    std::vector<int32_t> core_rows;  // rows of `prepared` that belong to the segment
    bool config_dependent = true;    // false: no configurable node within reach (one sum for all)
    struct Entry {
      Eigen::RowVectorXf sum;
      int64_t step = 0;  // the graph's step that computed it
    };
    std::unordered_map<int32_t, Entry> history;  // config (-1: any) -> sum
  };
  // Sums (B x hidden) of segment `s` for `configs` on `tape`.
  nn::Var segment_sum(nn::Tape& tape, CostModel& model, Segment& segment, const std::vector<int32_t>& configs);
  // Computes, without gradient and in one pass, the historical sums `segment` lacks for `configs`.
  void fill_history(CostModel& model, Segment& segment, const std::vector<int32_t>& configs);
  const Eigen::RowVectorXf& historical_sum(const Segment& segment, int32_t config) const;

  const PreparedGraph& whole_;
  SegmentOptions options_;
  std::vector<Segment> segments_;
  int64_t cut_edges_ = 0;
  SegmentCounters counters_;
  int64_t step_ = 0;  // cost() calls so far
};

}  // namespace graphcost
