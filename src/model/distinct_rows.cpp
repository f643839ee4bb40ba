#include "model/distinct_rows.h"

#include <cstdint>

#include "common/internal_error.h"

namespace graphcost {
namespace {

uint64_t mix(uint64_t hash, uint64_t value) {
  hash ^= value + 0x9E3779B97F4A7C15ull + (hash << 6) + (hash >> 2);
  return hash * 0xBF58476D1CE4E5B9ull;
}

// Groups the configs 0..configs-1 of one node by a key: group[b] is config b's group, numbered by
// first appearance; first[g] is group g's first config. `hash(b)` summarises config b's key and
// `same(a, b)` compares two keys exactly (hashes only find candidates). O(configs) per node:
// an open-addressing table of group ids by hash, emptied after each node.
class ConfigGrouper {
 public:
  explicit ConfigGrouper(int configs) {
    size_t capacity = 4;
    while (capacity < 2 * static_cast<size_t>(configs)) capacity *= 2;
    table_.assign(capacity, -1);
  }
  template <typename Hash, typename Same>
  void group(int configs, const Hash& hash, const Same& same, int32_t* group, std::vector<int32_t>& first) {
    first.clear();
    hashes_.clear();
    used_.clear();
    const size_t mask = table_.size() - 1;
    for (int b = 0; b < configs; ++b) {
      const uint64_t h = hash(b);
      size_t slot = static_cast<size_t>(h) & mask;
      int32_t found = -1;
      for (; table_[slot] >= 0; slot = (slot + 1) & mask) {
        const int32_t g = table_[slot];
        if (hashes_[static_cast<size_t>(g)] == h && same(first[static_cast<size_t>(g)], b)) {
          found = g;
          break;
        }
      }
      if (found < 0) {
        found = static_cast<int32_t>(first.size());
        first.push_back(b);
        hashes_.push_back(h);
        table_[slot] = found;
        used_.push_back(slot);
      }
      group[b] = found;
    }
    for (size_t slot : used_) table_[slot] = -1;
  }

