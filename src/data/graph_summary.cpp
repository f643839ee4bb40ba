#include "data/graph_summary.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/internal_error.h"
#include "data/node_features.h"
#include "data/opcodes.h"

namespace graphcost {
namespace {

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* pattern, ...) {
  char buffer[512];
  va_list args;
  va_start(args, pattern);
  std::vsnprintf(buffer, sizeof buffer, pattern, args);
  va_end(args);
  return buffer;
}

std::string with_thousands(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string duration(int64_t ns) {
  const double value = static_cast<double>(ns);
  if (ns >= 1000000000) return format("%.3f s", value / 1e9);
  if (ns >= 1000000) return format("%.3f ms", value / 1e6);
  if (ns >= 1000) return format("%.3f us", value / 1e3);
  return format("%lld ns", static_cast<long long>(ns));
}

}  // namespace

std::vector<int32_t> config_representatives(const TpuGraph& graph) {
  const size_t row_bytes = graph.kind == GraphKind::Tile ? sizeof(float) * kTileConfigFeatureCount
                                                         : static_cast<size_t>(graph.configurable_count()) * kLayoutConfigFeatureCount;
  const char* base = graph.kind == GraphKind::Tile ? reinterpret_cast<const char*>(graph.tile_config_features.data())
                                                   : reinterpret_cast<const char*>(graph.layout_config_features.data());
  std::unordered_map<std::string_view, int32_t> rows;
  rows.reserve(static_cast<size_t>(graph.config_count));
  std::vector<int32_t> representative(static_cast<size_t>(graph.config_count));
  for (int32_t c = 0; c < graph.config_count; ++c) {
    representative[static_cast<size_t>(c)] =
        rows.emplace(std::string_view(base + static_cast<size_t>(c) * row_bytes, row_bytes), c).first->second;
  }
  return representative;
}

std::vector<int8_t> most_common_layout_values(const TpuGraph& graph) {
  const int32_t nodes = graph.configurable_count();
  constexpr size_t width = kLayoutConfigFeatureCount;
  std::vector<int8_t> values(static_cast<size_t>(nodes) * width, -1);
  for (int32_t slot = 0; slot < nodes; ++slot) {
    std::map<std::string_view, int32_t> counts;
    for (int32_t c = 0; c < graph.config_count; ++c) {
      const int8_t* row =
          graph.layout_config_features.data() + (static_cast<size_t>(c) * static_cast<size_t>(nodes) + static_cast<size_t>(slot)) * width;
      ++counts[std::string_view(reinterpret_cast<const char*>(row), width)];
    }
    const auto best = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    if (best != counts.end()) std::copy(best->first.begin(), best->first.end(), values.begin() + static_cast<std::ptrdiff_t>(slot * width));
  }
  return values;
}

std::vector<int32_t> distinct_config_indices(const TpuGraph& graph) {
  const std::vector<int32_t> representative = config_representatives(graph);
  std::vector<int32_t> first;
  for (int32_t c = 0; c < graph.config_count; ++c) {
    if (representative[static_cast<size_t>(c)] == c) first.push_back(c);
  }
  return first;
}

DistinctConfigs group_identical_configs(const TpuGraph& graph, const std::vector<int32_t>& configs) {
  const std::vector<int32_t> representative = config_representatives(graph);
  DistinctConfigs groups;
  groups.slot.resize(configs.size());
  std::unordered_map<int32_t, int32_t> index_of;
  for (size_t i = 0; i < configs.size(); ++i) {
    const int32_t c = configs[i];
    if (c < 0 || c >= graph.config_count) {
      throw InternalError("config index " + std::to_string(c) + " of a graph with " + std::to_string(graph.config_count) + " configs");
    }
    const auto [found, added] = index_of.emplace(representative[static_cast<size_t>(c)], static_cast<int32_t>(groups.distinct.size()));
    if (added) groups.distinct.push_back(representative[static_cast<size_t>(c)]);
    groups.slot[i] = found->second;
  }
  return groups;
}

int64_t count_distinct_configs(const TpuGraph& graph) { return static_cast<int64_t>(distinct_config_indices(graph).size()); }

GraphSummary summarize_graph(const TpuGraph& graph) {
  GraphSummary s;
  s.file = graph.source;
  s.kind = graph.kind;
  s.collection = graph.location.collection;
  s.split = graph.location.split;
  s.kaggle_id = graph.location.kaggle_id();
  s.nodes = graph.node_count;
  s.edges = static_cast<int64_t>(graph.edges.size());
  s.configurable_nodes = graph.configurable_count();
  s.computations = graph.node_splits.empty() ? 0 : static_cast<int64_t>(graph.node_splits.size()) - 1;
  s.configs = graph.config_count;
  s.distinct_configs = count_distinct_configs(graph);
  for (const Edge& edge : graph.edges) {
    if (edge.consumer <= edge.producer) {
      s.topologically_ordered = false;
      break;
    }
  }
  s.labelled = !graph.runtimes_hidden && !graph.config_runtime_ns.empty();
  if (s.labelled) {
    const auto [low, high] = std::minmax_element(graph.config_runtime_ns.begin(), graph.config_runtime_ns.end());
    s.runtime_min_ns = *low;
    s.runtime_max_ns = *high;
    s.relative_spread = static_cast<double>(*high - *low) / static_cast<double>(*low);
    if (graph.kind == GraphKind::Tile) {
      s.normalized_min = 1e300;
      s.normalized_max = 0;
      for (int32_t c = 0; c < graph.config_count; ++c) {
        const double y = config_ranking_target(graph, c);
        s.normalized_min = std::min(s.normalized_min, y);
        s.normalized_max = std::max(s.normalized_max, y);
      }
    }
  }
  std::map<int, int64_t> counts;
  for (uint8_t opcode : graph.node_opcodes) ++counts[opcode];
  s.opcode_counts.assign(counts.begin(), counts.end());
  s.named = !graph.names.empty();
  s.named_computations = static_cast<int64_t>(graph.names.computations.size());
  for (const std::string& op_name : graph.names.op_names) s.op_named_nodes += op_name.empty() ? 0 : 1;
  s.provenance = graph.provenance;
  std::stable_sort(s.opcode_counts.begin(), s.opcode_counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return s;
}

std::string format_graph_summary(const GraphSummary& s) {
  std::string out;
  auto line = [&](const char* label, const std::string& value) { out += format("%-20s %s\n", label, value.c_str()); };
  line("file", s.file);
  if (!s.provenance.empty()) line("source", s.provenance);
  line("kind", graph_kind_name(s.kind));
  line("collection", s.collection.empty() ? "- (outside the TpuGraphs tree)" : s.collection + " (" + s.split + ")");
  line("kaggle id", s.kaggle_id.empty() ? "-" : s.kaggle_id);
  line("nodes", with_thousands(s.nodes));
  line("edges", with_thousands(s.edges) + (s.topologically_ordered ? " (producers before consumers)" : " (NOT in topological order)"));
  if (s.kind == GraphKind::Layout) {
    line("configurable nodes", with_thousands(s.configurable_nodes));
    line("computations", with_thousands(s.computations) + " (node_splits)");
  }
  line("configs", with_thousands(s.configs) + " (" + with_thousands(s.distinct_configs) + " distinct)");
  if (s.labelled) {
    line("runtimes", "labelled");
    line("runtime range", duration(s.runtime_min_ns) + " .. " + duration(s.runtime_max_ns));
    line("relative spread", format("%.4f  ((max - min) / min)", s.relative_spread));
    if (s.kind == GraphKind::Tile) {
      line("runtime/normalizer", format("%.4f .. %.4f", s.normalized_min, s.normalized_max));
    }
  } else {
    line("runtimes", "hidden (all zero: a Kaggle test file or an imported module)");
  }
  if (s.named) {
    line("names", with_thousands(s.named_computations) + " HLO computations; op_name on " + with_thousands(s.op_named_nodes) + " of " +
                      with_thousands(s.nodes) + " nodes");
  }
  out += "opcodes (nodes):\n";
  for (const auto& [opcode, count] : s.opcode_counts) {
    out += format("  %3d %-28s %10s  %5.1f%%\n", opcode, opcode_name(opcode).c_str(), with_thousands(count).c_str(),
                  100.0 * static_cast<double>(count) / static_cast<double>(s.nodes));
  }
  return out;
}

nlohmann::json graph_summary_json(const GraphSummary& s) {
  nlohmann::json opcodes = nlohmann::json::array();
  for (const auto& [opcode, count] : s.opcode_counts) {
    opcodes.push_back({{"id", opcode}, {"name", opcode_name(opcode)}, {"nodes", count}});
  }
  nlohmann::json json = {{"file", s.file},
                         {"kind", graph_kind_name(s.kind)},
                         {"collection", s.collection},
                         {"split", s.split},
                         {"kaggle_id", s.kaggle_id},
                         {"nodes", s.nodes},
                         {"edges", s.edges},
                         {"configurable_nodes", s.configurable_nodes},
                         {"computations", s.computations},
                         {"configs", s.configs},
                         {"distinct_configs", s.distinct_configs},
                         {"topologically_ordered", s.topologically_ordered},
                         {"labelled", s.labelled},
                         {"opcodes", opcodes}};
  if (s.named) json["names"] = {{"computations", s.named_computations}, {"op_named_nodes", s.op_named_nodes}};
  if (!s.provenance.empty()) json["source"] = s.provenance;
  if (s.labelled) {
    json["runtime_min_ns"] = s.runtime_min_ns;
    json["runtime_max_ns"] = s.runtime_max_ns;
    json["relative_spread"] = s.relative_spread;
    if (s.kind == GraphKind::Tile) {
      json["normalized_runtime_min"] = s.normalized_min;
      json["normalized_runtime_max"] = s.normalized_max;
    }
  }
  return json;
}

}  // namespace graphcost
