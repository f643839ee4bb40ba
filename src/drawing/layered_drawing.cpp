#include "drawing/layered_drawing.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "common/internal_error.h"

namespace graphcost {
namespace {

// Compressed adjacency: neighbours of node v are items[offsets[v] .. offsets[v + 1]).
struct Csr {
  std::vector<int32_t> offsets, items;
  const int32_t* begin(int32_t v) const { return items.data() + offsets[static_cast<size_t>(v)]; }
  const int32_t* end(int32_t v) const { return items.data() + offsets[static_cast<size_t>(v) + 1]; }
  int32_t size(int32_t v) const { return offsets[static_cast<size_t>(v) + 1] - offsets[static_cast<size_t>(v)]; }
};

Csr build_csr(int32_t nodes, const std::vector<std::pair<int32_t, int32_t>>& pairs) {
  Csr csr;
  csr.offsets.assign(static_cast<size_t>(nodes) + 1, 0);
  for (const auto& [from, to] : pairs) ++csr.offsets[static_cast<size_t>(from) + 1];
  for (size_t v = 0; v < static_cast<size_t>(nodes); ++v) csr.offsets[v + 1] += csr.offsets[v];
  csr.items.resize(pairs.size());
  std::vector<int32_t> fill(csr.offsets.begin(), csr.offsets.end() - 1);
  for (const auto& [from, to] : pairs) csr.items[static_cast<size_t>(fill[static_cast<size_t>(from)]++)] = to;
  return csr;
}

float median_of(std::vector<float>& values) {
  const size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle), values.end());
  const float upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const float lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return 0.5f * (lower + upper);
}

}  // namespace

// The drawing's working state; each stage is a member function run by LayeredDrawingJob::step().
struct LayeredDrawingJob::State {
  enum class Unit { Stubs, Order, Layers, Sweep, Coordinates, Done };

  int32_t nodes;
  size_t n;
  std::vector<std::pair<int32_t, int32_t>> edges;
  DrawingOptions options;
  LayeredDrawing drawing;
  Unit next = Unit::Stubs;
  int sweep_halves_done = 0, rounds_done = 0;
  bool coordinates_started = false;

  Csr consumers, producers;
  std::vector<int32_t> topo, rank;
  std::vector<std::vector<int32_t>> layers;
  std::vector<float> relative, key;
  std::vector<float> desired, left, right, gathered;

  bool kept(int32_t from, int32_t to) const { return rank[static_cast<size_t>(from)] < rank[static_cast<size_t>(to)]; }
  float spacing() const { return options.node_width + options.horizontal_gap; }

  void run_next() {
    switch (next) {
      case Unit::Stubs:
        stubs();
        next = Unit::Order;
        break;
      case Unit::Order:
        order();
        next = Unit::Layers;
        break;
      case Unit::Layers:
        assign_layers();
        next = options.sweeps > 0 ? Unit::Sweep : Unit::Coordinates;
        break;
      case Unit::Sweep:
        sweep_half(sweep_halves_done % 2 == 0 ? producers : consumers, sweep_halves_done % 2 == 0);
        if (++sweep_halves_done == 2 * options.sweeps) next = Unit::Coordinates;
        break;
      case Unit::Coordinates:
        if (!coordinates_started) start_coordinates();
        if (rounds_done < options.coordinate_rounds) coordinate_round(rounds_done++ % 2 == 0);
        if (rounds_done >= options.coordinate_rounds) {
          finish();
          next = Unit::Done;
        }
        break;
      case Unit::Done:
        break;
    }
  }

  double fraction() const {
    switch (next) {
      case Unit::Stubs:
        return 0.0;
      case Unit::Order:
        return 0.1;
      case Unit::Layers:
        return 0.2;
      case Unit::Sweep:
        return 0.3 + 0.4 * sweep_halves_done / std::max(1, 2 * options.sweeps);
      case Unit::Coordinates:
        return 0.7 + 0.3 * rounds_done / std::max(1, options.coordinate_rounds);
      case Unit::Done:
        return 1.0;
    }
    return 1.0;
  }

