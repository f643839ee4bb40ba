#include "drawing/graph_hierarchy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include "drawing/layered_drawing.h"

namespace graphcost {
namespace {

constexpr int32_t kRoot = 0;

// A trie of the nodes' paths, before merging and splitting.
struct PathTrie {
  std::string title;
  std::map<std::string, int32_t> children;
  std::vector<int32_t> child_order;  // children in creation order
  std::vector<int32_t> nodes;
};

// Ids are below 2^31 (int32_t), so an item is 32 bits and a pair of items 64, exactly.
uint32_t item_key(const HierarchyItem& item) { return static_cast<uint32_t>(item.id) | (item.cluster ? 0x80000000u : 0u); }

// Rows: the layers, in the drawing's order (`drawing_x`); a layer much wider than the content
// should be (many unconnected items: an imported module's computations) is cut into rows packed
// left to right (packed[row] = 1).
void cut_into_rows(std::vector<std::vector<int32_t>>& layer_items, const std::vector<float>& drawing_x, const std::vector<float>& width,
                   float ideal_width, std::vector<std::vector<int32_t>>& row_items, std::vector<char>& packed) {
  constexpr float kGap = GraphHierarchy::kGap;
  for (std::vector<int32_t>& layer : layer_items) {
    std::sort(layer.begin(), layer.end(),
              [&](int32_t a, int32_t b) { return drawing_x[static_cast<size_t>(a)] < drawing_x[static_cast<size_t>(b)]; });
    float total = 0;
    for (const int32_t i : layer) total += width[static_cast<size_t>(i)] + kGap;
    if (total <= ideal_width * 1.15f) {
      row_items.push_back(layer);
      packed.push_back(0);
      continue;
    }
    std::vector<int32_t> row;
    float used = 0;
    for (const int32_t i : layer) {
      const float w = width[static_cast<size_t>(i)] + kGap;
      if (!row.empty() && used + w > ideal_width) {
        row_items.push_back(std::move(row));
        packed.push_back(1);
        row.clear();
        used = 0;
      }
      row.push_back(i);
      used += w;
    }
    row_items.push_back(std::move(row));
    packed.push_back(1);
  }
}

}  // namespace

GraphHierarchy::GraphHierarchy(HierarchyInput input) : node_count_(input.node_count), graph_edges_(input.edges) {
  const size_t n = static_cast<size_t>(std::max(0, node_count_));
  if (node_count_ < 0 || input.rank.size() != n || input.paths.size() != n || graph_edges_ == nullptr || input.max_children < 2) {
    throw std::invalid_argument("GraphHierarchy: rank and paths need one entry per node, and edges are required");
  }
  for (const auto& [a, b] : *graph_edges_) {
    if (a < 0 || b < 0 || a >= node_count_ || b >= node_count_) throw std::invalid_argument("GraphHierarchy: an edge is out of range");
  }
  rank_ = std::move(input.rank);
  cluster_of_.assign(n, kRoot);

  std::vector<PathTrie> trie(1);
  for (int32_t v = 0; v < node_count_; ++v) {
    int32_t at = 0;
    for (const std::string& name : input.paths[static_cast<size_t>(v)]) {
      auto found = trie[static_cast<size_t>(at)].children.find(name);
      if (found == trie[static_cast<size_t>(at)].children.end()) {
        const int32_t child = static_cast<int32_t>(trie.size());
        trie.push_back({name, {}, {}, {}});
        trie[static_cast<size_t>(at)].children.emplace(name, child);
        trie[static_cast<size_t>(at)].child_order.push_back(child);
        at = child;
      } else {
        at = found->second;
      }
    }
    trie[static_cast<size_t>(at)].nodes.push_back(v);
  }

  // Clusters from the trie: chains of single children merge into one titled "a/b".
  std::vector<std::pair<int32_t, int32_t>> pending;  // (trie entry, cluster)
  auto emit = [&](int32_t entry, int32_t parent) {
    std::string title = trie[static_cast<size_t>(entry)].title;
    while (trie[static_cast<size_t>(entry)].nodes.empty() && trie[static_cast<size_t>(entry)].child_order.size() == 1) {
      entry = trie[static_cast<size_t>(entry)].child_order.front();
      title += (title.empty() ? "" : "/") + trie[static_cast<size_t>(entry)].title;
    }
    const int32_t cluster = add_cluster(title, parent);
    pending.emplace_back(entry, cluster);
    return cluster;
  };
  emit(0, -1);
  for (size_t next = 0; next < pending.size(); ++next) {
    const auto [entry, cluster] = pending[next];
    for (const int32_t child : trie[static_cast<size_t>(entry)].child_order) {
      const int32_t made = emit(child, cluster);
      clusters_[static_cast<size_t>(cluster)].items.push_back({true, made});
    }
    for (const int32_t v : trie[static_cast<size_t>(entry)].nodes) {
      clusters_[static_cast<size_t>(cluster)].items.push_back({false, v});
      cluster_of_[static_cast<size_t>(v)] = cluster;
    }
  }
  // Ranks and sizes bottom-up (clusters made from the trie have larger ids than their parents).
  for (HierarchyCluster& c : clusters_) c.first_rank = INT32_MAX, c.last_rank = INT32_MIN;
  for (int32_t v = 0; v < node_count_; ++v) {
    HierarchyCluster& c = clusters_[static_cast<size_t>(cluster_of_[static_cast<size_t>(v)])];
    c.node_count += 1;
    c.first_rank = std::min(c.first_rank, rank_[static_cast<size_t>(v)]);
    c.last_rank = std::max(c.last_rank, rank_[static_cast<size_t>(v)]);
  }
  for (size_t id = clusters_.size(); id-- > 1;) {
    const HierarchyCluster& c = clusters_[id];
    HierarchyCluster& parent = clusters_[static_cast<size_t>(c.parent)];
    parent.node_count += c.node_count;
    parent.first_rank = std::min(parent.first_rank, c.first_rank);
    parent.last_rank = std::max(parent.last_rank, c.last_rank);
  }
  const size_t made = clusters_.size();
  for (size_t id = 0; id < made; ++id) split_large(static_cast<int32_t>(id), input.max_children);
  finish_tree();
  clusters_[kRoot].expanded = true;
  draw_content(kRoot);
  place_content(kRoot);
  resize(kRoot);
  refresh();
}

int32_t GraphHierarchy::add_cluster(std::string title, int32_t parent) {
  HierarchyCluster cluster;
  cluster.title = std::move(title);
  cluster.parent = parent;
  clusters_.push_back(std::move(cluster));
  return static_cast<int32_t>(clusters_.size()) - 1;
}

// Items in topological order, then parts of consecutive items until no cluster has more than
// `max_children`: a part titled by its layers, made for the reader, not by the file.
void GraphHierarchy::split_large(int32_t cluster, int max_children) {
  auto first_rank = [&](const HierarchyItem& item) {
    return item.cluster ? clusters_[static_cast<size_t>(item.id)].first_rank : rank_[static_cast<size_t>(item.id)];
  };
  std::vector<int32_t> work = {cluster};
  while (!work.empty()) {
    const int32_t c = work.back();
    work.pop_back();
    std::vector<HierarchyItem> items = std::move(clusters_[static_cast<size_t>(c)].items);
    std::stable_sort(items.begin(), items.end(), [&](const HierarchyItem& a, const HierarchyItem& b) {
      const int32_t ra = first_rank(a), rb = first_rank(b);
      return ra != rb ? ra < rb : (a.cluster != b.cluster ? a.cluster : a.id < b.id);
    });
    const size_t count = items.size(), limit = static_cast<size_t>(max_children);
    if (count <= limit) {
      clusters_[static_cast<size_t>(c)].items = std::move(items);
      continue;
    }
    const size_t parts = std::min(limit, (count + limit - 1) / limit);
    std::vector<HierarchyItem> part_items;
    for (size_t p = 0; p < parts; ++p) {
      const size_t begin = p * count / parts, end = (p + 1) * count / parts;
      const int32_t part = add_cluster("", c);
      HierarchyCluster& made = clusters_[static_cast<size_t>(part)];
      made.part = true;
      made.first_rank = INT32_MAX, made.last_rank = INT32_MIN;
      for (size_t i = begin; i < end; ++i) {
        const HierarchyItem& item = items[i];
        made.items.push_back(item);
        if (item.cluster) {
          HierarchyCluster& child = clusters_[static_cast<size_t>(item.id)];
          child.parent = part;
          made.node_count += child.node_count;
          made.first_rank = std::min(made.first_rank, child.first_rank);
          made.last_rank = std::max(made.last_rank, child.last_rank);
        } else {
          cluster_of_[static_cast<size_t>(item.id)] = part;
          made.node_count += 1;
          made.first_rank = std::min(made.first_rank, rank_[static_cast<size_t>(item.id)]);
          made.last_rank = std::max(made.last_rank, rank_[static_cast<size_t>(item.id)]);
        }
      }
      // A part of named groups is named by its first and last; a part of nodes or of parts by its layers.
      const HierarchyItem& first = made.items.front();
      const HierarchyItem& last = made.items.back();
      const bool named =
          first.cluster && last.cluster && !clusters_[static_cast<size_t>(first.id)].part && !clusters_[static_cast<size_t>(last.id)].part;
      if (named) {
        made.title =
            clusters_[static_cast<size_t>(first.id)].title + (first == last ? "" : " .. " + clusters_[static_cast<size_t>(last.id)].title);
      } else {
        made.title = made.first_rank == made.last_rank ? "layer " + std::to_string(made.first_rank)
                                                       : "layers " + std::to_string(made.first_rank) + "-" + std::to_string(made.last_rank);
      }
      part_items.push_back({true, part});
      work.push_back(part);
    }
    clusters_[static_cast<size_t>(c)].items = std::move(part_items);
  }
}

void GraphHierarchy::finish_tree() {
  preorder_.clear();
  std::vector<int32_t> stack = {kRoot};
  while (!stack.empty()) {
    const int32_t c = stack.back();
    stack.pop_back();
    preorder_.push_back(c);
    const HierarchyCluster& cluster = clusters_[static_cast<size_t>(c)];
    for (auto item = cluster.items.rbegin(); item != cluster.items.rend(); ++item) {
      if (!item->cluster) continue;
      clusters_[static_cast<size_t>(item->id)].depth = cluster.depth + 1;
      stack.push_back(item->id);
    }
  }
  for (size_t id = 0; id < clusters_.size(); ++id) resize(static_cast<int32_t>(id));
  node_x_.assign(static_cast<size_t>(node_count_), 0);
  node_y_.assign(static_cast<size_t>(node_count_), 0);
}

void GraphHierarchy::item_size(const HierarchyItem& item, float& width, float& height) const {
  if (!item.cluster) {
    width = kNodeWidth, height = kNodeHeight;
    return;
  }
  const HierarchyCluster& c = clusters_[static_cast<size_t>(item.id)];
  width = 2 * c.half_width, height = 2 * c.half_height;
}

void GraphHierarchy::resize(int32_t cluster) {
  HierarchyCluster& c = clusters_[static_cast<size_t>(cluster)];
  if (c.expanded && c.content_drawn) {
    c.half_width = std::max(kClusterWidth, c.content_width + 2 * kPad) / 2;
    c.half_height = (c.content_height + kHeader + 2 * kPad) / 2;
  } else {
    c.half_width = kClusterWidth / 2, c.half_height = kClusterHeight / 2;
  }
}

// The layered drawing of a cluster's items, with an edge between two items wherever a graph edge
// joins their subtrees. (An item is found by walking up from a node's innermost cluster: the tree
// is a few levels deep.)
void GraphHierarchy::draw_content(int32_t cluster) {
  HierarchyCluster& c = clusters_[static_cast<size_t>(cluster)];
  const size_t count = c.items.size();
  std::unordered_map<uint32_t, int32_t> index;
  index.reserve(count * 2);
  for (size_t i = 0; i < count; ++i) index.emplace(item_key(c.items[i]), static_cast<int32_t>(i));
  auto local = [&](int32_t node) -> int32_t {
    int32_t k = cluster_of_[static_cast<size_t>(node)];
    if (k == cluster) return index.at(item_key({false, node}));
    while (k > kRoot && clusters_[static_cast<size_t>(k)].parent != cluster) k = clusters_[static_cast<size_t>(k)].parent;
    return k > kRoot ? index.at(item_key({true, k})) : -1;  // reaching the root: outside the subtree
  };
  std::vector<std::pair<int32_t, int32_t>> edges;
  for (const auto& [a, b] : *graph_edges_) {
    const int32_t from = local(a);
    if (from < 0) continue;
    const int32_t to = local(b);
    if (to >= 0 && to != from) edges.emplace_back(from, to);
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  DrawingOptions options;
  options.stub_fanout = 0;
  const LayeredDrawing drawing = draw_layered(static_cast<int32_t>(count), edges, options);
  c.item_layer = drawing.layer;
  c.item_drawing_x = drawing.x;
  c.content_drawn = true;
}

void GraphHierarchy::place_content(int32_t cluster) {
  HierarchyCluster& c = clusters_[static_cast<size_t>(cluster)];
  const size_t count = c.items.size();
  if (!c.content_drawn || c.item_layer.size() != count) return;  // never opened: nothing to place
  c.item_x.assign(count, 0);
  c.item_y.assign(count, 0);
  if (count == 0) {
    c.content_width = c.content_height = 0;
    return;
  }
  std::vector<float> width(count), height(count);
  float mean_width = 0;
  for (size_t i = 0; i < count; ++i) {
    item_size(c.items[i], width[i], height[i]);
    mean_width += width[i] / static_cast<float>(count);
  }
  const DrawingOptions unit;  // the layered drawing's spacing of unit boxes
  const float spread = (mean_width + kGap) / (unit.node_width + unit.horizontal_gap);
  const float aspect = cluster == kRoot ? top_aspect_ : kAspect;
  const int32_t layers = *std::max_element(c.item_layer.begin(), c.item_layer.end()) + 1;
  std::vector<std::vector<int32_t>> layer_items(static_cast<size_t>(layers));
  for (size_t i = 0; i < count; ++i) layer_items[static_cast<size_t>(c.item_layer[i])].push_back(static_cast<int32_t>(i));
  float area = 0;
  for (size_t i = 0; i < count; ++i) area += (width[i] + kGap) * (height[i] + kRowGap);
  const float ideal_width = std::sqrt(area * aspect);
  std::vector<std::vector<int32_t>> row_items;
  std::vector<char> packed;
  cut_into_rows(layer_items, c.item_drawing_x, width, ideal_width, row_items, packed);
  const int32_t rows = static_cast<int32_t>(row_items.size());
  std::vector<float> row_height(static_cast<size_t>(rows), 0), row_left(static_cast<size_t>(rows), 1e30f),
      row_right(static_cast<size_t>(rows), -1e30f);
  for (size_t r = 0; r < row_items.size(); ++r) {
    const std::vector<int32_t>& row = row_items[r];
    // Each at its drawing place (a packed row: one after the other), pushed right to clear the one
    // before, then the row moved back so that on average the items sit where they wanted to be.
    float right = -1e30f, drift = 0, cursor = 0;
    for (const int32_t i : row) {
      const size_t at = static_cast<size_t>(i);
      const float wanted = packed[r] ? cursor + width[at] / 2 : c.item_drawing_x[at] * spread;
      cursor += width[at] + kGap;
      const float left = std::max(wanted - width[at] / 2, right + kGap);
      c.item_x[at] = left + width[at] / 2;
      right = left + width[at];
      drift += (wanted - c.item_x[at]) / static_cast<float>(row.size());
      row_height[r] = std::max(row_height[r], height[at]);
    }
    for (const int32_t i : row) {
      const size_t at = static_cast<size_t>(i);
      c.item_x[at] += drift;
      row_left[r] = std::min(row_left[r], c.item_x[at] - width[at] / 2);
      row_right[r] = std::max(row_right[r], c.item_x[at] + width[at] / 2);
    }
  }
  // With a layer cut into packed rows, the drawing's x means little beside them: every row is
  // centred instead.
  if (std::find(packed.begin(), packed.end(), 1) != packed.end()) {
    for (size_t r = 0; r < row_items.size(); ++r) {
      const float shift = -(row_left[r] + row_right[r]) / 2;
      for (const int32_t i : row_items[r]) c.item_x[static_cast<size_t>(i)] += shift;
      row_left[r] += shift, row_right[r] += shift;
    }
  }
  // Long, thin contents (a chain of parts) wrap into columns, towards kAspect.
  float total_height = 0, left = 1e30f, right = -1e30f;
  for (size_t r = 0; r < row_items.size(); ++r) {
    total_height += row_height[r] + (r > 0 ? kRowGap : 0);
    left = std::min(left, row_left[r]), right = std::max(right, row_right[r]);
  }
  const float span = std::max(1e-3f, right - left);
  const int columns = std::max(1, std::min(rows, static_cast<int>(std::lround(std::sqrt(aspect * total_height / span)))));
  const float column_height = total_height / static_cast<float>(columns);
  float column_x = 0, y = 0, column_left = 1e30f, column_right = -1e30f;
  size_t column_start = 0;
  c.content_width = c.content_height = 0;
  auto close_column = [&](size_t end) {
    for (size_t r = column_start; r < end; ++r) {
      for (const int32_t i : row_items[r]) c.item_x[static_cast<size_t>(i)] += column_x - column_left;
    }
    column_x += (column_right - column_left) + 2 * kGap;
    c.content_width = column_x - 2 * kGap;
  };
  for (size_t r = 0; r < row_items.size(); ++r) {
    if (r > column_start && y + row_height[r] > column_height * 1.02f) {
      close_column(r);
      column_start = r, y = 0, column_left = 1e30f, column_right = -1e30f;
    }
    for (const int32_t i : row_items[r]) c.item_y[static_cast<size_t>(i)] = y + row_height[r] / 2;
    column_left = std::min(column_left, row_left[r]), column_right = std::max(column_right, row_right[r]);
    y += row_height[r] + kRowGap;
    c.content_height = std::max(c.content_height, y - kRowGap);
  }
  close_column(row_items.size());
}

bool GraphHierarchy::expand(int32_t cluster) {
  if (cluster <= kRoot || static_cast<size_t>(cluster) >= clusters_.size() || clusters_[static_cast<size_t>(cluster)].expanded)
    return false;
  HierarchyCluster& c = clusters_[static_cast<size_t>(cluster)];
  if (!clusters_[static_cast<size_t>(c.parent)].expanded) return false;  // only a box in view opens (reveal opens a path)
  c.expanded = true;
  if (!c.content_drawn) draw_content(cluster);
  for (int32_t k = cluster; k >= kRoot; k = clusters_[static_cast<size_t>(k)].parent) {
    if (clusters_[static_cast<size_t>(k)].expanded) place_content(k);
    resize(k);
  }
  refresh();
  return true;
}

bool GraphHierarchy::collapse(int32_t cluster) {
  if (cluster <= kRoot || static_cast<size_t>(cluster) >= clusters_.size() || !clusters_[static_cast<size_t>(cluster)].expanded)
    return false;
  std::vector<int32_t> stack = {cluster};
  while (!stack.empty()) {
    const int32_t k = stack.back();
    stack.pop_back();
    HierarchyCluster& c = clusters_[static_cast<size_t>(k)];
    if (!c.expanded) continue;
    c.expanded = false;
    resize(k);
    for (const HierarchyItem& item : c.items) {
      if (item.cluster) stack.push_back(item.id);
    }
  }
  for (int32_t k = clusters_[static_cast<size_t>(cluster)].parent; k >= kRoot; k = clusters_[static_cast<size_t>(k)].parent) {
    if (clusters_[static_cast<size_t>(k)].expanded) place_content(k);  // open, so drawn
    resize(k);
  }
  refresh();
  return true;
}

void GraphHierarchy::reveal(int32_t node) {
  if (node < 0 || node >= node_count_) return;
  std::vector<int32_t> path;
  for (int32_t k = cluster_of_[static_cast<size_t>(node)]; k > kRoot; k = clusters_[static_cast<size_t>(k)].parent) path.push_back(k);
  bool changed = false;
  for (const int32_t k : path) {
    HierarchyCluster& c = clusters_[static_cast<size_t>(k)];
    if (c.expanded) continue;
    c.expanded = changed = true;
    if (!c.content_drawn) draw_content(k);
  }
  if (!changed) return;
  for (const int32_t k : path) {  // innermost first, so each sees its children's new sizes
    place_content(k);
    resize(k);
  }
  place_content(kRoot);
  resize(kRoot);
  refresh();
}

void GraphHierarchy::set_top_aspect(float aspect) {
  if (clusters_.empty() || !(aspect > 0.05f && aspect < 20.0f) || aspect == top_aspect_) return;
  top_aspect_ = aspect;
  place_content(kRoot);
  resize(kRoot);
  refresh();
}

HierarchyItem GraphHierarchy::representative(int32_t node) const {
  HierarchyItem rep{false, node};
  for (int32_t k = cluster_of_[static_cast<size_t>(node)]; k > kRoot; k = clusters_[static_cast<size_t>(k)].parent) {
    if (!clusters_[static_cast<size_t>(k)].expanded) rep = {true, k};
  }
  return rep;
}

void GraphHierarchy::refresh() {
  frames_.clear();
  visible_.clear();
  const HierarchyCluster& root = clusters_[kRoot];
  width_ = root.content_width, height_ = root.content_height;
  struct Open {
    int32_t cluster;
    float x, y;  // its content's top-left
  };
  std::vector<Open> stack = {{kRoot, 0, 0}};
  while (!stack.empty()) {
    const Open open = stack.back();
    stack.pop_back();
    const HierarchyCluster& c = clusters_[static_cast<size_t>(open.cluster)];
    for (size_t i = 0; i < c.items.size(); ++i) {
      const HierarchyItem& item = c.items[i];
      const float x = open.x + c.item_x[i], y = open.y + c.item_y[i];
      if (!item.cluster) {
        node_x_[static_cast<size_t>(item.id)] = x, node_y_[static_cast<size_t>(item.id)] = y;
        visible_.push_back(item);
        continue;
      }
      HierarchyCluster& child = clusters_[static_cast<size_t>(item.id)];
      child.x = x, child.y = y;
      if (child.expanded) {
        frames_.push_back(item.id);
        stack.push_back({item.id, x - child.half_width + kPad, y - child.half_height + kHeader + kPad});
      } else {
        visible_.push_back(item);
      }
    }
  }
  // Frames outermost first: by depth (the stack's order is depth-first).
  std::stable_sort(frames_.begin(), frames_.end(),
                   [&](int32_t a, int32_t b) { return clusters_[static_cast<size_t>(a)].depth < clusters_[static_cast<size_t>(b)].depth; });
  edges_.clear();
  std::unordered_map<uint64_t, size_t> seen;
  for (const auto& [a, b] : *graph_edges_) {
    const HierarchyItem from = representative(a), to = representative(b);
    if (from == to) continue;
    const uint64_t key = (static_cast<uint64_t>(item_key(from)) << 32) | item_key(to);
    const auto [found, added] = seen.emplace(key, edges_.size());
    if (added) {
      edges_.push_back({from, to, 1});
    } else {
      edges_[found->second].weight += 1;
    }
  }
}

bool GraphHierarchy::node_centre(int32_t node, float& x, float& y) const {
  if (node < 0 || node >= node_count_ || representative(node).cluster) return false;
  x = node_x_[static_cast<size_t>(node)], y = node_y_[static_cast<size_t>(node)];
  return true;
}

DrawingBox GraphHierarchy::box_of(int32_t cluster) const {
  DrawingBox box;
  if (cluster < 0 || static_cast<size_t>(cluster) >= clusters_.size()) return box;
  const HierarchyCluster& c = clusters_[static_cast<size_t>(cluster)];
  if (cluster == kRoot) {
    box.add(0, 0), box.add(width_, height_);
  } else {
    box.add(c.x - c.half_width, c.y - c.half_height), box.add(c.x + c.half_width, c.y + c.half_height);
  }
  return box;
}

GraphHierarchy::Hit GraphHierarchy::hit(float x, float y) const {
  Hit found;
  for (const HierarchyItem& item : visible_) {
    float cx, cy, hw, hh;
    if (item.cluster) {
      const HierarchyCluster& c = clusters_[static_cast<size_t>(item.id)];
      cx = c.x, cy = c.y, hw = c.half_width, hh = c.half_height;
    } else {
      cx = node_x_[static_cast<size_t>(item.id)], cy = node_y_[static_cast<size_t>(item.id)], hw = kNodeWidth / 2, hh = kNodeHeight / 2;
    }
    if (std::fabs(x - cx) <= hw && std::fabs(y - cy) <= hh) {
      found.item = item;
      return found;
    }
  }
  for (auto frame = frames_.rbegin(); frame != frames_.rend(); ++frame) {  // innermost first
    const HierarchyCluster& c = clusters_[static_cast<size_t>(*frame)];
    const float top = c.y - c.half_height;
    if (std::fabs(x - c.x) <= c.half_width && y >= top && y <= top + kHeader + kPad) {
      found.item = {true, *frame};
      found.in_header = true;
      return found;
    }
  }
  return found;
}

std::vector<double> GraphHierarchy::cluster_sums(const std::vector<float>& node_values) const {
  std::vector<double> sums(clusters_.size(), 0.0);
  if (node_values.size() != static_cast<size_t>(node_count_)) return sums;
  for (int32_t v = 0; v < node_count_; ++v)
    sums[static_cast<size_t>(cluster_of_[static_cast<size_t>(v)])] += node_values[static_cast<size_t>(v)];
  for (auto c = preorder_.rbegin(); c != preorder_.rend(); ++c) {
    if (*c != kRoot) sums[static_cast<size_t>(clusters_[static_cast<size_t>(*c)].parent)] += sums[static_cast<size_t>(*c)];
  }
  return sums;
}

std::vector<int32_t> GraphHierarchy::subtree_nodes(int32_t cluster) const {
  std::vector<int32_t> nodes;
  if (cluster < 0 || static_cast<size_t>(cluster) >= clusters_.size()) return nodes;
  std::vector<int32_t> stack = {cluster};
  while (!stack.empty()) {
    const int32_t k = stack.back();
    stack.pop_back();
    for (const HierarchyItem& item : clusters_[static_cast<size_t>(k)].items) {
      if (item.cluster) {
        stack.push_back(item.id);
      } else {
        nodes.push_back(item.id);
      }
    }
  }
  return nodes;
}

}  // namespace graphcost
