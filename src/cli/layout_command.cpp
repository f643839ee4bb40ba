#include "cli/layout_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "common/atomic_file.h"
#include "data/tpu_graph.h"
#include "hlo/hlo_import.h"
#include "layout/dag_layout.h"

namespace graphcost {

int run_layout_command(const LayoutCommandOptions& options) {
  const TpuGraph graph = load_graph_file(options.path);
  std::vector<std::pair<int32_t, int32_t>> edges;
  edges.reserve(graph.edges.size());
  for (const Edge& edge : graph.edges) edges.emplace_back(edge.producer, edge.consumer);
  const LayoutProgress progress = [&](double fraction, const char* stage) {
    if (!options.quiet) std::fprintf(stderr, "\rlayout: %3.0f%% %-20s", fraction * 100, stage);
    return true;
  };
  if (!options.out.empty()) check_output_path(options.out, {options.path});
  DagLayout layout;
  std::vector<double> seconds;
  for (int i = 0; i < std::max(1, options.repeat); ++i) {
    const auto start = std::chrono::steady_clock::now();
    layout = layout_dag(graph.node_count, edges, LayoutOptions{}, progress);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (!options.quiet) std::fprintf(stderr, "\n");
  std::sort(seconds.begin(), seconds.end());
  const long stubs = std::count(layout.stub.begin(), layout.stub.end(), uint8_t{1});
  std::printf("%s: %d nodes, %zu edges -> %d layers, %.0f x %.0f units, %ld stubs, %lld ignored edges; layout %.1f ms (median of %zu)\n",
              options.path.c_str(), graph.node_count, graph.edges.size(), layout.layer_count, layout.width, layout.height, stubs,
              static_cast<long long>(layout.ignored_edges), seconds[seconds.size() / 2] * 1e3, seconds.size());
  if (!options.out.empty()) {
    std::ostringstream csv;
    csv << "node,layer,position,x,y,stub\n";
    for (int32_t v = 0; v < graph.node_count; ++v) {
      const size_t i = static_cast<size_t>(v);
      csv << v << ',' << layout.layer[i] << ',' << layout.position[i] << ',' << layout.x[i] << ',' << layout.y[i] << ','
          << int(layout.stub[i]) << '\n';
    }
    write_file_atomically(options.out, csv.str(), {options.path});
    std::printf("wrote %s\n", options.out.c_str());
  }
  return 0;
}

}  // namespace graphcost
