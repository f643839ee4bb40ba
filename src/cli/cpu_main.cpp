// graphcost-cpu: the commands that run XLA modules on this CPU through Halide (docs/lowering.md):
// `lower`, `measure`, `collect` and `tune --oracle cpu`, also reached as `graphcost lower|measure|collect` and
// `graphcost tune --oracle cpu` (graphcost runs this executable), and `oracle`, the cpu oracle as a
// process the Python package drives (graphcost.CpuOracle).
// Apart from graphcost because Halide brings LLVM, whose loading alone costs every process tens of
// MiB of resident memory. Exit codes as graphcost's (common/error_exit.h).
#include <exception>
#include <functional>

#include <CLI/CLI.hpp>

#include "cli/collect_command.h"
#include "cli/cpu_oracle_command.h"
#include "cli/lower_command.h"
#include "cli/measure_command.h"
#include "cli/tune_command.h"
#include "common/error_exit.h"
#include "common/heap_tuning.h"
#include "lowering/cpu_oracle.h"

int main(int argc, char** argv) {
  graphcost::keep_large_allocations_in_heap();  // Halide's stored Funcs are allocated on every run
  CLI::App app{"graphcost-cpu: XLA modules lowered to Halide, run and timed on this CPU (also: graphcost lower | measure)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "graphcost 0.1.0");
  graphcost::LowerOptions lower;
  graphcost::MeasureCommandOptions measure;
  CLI::App* lower_command = graphcost::add_lower_command(app, lower);
  CLI::App* measure_command = graphcost::add_measure_command(app, measure);
  graphcost::TuneCommandOptions tune;
  tune.cpu_oracle = [&tune](const graphcost::TuningTarget& target, const std::function<bool()>& stop) {
    graphcost::MeasureOptions protocol;
    protocol.timeout_seconds = tune.measure_timeout;  // a config past it is killed: a failed measurement
    protocol.threads = tune.measure_threads;
    return graphcost::cpu_oracle(target, protocol, stop, tune.against_autoschedulers);
  };
  CLI::App* tune_command = graphcost::add_tune_command(app, tune);
  graphcost::CollectOptions collect;
  CLI::App* collect_command = graphcost::add_collect_command(app, collect);
  graphcost::CpuOracleCommandOptions oracle;
  CLI::App* oracle_command = graphcost::add_cpu_oracle_command(app, oracle);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  try {
    if (lower_command->parsed()) return graphcost::run_lower_command(lower);
    if (measure_command->parsed()) return graphcost::run_measure_command(measure);
    if (tune_command->parsed()) return graphcost::run_tune_command(tune);
    if (collect_command->parsed()) return graphcost::run_collect_command(collect);
    if (oracle_command->parsed()) return graphcost::run_cpu_oracle_command(oracle);
  } catch (const std::exception& error) {
    return graphcost::report_error(error);
  }
  return 2;
}
