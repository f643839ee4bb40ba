// graphcost: the command-line tool. Subcommands live in cli/<name>_command.*; this file only parses
// arguments and turns errors into exit codes: 0 ok, 1 bad input (message on stderr), 2 usage.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "cli/info_command.h"

int main(int argc, char** argv) {
  CLI::App app{"graphcost: learned cost models for ML compiler graphs (TpuGraphs format)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "graphcost 0.1.0");

  graphcost::InfoOptions info;
  CLI::App* info_command = app.add_subcommand(
      "info", "Summarise a TpuGraphs .npz file, or every file below a directory, checking the schema");
  info_command->add_option("path", info.path, "an .npz file or a directory (e.g. $GRAPHCOST_DATA/tpugraphs)")
      ->required();
  info_command->add_flag("--json", info.json, "print JSON instead of text");
  info_command->add_flag("-q,--quiet", info.quiet, "no progress on stderr");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  try {
    if (info_command->parsed()) return graphcost::run_info_command(info);
  } catch (const std::exception& error) {  // InputError included: its message names file and field
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
  return 2;
}
