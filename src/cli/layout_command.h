// `graphcost layout FILE.npz [--out positions.csv] [--repeat N]`: lays the graph out (src/layout)
// with progress on stderr, prints layers, size, stubs, ignored edges and the median time of
// `repeat` runs; --out writes one row per node (node,layer,position,x,y,stub) for other tools.
#pragma once

#include <string>

namespace graphcost {

struct LayoutCommandOptions {
  std::string path, out;
  int repeat = 1;
  bool quiet = false;
};

int run_layout_command(const LayoutCommandOptions& options);

}  // namespace graphcost
