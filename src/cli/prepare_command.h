// `graphcost prepare`: every layout file of a tree (or of some collections and splits) prepared into
// a config store (data/config_store.h), so that `graphcost train --cache` reads configs on demand.
// Files already current in the cache are skipped: an interrupted run continues where it stopped.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace graphcost {

struct PrepareCommandOptions {
  std::string data, cache;
  std::string collection = "layout:xla:random,layout:xla:default,layout:nlp:random,layout:nlp:default";
  std::string split = "train,valid,test";
  std::string memory_budget;  // --memory-budget as given ("256MiB"); "": the input memory limit's default
  bool quiet = false;
};
// The `prepare` subcommand and its options (help shows PrepareCommandOptions's defaults).
CLI::App* add_prepare_command(CLI::App& app, PrepareCommandOptions& options);
int run_prepare_command(const PrepareCommandOptions& options);

}  // namespace graphcost