  const char* stage() const {
    switch (next) {
      case Unit::Stubs:
        return "stubs";
      case Unit::Order:
        return "ordering";
      case Unit::Layers:
        return "layering";
      case Unit::Sweep:
        return "crossing reduction";
      case Unit::Coordinates:
        return "coordinates";
      case Unit::Done:
        return "done";
    }
    return "done";
  }

  // 1. Stubs: producers with many consumers; the active edges as adjacency lists.
  void stubs() {
    std::vector<int32_t> out_degree(n, 0);
    for (const auto& [from, to] : edges) {
      if (from != to) ++out_degree[static_cast<size_t>(from)];
    }
    drawing.stub.assign(n, 0);
    for (size_t v = 0; v < n; ++v) drawing.stub[v] = options.stub_fanout > 0 && out_degree[v] > options.stub_fanout;
    std::vector<std::pair<int32_t, int32_t>> forward, backward;  // active edges (no self-loops, no stub out-edges)
    for (const auto& [from, to] : edges) {
      if (from == to || drawing.stub[static_cast<size_t>(from)]) continue;
      forward.emplace_back(from, to);
      backward.emplace_back(to, from);
    }
    consumers = build_csr(nodes, forward);
    producers = build_csr(nodes, backward);
  }

  // 2. Topological order (Kahn with a stack); cycles broken by forcing the lowest remaining node.
  void order() {
    std::vector<int32_t> waiting(n), stack;
    rank.assign(n, -1);
    topo.reserve(n);
    for (size_t v = 0; v < n; ++v) waiting[v] = producers.size(static_cast<int32_t>(v));
    for (int32_t v = nodes - 1; v >= 0; --v) {
      if (waiting[static_cast<size_t>(v)] == 0) stack.push_back(v);
    }
    int32_t next_forced = 0;
    while (topo.size() < n) {
      if (stack.empty()) {
        while (rank[static_cast<size_t>(next_forced)] >= 0) ++next_forced;
        stack.push_back(next_forced);
      }
      const int32_t v = stack.back();
      stack.pop_back();
      if (rank[static_cast<size_t>(v)] >= 0) continue;
      rank[static_cast<size_t>(v)] = static_cast<int32_t>(topo.size());
      topo.push_back(v);
      // Push consumers in reverse so the first listed is taken first (depth-first flavour).
      for (const int32_t* w = consumers.end(v); w != consumers.begin(v);) {
        --w;
        if (rank[static_cast<size_t>(*w)] >= 0) continue;
        if (--waiting[static_cast<size_t>(*w)] == 0) stack.push_back(*w);
      }
    }
    // An edge is kept when it goes forward in that order; the rest closed cycles.
    for (int32_t v = 0; v < nodes; ++v) {
      for (const int32_t* w = consumers.begin(v); w != consumers.end(v); ++w) drawing.ignored_edges += kept(v, *w) ? 0 : 1;
    }
  }