 private:
  std::vector<int32_t> table_;
  std::vector<uint64_t> hashes_;
  std::vector<size_t> used_;
};

// One layer's distinct rows: node v's rows are offsets[v] .. offsets[v + 1], and config b's row of
// node v is offsets[v] + group[v * configs + b].
struct Layer {
  std::vector<int32_t> offsets;
  std::vector<int32_t> group;
  int32_t row(int configs, int32_t v, int b) const {
    return offsets[static_cast<size_t>(v)] + group[static_cast<size_t>(v) * static_cast<size_t>(configs) + static_cast<size_t>(b)];
  }
  void add_node(size_t rows) { offsets.push_back(offsets.back() + static_cast<int32_t>(rows)); }
};

// The input layer: each node's configs grouped by their values at the node's slots; the rows and
// their config parts go to `plan`.
Layer plan_input_layer(const GraphView& view, const std::vector<std::vector<int32_t>>& values, int values_per_node, ConfigGrouper& grouper,
                       DistinctRows& plan) {
  const int configs = plan.configs;
  const int32_t nodes = plan.nodes;
  // The configurable slots of each view node (CSR).
  std::vector<int32_t> slot_offsets(static_cast<size_t>(nodes) + 1, 0), slots(view.configurable.size());
  for (int32_t v : view.configurable) ++slot_offsets[static_cast<size_t>(v) + 1];
  for (int32_t v = 0; v < nodes; ++v) slot_offsets[static_cast<size_t>(v) + 1] += slot_offsets[static_cast<size_t>(v)];
  {
    std::vector<int32_t> next(slot_offsets.begin(), slot_offsets.end() - 1);
    for (size_t k = 0; k < view.configurable.size(); ++k)
      slots[static_cast<size_t>(next[static_cast<size_t>(view.configurable[k])]++)] = static_cast<int32_t>(k);
  }

  std::vector<int32_t> first;
  const size_t cells = static_cast<size_t>(nodes) * static_cast<size_t>(configs);
  Layer below;
  below.offsets.assign(1, 0);
  below.group.assign(cells, 0);
  for (int32_t v = 0; v < nodes; ++v) {
    const int32_t begin = slot_offsets[static_cast<size_t>(v)], end = slot_offsets[static_cast<size_t>(v) + 1];
    int32_t* group = below.group.data() + static_cast<size_t>(v) * static_cast<size_t>(configs);
    if (begin == end) {
      first.assign(1, 0);
    } else {
      auto values_at = [&](int b, int32_t s) {
        return values[static_cast<size_t>(b)].data() +
               static_cast<size_t>(slots[static_cast<size_t>(s)]) * static_cast<size_t>(values_per_node);
      };
      grouper.group(
          configs,
          [&](int b) {
            uint64_t h = 0;
            for (int32_t s = begin; s < end; ++s)
              for (int i = 0; i < values_per_node; ++i) h = mix(h, static_cast<uint64_t>(values_at(b, s)[i]));
            return h;
          },
          [&](int a, int b) {
            for (int32_t s = begin; s < end; ++s)
              for (int i = 0; i < values_per_node; ++i)
                if (values_at(a, s)[i] != values_at(b, s)[i]) return false;
            return true;
          },
          group, first);
    }
    for (size_t g = 0; g < first.size(); ++g) {
      const int32_t row = below.offsets.back() + static_cast<int32_t>(g);
      plan.input_nodes.push_back(v);
      for (int32_t s = begin; s < end; ++s) plan.config_parts.push_back({row, first[g], slots[static_cast<size_t>(s)]});
    }
    below.add_node(first.size());
  }

  return below;
}

// A message layer: each node's configs grouped by the rows they gave the node and its neighbours
// one layer down; the layer's row sources go to `plan`.
Layer plan_message_layer(const GraphView& view, const Layer& below, ConfigGrouper& grouper, DistinctRows& plan) {
  const int configs = plan.configs;
  const int32_t nodes = plan.nodes;
  const size_t cells = static_cast<size_t>(nodes) * static_cast<size_t>(configs);
  std::vector<int32_t> first;
  Layer above;
  above.offsets.assign(1, 0);
  above.group.assign(cells, 0);
  auto sources = std::make_shared<nn::RowSources>();
  sources->producers.offsets.assign(1, 0);
  sources->consumers.offsets.assign(1, 0);
  for (int32_t v = 0; v < nodes; ++v) {
    int32_t* group = above.group.data() + static_cast<size_t>(v) * static_cast<size_t>(configs);
    const nn::Adjacency* sides[2] = {&view.producers, &view.consumers};
    auto for_each_input = [&](auto&& visit) {  // v, then its producers, then its consumers
      if (!visit(v)) return false;
      for (const nn::Adjacency* side : sides) {
        for (int32_t k = side->offsets[static_cast<size_t>(v)]; k < side->offsets[static_cast<size_t>(v) + 1]; ++k)
          if (!visit(side->neighbours[static_cast<size_t>(k)])) return false;
      }
      return true;
    };
    bool shared = true;
    for_each_input([&](int32_t u) {
      shared = below.offsets[static_cast<size_t>(u) + 1] - below.offsets[static_cast<size_t>(u)] == 1;
      return shared;
    });
    if (shared) {
      first.assign(1, 0);
    } else {
      grouper.group(
          configs,
          [&](int b) {
            uint64_t h = 0;
            for_each_input([&](int32_t u) {
              h = mix(h,
                      static_cast<uint64_t>(below.group[static_cast<size_t>(u) * static_cast<size_t>(configs) + static_cast<size_t>(b)]));
              return true;
            });
            return h;
          },
          [&](int a, int b) {
            return for_each_input([&](int32_t u) {
              const size_t base = static_cast<size_t>(u) * static_cast<size_t>(configs);
              return below.group[base + static_cast<size_t>(a)] == below.group[base + static_cast<size_t>(b)];
            });
          },
          group, first);
    }
    for (int32_t b : first) {
      sources->self.push_back(below.row(configs, v, b));
      nn::Adjacency* targets[2] = {&sources->producers, &sources->consumers};
      for (int side = 0; side < 2; ++side) {
        for (int32_t k = sides[side]->offsets[static_cast<size_t>(v)]; k < sides[side]->offsets[static_cast<size_t>(v) + 1]; ++k)
          targets[side]->neighbours.push_back(below.row(configs, sides[side]->neighbours[static_cast<size_t>(k)], b));
        targets[side]->offsets.push_back(static_cast<int32_t>(targets[side]->neighbours.size()));
      }
    }
    above.add_node(first.size());
  }
  sources->producers.nodes = sources->consumers.nodes = static_cast<int32_t>(sources->self.size());
  // Offsets are int32: a layer's neighbour lists hold at most configs x edges entries.
  for (const nn::Adjacency* side : {&sources->producers, &sources->consumers}) {
    check_invariant(side->offsets.back() >= 0 && side->neighbours.size() <= static_cast<size_t>(INT32_MAX),
                    "plan_distinct_rows: a layer's neighbour lists exceed 2^31 entries");
  }
  plan.layers.push_back(std::move(sources));
  return above;
}

}  // namespace

DistinctRows plan_distinct_rows(const GraphView& view, const std::vector<std::vector<int32_t>>& values, int values_per_node, int layers) {
  DistinctRows plan;
  const int configs = static_cast<int>(values.size());
  const int32_t nodes = view.size();
  plan.configs = configs;
  plan.nodes = nodes;
  const size_t per_config = view.configurable.size() * static_cast<size_t>(values_per_node);
  for (const std::vector<int32_t>& v : values) {
    if (v.size() != per_config) {
      throw InternalError("plan_distinct_rows: " + std::to_string(v.size()) + " values for a config, expected " +
                          std::to_string(per_config));
    }
  }
  ConfigGrouper grouper(configs);
  Layer below = plan_input_layer(view, values, values_per_node, grouper, plan);
  // Message layers: configs group by the rows they gave the node and its neighbours below.
  for (int l = 0; l < layers; ++l) below = plan_message_layer(view, below, grouper, plan);
  const size_t cells = static_cast<size_t>(nodes) * static_cast<size_t>(configs);
  plan.final_rows.resize(cells);
  for (int b = 0; b < configs; ++b)
    for (int32_t v = 0; v < nodes; ++v)
      plan.final_rows[static_cast<size_t>(b) * static_cast<size_t>(nodes) + static_cast<size_t>(v)] = below.row(configs, v, b);
  return plan;
}

}  // namespace graphcost
