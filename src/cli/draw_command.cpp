#include "cli/draw_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "common/atomic_file.h"
#include "data/tpu_graph.h"
#include "drawing/layered_drawing.h"
#include "hlo/graph_file.h"

namespace graphcost {

int run_draw_command(const DrawCommandOptions& options) {
  const TpuGraph graph = load_graph_file(options.path).graph;
  std::vector<std::pair<int32_t, int32_t>> edges;
  edges.reserve(graph.edges.size());
  for (const Edge& edge : graph.edges) edges.emplace_back(edge.producer, edge.consumer);
  const DrawingProgress progress = [&](double fraction, const char* stage) {
    if (!options.quiet) std::fprintf(stderr, "\rdrawing: %3.0f%% %-20s", fraction * 100, stage);
    return true;
  };
  if (!options.out.empty()) check_output_path(options.out, {options.path});
  LayeredDrawing drawing;
  std::vector<double> seconds;
  for (int i = 0; i < std::max(1, options.repeat); ++i) {
    const auto start = std::chrono::steady_clock::now();
    drawing = draw_layered(graph.node_count, edges, DrawingOptions{}, progress);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (!options.quiet) std::fprintf(stderr, "\n");
  std::sort(seconds.begin(), seconds.end());
  const long stubs = std::count(drawing.stub.begin(), drawing.stub.end(), uint8_t{1});
  std::printf("%s: %d nodes, %zu edges -> %d layers, %.0f x %.0f units, %ld stubs, %lld ignored edges; drawn in %.1f ms (median of %zu)\n",
              options.path.c_str(), graph.node_count, graph.edges.size(), drawing.layer_count, drawing.width, drawing.height, stubs,
              static_cast<long long>(drawing.ignored_edges), seconds[seconds.size() / 2] * 1e3, seconds.size());
  if (!options.out.empty()) {
    std::ostringstream csv;
    csv << "node,layer,position,x,y,stub\n";
    for (int32_t v = 0; v < graph.node_count; ++v) {
      const size_t i = static_cast<size_t>(v);
      csv << v << ',' << drawing.layer[i] << ',' << drawing.position[i] << ',' << drawing.x[i] << ',' << drawing.y[i] << ','
          << int(drawing.stub[i]) << '\n';
    }
    write_file_atomically(options.out, csv.str(), {options.path});
    std::printf("wrote %s\n", options.out.c_str());
  }
  return 0;
}

CLI::App* add_draw_command(CLI::App& app, DrawCommandOptions& draw) {
  CLI::App* draw_command =
      app.add_subcommand("draw", "Draw a graph in layers (as the browser app draws it); time it; export node positions");
  // `draw` was called `layout` before "layout" came to mean TPU tensor layouts only; the old name stays
  // as an alias.
  draw_command->alias("layout");
  draw_command->add_option("path", draw.path, "a TpuGraphs .npz file, or HLO text (.hlo/.txt: imported on the fly)")->required();
  draw_command->add_option("--out", draw.out, "CSV of node,layer,position,x,y,stub");
  draw_command->add_option("--repeat", draw.repeat, "runs to time (median printed)")->capture_default_str()->check(CLI::Range(1, 1000));
  draw_command->add_flag("-q,--quiet", draw.quiet, "no progress on stderr");
  return draw_command;
}

}  // namespace graphcost