  // 3. Longest-path layers, then sources promoted to just above their first consumer.
  void assign_layers() {
    drawing.layer.assign(n, 0);
    for (const int32_t v : topo) {
      int32_t layer = 0;
      for (const int32_t* u = producers.begin(v); u != producers.end(v); ++u) {
        if (kept(*u, v)) layer = std::max(layer, drawing.layer[static_cast<size_t>(*u)] + 1);
      }
      drawing.layer[static_cast<size_t>(v)] = layer;
    }
    // A stub's uses are not in the graph the layers follow; it sits above its first use all the same.
    std::vector<int32_t> first_use(n, std::numeric_limits<int32_t>::max());
    for (const auto& [from, to] : edges) {
      if (from != to && drawing.stub[static_cast<size_t>(from)]) {
        first_use[static_cast<size_t>(from)] = std::min(first_use[static_cast<size_t>(from)], drawing.layer[static_cast<size_t>(to)]);
      }
    }
    // Promotion, in reverse topological order so chains move together: every node with a use sinks
    // to just above its first use (parameter -> convert -> ... chains otherwise stay at the top,
    // thousands wide, with long edges down to their use). Sinks keep their longest-path layer.
    for (size_t i = topo.size(); i-- > 0;) {
      const int32_t v = topo[i];
      int32_t use = first_use[static_cast<size_t>(v)];
      for (const int32_t* w = consumers.begin(v); w != consumers.end(v); ++w) {
        if (kept(v, *w)) use = std::min(use, drawing.layer[static_cast<size_t>(*w)]);
      }
      if (use != std::numeric_limits<int32_t>::max())
        drawing.layer[static_cast<size_t>(v)] = std::max(drawing.layer[static_cast<size_t>(v)], use - 1);
    }
    drawing.layer_count = nodes == 0 ? 0 : *std::max_element(drawing.layer.begin(), drawing.layer.end()) + 1;
    layers.assign(static_cast<size_t>(drawing.layer_count), {});
    for (const int32_t v : topo) layers[static_cast<size_t>(drawing.layer[static_cast<size_t>(v)])].push_back(v);
    drawing.position.assign(n, 0);
    relative.assign(n, 0.0f);
    key.assign(n, 0.0f);
    for (const auto& members : layers) renumber(members);
  }

  void renumber(const std::vector<int32_t>& members) {
    for (size_t i = 0; i < members.size(); ++i) {
      drawing.position[static_cast<size_t>(members[i])] = static_cast<int32_t>(i);
      relative[static_cast<size_t>(members[i])] = (static_cast<float>(i) + 0.5f) / static_cast<float>(members.size());
    }
  }

  // 4. Half a barycenter sweep (down by producers or up by consumers), on positions normalised by
  // layer width.
  void sweep_half(const Csr& neighbours, bool down) {
    for (size_t step = 0; step < layers.size(); ++step) {
      std::vector<int32_t>& members = layers[down ? step : layers.size() - 1 - step];
      for (const int32_t v : members) {
        float sum = 0;
        int count = 0;
        for (const int32_t* u = neighbours.begin(v); u != neighbours.end(v); ++u) {
          if (down ? kept(*u, v) : kept(v, *u)) sum += relative[static_cast<size_t>(*u)], ++count;
        }
        key[static_cast<size_t>(v)] = count > 0 ? sum / static_cast<float>(count) : relative[static_cast<size_t>(v)];
      }
      std::stable_sort(members.begin(), members.end(),
                       [&](int32_t a, int32_t b) { return key[static_cast<size_t>(a)] < key[static_cast<size_t>(b)]; });
      renumber(members);
    }
  }

  // 5. Coordinates: pulled to the median of neighbours, order kept, separation kept.
  void start_coordinates() {
    coordinates_started = true;
    drawing.x.assign(n, 0.0f);
    for (const auto& members : layers) {
      for (size_t i = 0; i < members.size(); ++i) drawing.x[static_cast<size_t>(members[i])] = static_cast<float>(i) * spacing();
    }
  }

  void coordinate_round(bool down) {
    const Csr& neighbours = down ? producers : consumers;
    for (size_t step = 0; step < layers.size(); ++step) {
      const std::vector<int32_t>& members = layers[down ? step : layers.size() - 1 - step];
      const size_t count = members.size();
      desired.assign(count, 0.0f);
      for (size_t i = 0; i < count; ++i) {
        const int32_t v = members[i];
        gathered.clear();
        for (const int32_t* u = neighbours.begin(v); u != neighbours.end(v); ++u) {
          if (down ? kept(*u, v) : kept(v, *u)) gathered.push_back(drawing.x[static_cast<size_t>(*u)]);
        }
        desired[i] = gathered.empty() ? drawing.x[static_cast<size_t>(v)] : median_of(gathered);
      }
      left.assign(count, 0.0f);
      right.assign(count, 0.0f);
      for (size_t i = 0; i < count; ++i) left[i] = i == 0 ? desired[i] : std::max(desired[i], left[i - 1] + spacing());
      for (size_t i = count; i-- > 0;) right[i] = i + 1 == count ? desired[i] : std::min(desired[i], right[i + 1] - spacing());
      for (size_t i = 0; i < count; ++i) drawing.x[static_cast<size_t>(members[i])] = 0.5f * (left[i] + right[i]);
    }
  }

