#include "sessions/session_drawing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "data/opcodes.h"

namespace graphcost {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

}  // namespace

std::vector<std::vector<std::string>> hierarchy_paths(const TpuGraph& graph) {
  const size_t n = static_cast<size_t>(graph.node_count);
  std::vector<std::vector<std::string>> paths(n);
  if (!graph.names.empty()) {
    // Each node's namespaces: its op_name without the op itself.
    std::vector<std::vector<std::string>> spaces(n);
    for (size_t v = 0; v < n; ++v) {
      const std::string& op_name = graph.names.op_names[v];
      size_t start = 0;
      for (size_t slash = op_name.find('/'); slash != std::string::npos; slash = op_name.find('/', start)) {
        if (slash > start) spaces[v].push_back(op_name.substr(start, slash - start));
        start = slash + 1;
      }
    }
    // Instructions outside any namespace (parameters such as a layer's weights, and the reshapes,
    // broadcasts and copies XLA adds without metadata) join the namespace of a consumer in their
    // computation, else of a producer: a few passes, so chains of them follow the op they feed.
    std::vector<std::vector<int32_t>> consumers(n), producers(n);
    for (const Edge& e : graph.edges) {
      consumers[static_cast<size_t>(e.producer)].push_back(e.consumer);
      producers[static_cast<size_t>(e.consumer)].push_back(e.producer);
    }
    const std::vector<int32_t>& computation = graph.names.computation;
    for (int pass = 0; pass < 8; ++pass) {
      bool changed = false;
      for (size_t v = 0; v < n; ++v) {
        if (!spaces[v].empty()) continue;
        for (const auto* neighbours : {&consumers[v], &producers[v]}) {
          for (const int32_t u : *neighbours) {
            const size_t w = static_cast<size_t>(u);
            if (!spaces[w].empty() && computation[w] == computation[v]) {
              spaces[v] = spaces[w];
              changed = true;
              break;
            }
          }
          if (!spaces[v].empty()) break;
        }
      }
      if (!changed) break;
    }
    for (size_t v = 0; v < n; ++v) {
      paths[v].push_back(graph.names.computation_of(static_cast<int32_t>(v)));
      paths[v].insert(paths[v].end(), spaces[v].begin(), spaces[v].end());
    }
  } else if (graph.node_splits.size() >= 4) {
    for (size_t s = 0; s + 1 < graph.node_splits.size(); ++s) {
      for (int64_t v = graph.node_splits[s]; v < graph.node_splits[s + 1] && v < graph.node_count; ++v) {
        paths[static_cast<size_t>(v)].push_back("section " + std::to_string(s));
      }
    }
  }
  return paths;
}

SessionDrawing::SessionDrawing(const TpuGraph& graph) : graph_(graph) {
  std::vector<std::pair<int32_t, int32_t>> edges;
  edges.reserve(graph_.edges.size());
  for (const Edge& e : graph_.edges) edges.emplace_back(e.producer, e.consumer);
  edges_ = edges;
  job_ = std::make_unique<LayeredDrawingJob>(graph_.node_count, std::move(edges));
  section_of_.assign(static_cast<size_t>(graph_.node_count), 0);
  for (size_t s = 0; s + 1 < graph_.node_splits.size(); ++s) {
    for (int64_t v = graph_.node_splits[s]; v < graph_.node_splits[s + 1] && v < graph_.node_count; ++v) {
      section_of_[static_cast<size_t>(v)] = static_cast<int32_t>(s);
    }
  }
}

SessionDrawing::~SessionDrawing() = default;

const char* SessionDrawing::stage() const { return job_ ? job_->stage() : "done"; }

double SessionDrawing::fraction() const { return job_ ? job_->fraction() : 1.0; }

void SessionDrawing::step() {
  const auto start = Clock::now();
  job_->step();
  ms_ += ms_since(start);
  if (job_->done()) finish();
}

void SessionDrawing::finish_early() {
  if (done()) return;
  const auto start = Clock::now();
  job_->finish_early();
  ms_ += ms_since(start);
  finish();
}

void SessionDrawing::finish() {
  drawing_ = job_->take();
  job_.reset();
  HierarchyInput input;
  input.node_count = graph_.node_count;
  input.edges = &edges_;
  input.rank = drawing_.layer;
  input.paths = hierarchy_paths(graph_);
  hierarchy_ = GraphHierarchy(std::move(input));
  cluster_contents_.assign(hierarchy_.clusters().size(), "");
  cluster_contents_known_.assign(hierarchy_.clusters().size(), 0);
}

const std::string& SessionDrawing::cluster_contents(int32_t cluster) const {
  static const std::string none;
  if (cluster < 0 || static_cast<size_t>(cluster) >= cluster_contents_.size()) return none;
  const size_t at = static_cast<size_t>(cluster);
  if (cluster_contents_known_[at]) return cluster_contents_[at];
  cluster_contents_known_[at] = 1;
  std::map<int, int> count;
  for (const int32_t v : hierarchy_.subtree_nodes(cluster)) {
    const int op = graph_.node_opcodes[static_cast<size_t>(v)];
    static const int constant = opcode_id("constant"), bitcast = opcode_id("bitcast");
    if (op == opcode::kParameter || op == constant || op == opcode::kTuple || op == opcode::kGetTupleElement || op == bitcast) continue;
    ++count[op];
  }
  std::vector<std::pair<int, int>> ranked;  // (count, opcode)
  for (const auto& [op, n] : count) ranked.emplace_back(n, op);
  std::sort(ranked.begin(), ranked.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::string text;
  for (size_t i = 0; i < ranked.size() && i < 2; ++i) {
    text += (i ? ", " : "") + std::to_string(ranked[i].first) + " " + opcode_name(ranked[i].second);
  }
  cluster_contents_[at] = text;
  return cluster_contents_[at];
}

DrawingBox SessionDrawing::section_box(size_t section) const {
  DrawingBox box;
  if (!done() || section + 1 >= graph_.node_splits.size()) return box;
  for (int64_t v = graph_.node_splits[section]; v < graph_.node_splits[section + 1] && v < graph_.node_count; ++v) {
    box.add(drawing_.x[static_cast<size_t>(v)], drawing_.y[static_cast<size_t>(v)]);
  }
  return box;
}

std::vector<EdgeSegment> SessionDrawing::edge_segments() const {
  std::vector<EdgeSegment> segments;
  if (!done()) return segments;
  const DrawingOptions options;
  segments.reserve(graph_.edges.size());
  for (const Edge& e : graph_.edges) {
    const size_t p = static_cast<size_t>(e.producer), c = static_cast<size_t>(e.consumer);
    const float cx = drawing_.x[c], cy = drawing_.y[c] - options.node_height / 2;
    if (drawing_.stub[p]) {
      segments.push_back({cx - 0.25f, cy - 0.35f, cx, cy, true});
    } else {
      segments.push_back({drawing_.x[p], drawing_.y[p] + options.node_height / 2, cx, cy, false});
    }
  }
  return segments;
}

int32_t SessionDrawing::node_at(float x, float y, float slack) const {
  if (!done()) return -1;
  const DrawingOptions options;
  for (int32_t v = 0; v < graph_.node_count; ++v) {
    if (std::fabs(x - drawing_.x[static_cast<size_t>(v)]) <= options.node_width / 2 + slack &&
        std::fabs(y - drawing_.y[static_cast<size_t>(v)]) <= options.node_height / 2 + slack) {
      return v;
    }
  }
  return -1;
}

}  // namespace graphcost
