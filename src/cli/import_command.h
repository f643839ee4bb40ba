// `graphcost import MODULE.hlo --out FILE.npz`: a user's XLA HLO text module as a TpuGraphs layout
// graph (configurable nodes, config 0 = the module's own layouts, --configs N random ones), or with
// `--kind tile --out DIR` one tile kernel file per fusion instruction (src/hlo, docs/import.md).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "data/dataset_path.h"

namespace graphcost {

struct ImportCommandOptions {
  std::string module, out;
  GraphKind kind = GraphKind::Layout;
  int configs = -1;  // layout: random configs beside config 0; tile: at most this many per kernel; -1: HloImportOptions' defaults
  uint64_t seed = 0;
  bool quiet = false;
};

// The `import` subcommand and its options (help shows ImportCommandOptions's defaults).
CLI::App* add_import_command(CLI::App& app, ImportCommandOptions& options);
int run_import_command(const ImportCommandOptions& options);

}  // namespace graphcost
