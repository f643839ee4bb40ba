// graphcost: the command-line tool. Each subcommand, its options (`add_<name>_command`) and its work
// (`run_<name>_command`) live in cli/<name>_command.* (the model's in cli/model_commands.*); this
// file only dispatches and turns errors into exit codes (common/error_exit.h): 0 ok, 1 bad input
// (message on stderr), 2 usage, 3 internal error, 4 I/O. `graphcost lower` and `graphcost measure`
// run the graphcost-cpu executable beside it (cli/cpu_main.cpp: the commands that link Halide and
// LLVM, kept out of this one so that every other command stays small in memory).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/draw_command.h"
#include "cli/gen_command.h"
#include "cli/import_command.h"
#include "cli/info_command.h"
#include "cli/model_commands.h"
#include "cli/prepare_command.h"
#include "cli/rank_command.h"
#include "cli/simulate_command.h"
#include "cli/tune_command.h"
#include "common/error_exit.h"
#include "common/heap_tuning.h"
#include "train/data_parallel.h"

namespace {

// `graphcost lower|measure|collect|tune ...` as `graphcost-cpu ...`, the executable beside this one.
int run_cpu_executable(char** argv) {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string path = "graphcost-cpu";  // on PATH when this executable's own path is unknown
  if (length > 0) {
    const std::string self_path(self, static_cast<size_t>(length));
    path = self_path.substr(0, self_path.rfind('/') + 1) + path;
  }
  execvp(path.c_str(), argv);
  std::fprintf(stderr,
               "graphcost %s: %s is not there (%s): this graphcost was built without Halide (libhalide14-0-dev; docs/lowering.md)\n",
               argv[1], path.c_str(), std::strerror(errno));
  return 1;
}

// `graphcost tune ... --oracle cpu`: the oracle links Halide, so graphcost-cpu runs the whole command.
bool tunes_on_cpu(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "tune") != 0) return false;
  for (int k = 2; k < argc; ++k) {
    if (std::strcmp(argv[k], "--oracle=cpu") == 0 ||
        (std::strcmp(argv[k], "--oracle") == 0 && k + 1 < argc && std::strcmp(argv[k + 1], "cpu") == 0))
      return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && (std::strcmp(argv[1], "lower") == 0 || std::strcmp(argv[1], "measure") == 0 || std::strcmp(argv[1], "collect") == 0))
    return run_cpu_executable(argv);
  if (tunes_on_cpu(argc, argv)) return run_cpu_executable(argv);
  graphcost::keep_large_allocations_in_heap();
  CLI::App app{"graphcost: learned cost models for ML compiler graphs (TpuGraphs format)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "graphcost 0.1.0");
  app.footer(
      "Also: lower, measure, collect, tune --oracle cpu (XLA modules run and timed on this CPU through Halide: graphcost-cpu, "
      "docs/lowering.md)");

  graphcost::InfoOptions info;
  graphcost::GenOptions gen;
  graphcost::TrainCommandOptions train;
  graphcost::PrepareCommandOptions prepare;
  graphcost::PredictCommandOptions predict;
  graphcost::DrawCommandOptions draw;
  graphcost::ImportCommandOptions import;
  graphcost::RankCommandOptions rank;
  graphcost::SimulateCommandOptions simulate;
  graphcost::TuneCommandOptions tune;
  graphcost::SearchCommandOptions search;
  graphcost::EvaluateCommandOptions evaluate;
  graphcost::CalibrateCommandOptions calibrate;
  CLI::App* info_command = graphcost::add_info_command(app, info);
  CLI::App* gen_command = graphcost::add_gen_command(app, gen);
  CLI::App* train_command = graphcost::add_train_command(app, train);
  CLI::App* prepare_command = graphcost::add_prepare_command(app, prepare);
  CLI::App* predict_command = graphcost::add_predict_command(app, predict);
  CLI::App* draw_command = graphcost::add_draw_command(app, draw);
  CLI::App* import_command = graphcost::add_import_command(app, import);
  CLI::App* rank_command = graphcost::add_rank_command(app, rank);
  CLI::App* simulate_command = graphcost::add_simulate_command(app, simulate);
  CLI::App* tune_command = graphcost::add_tune_command(app, tune);
  CLI::App* search_command = graphcost::add_search_command(app, search);
  CLI::App* evaluate_command = graphcost::add_evaluate_command(app, evaluate);
  CLI::App* calibrate_command = graphcost::add_calibrate_command(app, calibrate);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  try {
    if (info_command->parsed()) return graphcost::run_info_command(info);
    if (gen_command->parsed()) return graphcost::run_gen_command(gen);
    if (draw_command->parsed()) return graphcost::run_draw_command(draw);
    if (import_command->parsed()) return graphcost::run_import_command(import);
    if (rank_command->parsed()) return graphcost::run_rank_command(rank);
    if (simulate_command->parsed()) return graphcost::run_simulate_command(simulate);
    if (tune_command->parsed()) return graphcost::run_tune_command(tune);
    if (search_command->parsed()) return graphcost::run_search_command(search);
    if (train_command->parsed()) return graphcost::run_train_command(train);
    if (prepare_command->parsed()) return graphcost::run_prepare_command(prepare);
    if (predict_command->parsed()) return graphcost::run_predict_command(predict);
    if (evaluate_command->parsed()) return graphcost::run_evaluate_model_command(evaluate);
    if (calibrate_command->parsed()) return graphcost::run_calibrate_command(calibrate);
  } catch (const std::exception& error) {  // exit 1 bad input, 3 internal error, 4 I/O (common/error_exit.h)
    const int code = graphcost::report_error(error);
    // Under mpirun the other ranks may wait in a collective for this one: end them all.
    if (graphcost::DataParallel::ranks_started() > 1) graphcost::DataParallel::world().abort(code);
    return code;
  }
  return 2;
}
