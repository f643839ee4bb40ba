// `graphcost collect --programs DIR --out TREE` (graphcost-cpu): a labelled TpuGraphs tree of this
// CPU's runtimes from every module in DIR it can lower (docs/lowering.md, "Collecting"): a module
// whose entry lowers whole gets a layout file (TREE/layout/cpu/random/SPLIT/MODULE.npz); its
// largest distinct kernels (fusions, dots, convolutions that lower, up to --kernels a module) get a
// layout file each and a tile file each (TREE/tile/cpu/SPLIT/MODULE.KERNEL.npz). A module's files
// all go to one split, chosen by a hash of its name unless --test or --valid names it (no program
// is in two splits). Resumable: a
// file already there is kept, so the same command again continues; Ctrl-C drops only the file in
// hand. Progress and an estimate of the time left on stderr; what was written or skipped, and why,
// in TREE/collect.jsonl.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/config_bounds.h"

namespace graphcost {

struct CollectOptions {
  std::string programs;
  std::string out;
  int configs = 20;           // layout configs beside config 0, per file
  int tile_configs = 30;      // tile configs beside the untiled one, per kernel (fewer when its space is smaller)
  int kernels = 6;            // distinct kernels a module at most, the largest first
  double max_gflop = 2.0;     // a whole module or kernel whose estimated work is past this is left out (runs of seconds)
  double max_input_mb = 256;  // ... or whose parameters take more memory than this (each config fills and lays them out anew)
  int max_repeats = 10;
  ConfigBounds bounds;                                     // --threads, --timeout, --max-memory-mb
  std::vector<std::string> test_programs, valid_programs;  // module names (file stems) put in that split, not by hash
  uint64_t seed = 0;
  bool quiet = false;
};

CLI::App* add_collect_command(CLI::App& app, CollectOptions& options);
int run_collect_command(const CollectOptions& options);

}  // namespace graphcost
