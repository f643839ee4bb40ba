// SessionDrawing: a RankingSession's picture of its graph, without GL (app/ranking_session.h).
// It owns the layered drawing (a LayeredDrawingJob stepped a unit at a time until it is done or
// stopped early, then the node positions), the node_splits section of every node, and the nested
// boxes (GraphHierarchy, built when the drawing ends: its layers order the parts) with their
// labels; and it answers the geometric questions the app asks of them (edges as drawn, the node at
// a point, a section's box). The drawing is `graphcost draw`'s.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "data/tpu_graph.h"
#include "drawing/camera.h"
#include "drawing/graph_hierarchy.h"
#include "drawing/layered_drawing.h"

namespace graphcost {

// The groups each node belongs to, outermost first, for the app's nested boxes (GraphHierarchy):
// for an imported HLO module its computation, then the namespaces of its op_name (the last part,
// the op itself, left out; an instruction outside any namespace, like a layer's weights, takes a
// consumer's in its computation, else a producer's); for a dataset file its node_splits section when there are three or
// more; else none (the hierarchy then splits the graph into parts of consecutive layers).
std::vector<std::vector<std::string>> hierarchy_paths(const TpuGraph& graph);

// An edge as drawn: producer's bottom to consumer's top, or a short stub into the consumer when
// the producer is a detached high fan-out node (LayeredDrawing::stub).
struct EdgeSegment {
  float x0, y0, x1, y1;
  bool stub;
};

class SessionDrawing {
 public:
  // Starts drawing `graph`, which must outlive this.
  explicit SessionDrawing(const TpuGraph& graph);
  ~SessionDrawing();
  SessionDrawing(const SessionDrawing&) = delete;
  SessionDrawing& operator=(const SessionDrawing&) = delete;

  // Until done() only the job's stage and fraction are known.
  bool done() const { return job_ == nullptr; }
  void step();          // one unit of the drawing (timed)
  void finish_early();  // the drawing so far, now (LayeredDrawingJob::finish_early)
  const char* stage() const;
  double fraction() const;

  const LayeredDrawing& layered() const { return drawing_; }              // node positions, layers, stubs
  double ms() const { return ms_; }                                       // the drawing's own time
  const std::vector<int32_t>& section_of() const { return section_of_; }  // node -> node_splits section
  // The nested boxes; open and close them here.
  const GraphHierarchy& hierarchy() const { return hierarchy_; }
  GraphHierarchy& hierarchy() { return hierarchy_; }
  // What a box holds, for its label: its most frequent opcodes that do work (not parameters,
  // constants, tuples, bitcasts), e.g. "12 convolution, 3 dot" (cached).
  const std::string& cluster_contents(int32_t cluster) const;
  DrawingBox section_box(size_t section) const;  // of a node_splits section's nodes
  std::vector<EdgeSegment> edge_segments() const;
  // The node whose box (DrawingOptions' size, grown by `slack`) holds drawing point (x, y); -1 if none.
  int32_t node_at(float x, float y, float slack) const;

 private:
  void finish();

  const TpuGraph& graph_;
  std::vector<std::pair<int32_t, int32_t>> edges_;  // (producer, consumer), the hierarchy's
  std::unique_ptr<LayeredDrawingJob> job_;
  LayeredDrawing drawing_;
  double ms_ = 0;
  std::vector<int32_t> section_of_;
  GraphHierarchy hierarchy_;
  mutable std::vector<std::string> cluster_contents_;  // per cluster, filled on first use
  mutable std::vector<char> cluster_contents_known_;
};

}  // namespace graphcost
