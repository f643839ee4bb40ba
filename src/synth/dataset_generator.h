// DatasetGenerator: `graphcost gen` — writes a TpuGraphs-format tree of synthetic graphs:
//   OUT/npz/tile/xla/{train,valid,test}/*.npz
//   OUT/npz/layout/{xla,nlp}/{default,random}/{train,valid,test}/*.npz
//   OUT/solution_test.csv   (the hidden test runtimes, for graphcost-eval)
// Test files hide their runtimes exactly like the real ones (zeros; tile normalizers 1). As in the
// real dataset, a source's default and random collections hold the same programs with different
// configs: the n-th layout graph of a split is one program in both (test graphs under one hash). Every file is seeded from (seed,
// collection, split, index) alone, so the output is byte-identical for the same options whatever the thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace graphcost {

struct GeneratorOptions {
  std::string out;
  int graphs = 100;
  uint64_t seed = 0;
  std::vector<std::string> collections;  // empty: all five
  int max_nodes = 5000;                  // program size cap (layout graphs are drawn below it)
  int min_nodes = 0;                     // > 0: layout sizes are drawn in [min, max] and bert
                                         // graphs grow to the drawn size (large-graph experiments)
  int layout_configs = 1000;             // configs per layout file (the real test files hold 1000)
  int max_configurable = 500;            // cap on configurable nodes per layout graph
  int threads = 2;
  // Real program structures: a folder of XLA HLO text modules (.hlo / .txt), imported
  // (hlo/hlo_import.h) and priced like the families' programs. A layout graph is one of them with
  // probability `program_share` (one chosen uniformly among those of its source), else a family's.
  // A module with a convolution feeds the layout:xla collections, one without the nlp ones;
  // modules with fewer than 8 configurable nodes are left out (listed in the report). Imported
  // programs keep their size (no --max-nodes cap) and their names.
  std::string programs_dir;
  double program_share = 0.5;
};

struct GeneratedFile {
  std::string path, collection, split, family;
  int nodes = 0, configs = 0, configurable = 0;
  double best_vs_default = 0;  // layout: best sampled runtime / default-config runtime
};

struct GeneratorReport {
  std::vector<GeneratedFile> files;
  std::string solution_path;
  std::vector<std::string> programs;          // imported modules used, "name (source, nodes, configurable)"
  std::vector<std::string> skipped_programs;  // modules left out, with why
};

// Called from the calling thread as files complete; return false to stop (files done stay).
using GeneratorProgress = std::function<bool(size_t done, size_t total, const std::string& file)>;

// Throws std::invalid_argument for bad options, std::runtime_error for I/O failures.
GeneratorReport generate_dataset(const GeneratorOptions& options, const GeneratorProgress& progress = nullptr);

}  // namespace graphcost
