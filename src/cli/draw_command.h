// `graphcost draw FILE [--out positions.csv] [--repeat N]` (formerly `layout`): draws the graph in
// layers (src/drawing) with progress on stderr, prints layers, size, stubs, ignored edges and the median time of
// `repeat` runs; --out writes one row per node (node,layer,position,x,y,stub) for other tools.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace graphcost {

struct DrawCommandOptions {
  std::string path, out;
  int repeat = 1;
  bool quiet = false;
};

// The `draw` subcommand and its options (help shows DrawCommandOptions's defaults).
CLI::App* add_draw_command(CLI::App& app, DrawCommandOptions& options);
int run_draw_command(const DrawCommandOptions& options);

}  // namespace graphcost