  void finish() {
    const float min_x = n == 0 ? 0.0f : *std::min_element(drawing.x.begin(), drawing.x.end());
    drawing.y.assign(n, 0.0f);
    for (size_t v = 0; v < n; ++v) {
      drawing.x[v] += options.node_width * 0.5f - min_x;
      drawing.y[v] = static_cast<float>(drawing.layer[v]) * (options.node_height + options.layer_gap) + options.node_height * 0.5f;
      drawing.width = std::max(drawing.width, drawing.x[v] + options.node_width * 0.5f);
      drawing.height = std::max(drawing.height, drawing.y[v] + options.node_height * 0.5f);
    }
  }
};

LayeredDrawingJob::LayeredDrawingJob(int32_t nodes, std::vector<std::pair<int32_t, int32_t>> edges, const DrawingOptions& options)
    : state_(std::make_unique<State>()) {
  if (nodes < 0) throw InternalError("draw_layered: negative node count");
  for (const auto& [from, to] : edges) {
    if (from < 0 || from >= nodes || to < 0 || to >= nodes) {
      throw InternalError("draw_layered: edge (" + std::to_string(from) + ", " + std::to_string(to) + ") outside 0.." +
                          std::to_string(nodes - 1));
    }
  }
  state_->nodes = nodes;
  state_->n = static_cast<size_t>(nodes);
  state_->edges = std::move(edges);
  state_->options = options;
}

LayeredDrawingJob::~LayeredDrawingJob() = default;

void LayeredDrawingJob::step() { state_->run_next(); }
bool LayeredDrawingJob::done() const { return state_->next == State::Unit::Done; }
double LayeredDrawingJob::fraction() const { return state_->fraction(); }
const char* LayeredDrawingJob::stage() const { return state_->stage(); }

void LayeredDrawingJob::finish_early() {
  State& s = *state_;
  if (s.next == State::Unit::Done) return;
  while (s.next == State::Unit::Stubs || s.next == State::Unit::Order || s.next == State::Unit::Layers) s.run_next();
  if (!s.coordinates_started) {
    // No coordinate round ran: each layer centred on x = 0 instead of starting there.
    s.start_coordinates();
    for (const auto& members : s.layers) {
      const float shift = 0.5f * static_cast<float>(members.size()) * s.spacing();
      for (const int32_t v : members) s.drawing.x[static_cast<size_t>(v)] -= shift;
    }
  }
  s.finish();
  s.next = State::Unit::Done;
  s.drawing.stopped_early = true;
}

LayeredDrawing LayeredDrawingJob::take() {
  if (!done()) throw InternalError("LayeredDrawingJob::take before the drawing is done");
  return std::move(state_->drawing);
}

LayeredDrawing draw_layered(int32_t nodes, const std::vector<std::pair<int32_t, int32_t>>& edges, const DrawingOptions& options,
                            const DrawingProgress& progress) {
  LayeredDrawingJob job(nodes, edges, options);
  while (!job.done()) {
    job.step();
    if (progress && !progress(job.fraction(), job.stage()) && !job.done()) {  // a late "stop" changes nothing
      LayeredDrawing cancelled;
      cancelled.cancelled = true;
      return cancelled;
    }
  }
  return job.take();
}

}  // namespace graphcost
