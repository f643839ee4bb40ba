// `graphcost info <file|dir> [--json]`: a file's summary (kind, sizes, configs, runtimes, opcode
// histogram) or, for a directory, one row per collection and split. Exit 0, or 1 when any file
// fails the schema checks (the error names the file, the key, expected and actual).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace graphcost {

struct InfoOptions {
  std::string path;
  bool json = false;
  bool quiet = false;  // no progress on stderr
};

// The `info` subcommand and its options (help shows InfoOptions's defaults).
CLI::App* add_info_command(CLI::App& app, InfoOptions& options);
int run_info_command(const InfoOptions& options);

}  // namespace graphcost
