// GraphHierarchy: a big graph as nested, labelled boxes that open in place (the browser app's
// default view, after Google's Model Explorer). GL-free, so its drawing is tested natively.
//
// The tree: each node's `path` (outermost group first: for an imported HLO module its computation,
// then the namespaces of its op_name; for a dataset file its node_splits section when it has
// several) makes nested clusters; a cluster with a single child cluster and no nodes merges into it
// ("jit(train_step)/transformer"); then any cluster with more than `max_children` items is split
// into parts of consecutive items in topological order (by `rank`, the drawing's layer), again and
// again, so no box ever opens onto more than `max_children` children.
//
// The drawing is local: a cluster's children are drawn once, the first time it opens (a layered
// drawing of its items, with the edges between them aggregated), and kept. Opening or closing a
// box only re-places the boxes of its ancestors from their kept orders with the new sizes (rows
// stacked, items pushed apart to fit, long thin contents wrapped into columns), so it never
// draws the whole graph again. Edges between the boxes and nodes in view are drawn once each,
// with their count as a weight.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "drawing/camera.h"

namespace graphcost {

struct HierarchyInput {
  int32_t node_count = 0;
  const std::vector<std::pair<int32_t, int32_t>>* edges = nullptr;  // (producer, consumer)
  std::vector<int32_t> rank;                                        // per node: topological place (layer)
  std::vector<std::vector<std::string>> paths;                      // per node: its groups, outermost first
  int max_children = 30;
};

// An item of a cluster's content or of the view: a cluster (id >= 0) or a graph node.
struct HierarchyItem {
  bool cluster = false;
  int32_t id = 0;
  bool operator==(const HierarchyItem& other) const { return cluster == other.cluster && id == other.id; }
};

struct HierarchyCluster {
  std::string title;                 // its group's name, or "layers A-B" for a part of consecutive items
  int32_t parent = -1;               // -1 for the root (cluster 0), which is always open and never drawn
  int32_t depth = 0;                 // root 0
  bool part = false;                 // made to split a big group (titled by its layers or its first and last), not named by the file
  std::vector<HierarchyItem> items;  // children, in topological order
  int32_t node_count = 0;            // in its subtree
  int32_t first_rank = 0, last_rank = 0;
  bool expanded = false;
  // Placed: its box (centre, half sizes), absolute in the current view; valid when visible.
  float x = 0, y = 0, half_width = 0, half_height = 0;
  // Its content, once opened: the items' layered order and their places relative to the content's
  // top-left, and the content's size.
  std::vector<int32_t> item_layer;
  std::vector<float> item_drawing_x;  // the layered drawing's x (unit boxes), the order within a row
  std::vector<float> item_x, item_y;  // centres, relative
  float content_width = 0, content_height = 0;
  bool content_drawn = false;  // item_layer and item_drawing_x computed (on first opening)
};

// An edge between two items in view, with how many graph edges it stands for.
struct HierarchyEdge {
  HierarchyItem from, to;
  int32_t weight = 1;
};

class GraphHierarchy {
 public:
  // Sizes in drawing units.
  static constexpr float kClusterWidth = 5.0f, kClusterHeight = 1.5f;  // a closed box (three lines of text)
  static constexpr float kNodeWidth = 3.0f, kNodeHeight = 0.8f;        // a graph node (one line)
  static constexpr float kPad = 0.4f, kHeader = 1.0f;                  // an open box's frame and title bar
  static constexpr float kGap = 0.6f, kRowGap = 0.8f;
  static constexpr float kAspect = 1.6f;  // open boxes' contents are wrapped into columns towards this width:height

  GraphHierarchy() = default;
  // Builds the tree and lays out the root's content (throws std::invalid_argument on inconsistent
  // input: sizes that do not match node_count, or edges out of range).
  explicit GraphHierarchy(HierarchyInput input);

  const std::vector<HierarchyCluster>& clusters() const { return clusters_; }
  const HierarchyCluster& cluster(int32_t id) const { return clusters_[static_cast<size_t>(id)]; }
  int32_t cluster_of(int32_t node) const { return cluster_of_[static_cast<size_t>(node)]; }  // the innermost
  bool empty() const { return clusters_.empty(); }

  // Open or close a box in place (the root stays open); returns whether anything changed. Only a
  // box in view opens: one inside a closed box does not (reveal opens the way to a node).
  bool expand(int32_t cluster);
  bool collapse(int32_t cluster);  // its open descendants close too
  // Opens every cluster on the way to `node` so that it is in view.
  void reveal(int32_t node);
  // The width:height the top level is wrapped towards (the window's graph area; kAspect at first).
  void set_top_aspect(float aspect);

  // What is in view: open boxes (frames, outermost first), closed boxes and nodes, and the edges
  // between the last two, aggregated.
  const std::vector<int32_t>& frames() const { return frames_; }
  const std::vector<HierarchyItem>& visible() const { return visible_; }
  const std::vector<HierarchyEdge>& edges() const { return edges_; }
  // Where a visible node is drawn (its centre); false when it is inside a closed box.
  bool node_centre(int32_t node, float& x, float& y) const;
  // The item in view that represents `node`: the node, or the outermost closed box holding it.
  HierarchyItem representative(int32_t node) const;
  float width() const { return width_; }
  float height() const { return height_; }
  DrawingBox box_of(int32_t cluster) const;

  // What is under a drawing point: a node or closed box, or else the title bar of an open box
  // (cluster = true, in_header = true); nothing: id -1.
  struct Hit {
    HierarchyItem item{false, -1};
    bool in_header = false;
  };
  Hit hit(float x, float y) const;

  // Sums per-node values over each cluster's subtree (per cluster).
  std::vector<double> cluster_sums(const std::vector<float>& node_values) const;
  // The nodes of a cluster's subtree.
  std::vector<int32_t> subtree_nodes(int32_t cluster) const;

 private:
  int32_t add_cluster(std::string title, int32_t parent);
  void split_large(int32_t cluster, int max_children);
  void merge_single_children();
  void finish_tree();
  void draw_content(int32_t cluster);   // once: the layered drawing (order) of its items
  void place_content(int32_t cluster);  // from that order and the items' current sizes
  void item_size(const HierarchyItem& item, float& width, float& height) const;
  void resize(int32_t cluster);  // its box from its state (closed, or open with content)
  void refresh();                // absolute places, the view's lists, edges

  int32_t node_count_ = 0;
  const std::vector<std::pair<int32_t, int32_t>>* graph_edges_ = nullptr;
  std::vector<int32_t> rank_;
  std::vector<HierarchyCluster> clusters_;
  std::vector<int32_t> cluster_of_;
  std::vector<int32_t> preorder_;       // clusters, parents before children
  std::vector<float> node_x_, node_y_;  // visible nodes' centres
  std::vector<int32_t> frames_;
  std::vector<HierarchyItem> visible_;
  std::vector<HierarchyEdge> edges_;
  float width_ = 0, height_ = 0;
  float top_aspect_ = kAspect;
};

}  // namespace graphcost
