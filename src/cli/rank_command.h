// `graphcost rank FILE --model M [--top K]`: one graph's configs ranked by a cost model, the K best
// with their predicted costs and speedups over config 0 (for an imported module: its own layouts).
// `graphcost search FILE --model M --out FOUND.npz`: the app's model-guided search (greedy, over the
// rows the file's configs give each node) from the command line; writes the file with the found
// configs appended. FILE is an .npz or HLO text (.hlo / .txt, imported on the fly).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace graphcost {

struct RankCommandOptions {
  std::string path, model;
  int top = 10;
  int threads = 2;
  bool json = false;
};
// The `rank` subcommand and its options (help shows RankCommandOptions's defaults).
CLI::App* add_rank_command(CLI::App& app, RankCommandOptions& options);
int run_rank_command(const RankCommandOptions& options);

struct SearchCommandOptions {
  std::string path, model, out;
  int rounds = 8;      // greedy rounds (each tries every candidate row of every node once)
  int candidates = 6;  // candidate rows per node: the most common ones among the file's configs
  bool quiet = false;
};
// The `search` subcommand and its options (help shows SearchCommandOptions's defaults).
CLI::App* add_search_command(CLI::App& app, SearchCommandOptions& options);
int run_search_command(const SearchCommandOptions& options);

}  // namespace graphcost
