// graphcost: the command-line tool. Subcommands live in cli/<name>_command.*; this file only parses
// arguments and turns errors into exit codes: 0 ok, 1 bad input (message on stderr), 2 usage.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "cli/gen_command.h"
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

  graphcost::GenOptions gen;
  CLI::App* gen_command = app.add_subcommand("gen", "Write a synthetic TpuGraphs tree (a TPU-like cost simulator labels it)");
  gen_command->add_option("--out", gen.generator.out, "output folder (gets npz/... and solution_test.csv)")->required();
  gen_command->add_option("--graphs", gen.generator.graphs, "number of files, spread over the collections")->check(CLI::PositiveNumber);
  gen_command->add_option("--seed", gen.generator.seed, "same seed, same bytes");
  gen_command->add_option("--collections", gen.generator.collections, "subset of tile:xla layout:xla:random layout:xla:default layout:nlp:random layout:nlp:default")
      ->delimiter(',');
  gen_command->add_option("--max-nodes", gen.generator.max_nodes, "largest program size (nodes)")->check(CLI::Range(200, 1000000));
  gen_command->add_option("--layout-configs", gen.generator.layout_configs, "configs per layout file (default 1000)")->check(CLI::Range(2, 1000000));
  gen_command->add_option("--threads", gen.generator.threads, "worker threads (default 2)")->check(CLI::Range(1, 64));
  gen_command->add_flag("-q,--quiet", gen.quiet, "no progress on stderr");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  try {
    if (info_command->parsed()) return graphcost::run_info_command(info);
    if (gen_command->parsed()) return graphcost::run_gen_command(gen);
  } catch (const std::exception& error) {  // InputError included: its message names file and field
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
  return 2;
}
