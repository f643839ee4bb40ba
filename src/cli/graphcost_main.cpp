// graphcost: the command-line tool. Subcommands live in cli/<name>_command.* (the model's in
// cli/model_commands.*); this file only parses arguments and turns errors into exit codes
// (common/error_exit.h): 0 ok, 1 bad input (message on stderr), 2 usage, 3 internal error, 4 I/O.
#include <algorithm>
#include <cstdio>
#include <exception>

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
#include "cli_options/named_option.h"
#include "cli_options/seed_option.h"
#include "common/error_exit.h"
#include "common/heap_tuning.h"
#include "common/input_error.h"
#include "data/dataset_path.h"
#include "train/data_parallel.h"

namespace {

// One collection, or a comma list of layout collections: "" when valid, else why not (a CLI11 check).
std::string collection_list(const std::string& text) {
  // One collection, or a comma list of layout collections (one model for several searches).
  std::string kinds;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    bool known = false;
    for (const char* collection : graphcost::kCollections) known = known || name == collection;
    if (!known)
      return "unknown collection '" + name + "' (tile:xla, layout:xla:random, layout:xla:default, layout:nlp:random, layout:nlp:default)";
    kinds += graphcost::collection_kind(name) == graphcost::GraphKind::Tile ? "t" : "l";
    start = comma + 1;
  }
  if (kinds.find('t') != std::string::npos && kinds.size() > 1) return "tile:xla cannot be mixed with other collections";
  return "";
}

CLI::App* add_info_command(CLI::App& app, graphcost::InfoOptions& info) {
  CLI::App* info_command =
      app.add_subcommand("info", "Summarise a TpuGraphs .npz file, or every file below a directory, checking the schema");
  info_command->add_option("path", info.path, "an .npz file or a directory (e.g. $GRAPHCOST_DATA/tpugraphs)")->required();
  info_command->add_flag("--json", info.json, "print JSON instead of text");
  info_command->add_flag("-q,--quiet", info.quiet, "no progress on stderr");
  return info_command;
}

CLI::App* add_gen_command(CLI::App& app, graphcost::GenOptions& gen) {
  CLI::App* gen_command = app.add_subcommand("gen", "Write a synthetic TpuGraphs tree (a TPU-like cost simulator labels it)");
  gen_command->add_option("--out", gen.generator.out, "output folder (gets npz/... and solution_test.csv)")->required();
  gen_command->add_option("--graphs", gen.generator.graphs, "number of files, spread over the collections")->check(CLI::PositiveNumber);
  graphcost::add_seed_option(gen_command, gen.generator.seed, "same seed, same bytes");
  gen_command
      ->add_option("--collections", gen.generator.collections,
                   "subset of tile:xla layout:xla:random layout:xla:default layout:nlp:random layout:nlp:default")
      ->delimiter(',');
  gen_command->add_option("--max-nodes", gen.generator.max_nodes, "largest program size (nodes)")->check(CLI::Range(200, 1000000));
  gen_command
      ->add_option("--min-nodes", gen.generator.min_nodes,
                   "smallest layout program (nodes; draws sizes in [min, max], grows bert graphs to the drawn size; default none)")
      ->check(CLI::Range(0, 1000000));
  gen_command->add_option("--max-configurable", gen.generator.max_configurable, "cap on configurable nodes per layout graph (default 500)")
      ->check(CLI::Range(1, 100000));
  gen_command->add_option("--layout-configs", gen.generator.layout_configs, "configs per layout file (default 1000)")
      ->check(CLI::Range(2, 1000000));
  gen_command->add_option("--threads", gen.generator.threads, "worker threads (default 2)")->check(CLI::Range(1, 64));
  gen_command->add_option("--programs", gen.generator.programs_dir,
                          "a folder of XLA HLO text modules (.hlo/.txt): real program structures beside the synthetic families");
  gen_command
      ->add_option("--program-share", gen.generator.program_share,
                   "with --programs: the share of layout graphs drawn from them (default 0.5)")
      ->check(CLI::Range(0.0, 1.0));
  gen_command->add_flag("-q,--quiet", gen.quiet, "no progress on stderr");
  return gen_command;
}

CLI::App* add_train_command(CLI::App& app, graphcost::TrainCommandOptions& train) {
  CLI::App* train_command = app.add_subcommand("train", "Train a GNN cost model on one collection's labelled files");
  train_command->add_option("--data", train.train.data, "npz tree")->required();
  train_command
      ->add_option("--collection", train.train.collection, "tile:xla, layout:xla:random, ... or a comma list of layout collections")
      ->required()
      ->check(collection_list);
  train_command->add_option("--out", train.train.out, "model file to write (.npz; rewritten after every epoch)")->required();
  train_command->add_flag("--resume", train.train.resume,
                          "continue from the checkpoint in --out (model, optimizer, sampler, epoch); e.g. after Ctrl-C");
  train_command->add_option("--train-split", train.train.train_split, "split(s) to train on (default train)");
  train_command->add_option("--valid-split", train.train.valid_split, "split(s) to validate on (default valid)");
  train_command->add_option("--epochs", train.train.epochs, "epochs (default 10)")->check(CLI::PositiveNumber);
  train_command->add_option("--steps-per-epoch", train.train.steps_per_epoch, "steps per epoch (default 100)")->check(CLI::PositiveNumber);
  train_command
      ->add_option("--graphs-per-step", train.train.graphs_per_step,
                   "graphs per step, their gradients averaged (default: one per process; mpirun -np N: a multiple of N)")
      ->check(CLI::Range(1, 4096));
  train_command->add_flag(
      "--independent-graphs", [&train](int64_t) { train.train.balance_graph_sizes = false; },
      "with several graphs per step, each draws its graph on its own (default: all draw graphs of the same size rank among their own, "
      "so no process's step waits long for another's)");
  train_command->add_option("--configs-per-step", train.train.configs_per_step, "configs per step (default 16)")
      ->check(CLI::Range(2, 4096));
  graphcost::add_named_option(train_command, "--aggregation", train.train.model.aggregation, graphcost::aggregation_names(),
                              "how a node combines its neighbours in each message layer: mean (default), max or sum");
  graphcost::add_named_option(train_command, "--loss", train.train.loss, graphcost::ranking_loss_names(),
                              "listmle, hinge, gap-margin (hinge with the log-runtime gap as margin) or mse (default listmle)");
  train_command->add_option("--learning-rate", train.train.learning_rate, "Adam learning rate (default 2e-3)");
  train_command->add_option("--hidden", train.train.model.hidden, "hidden width (default 64)")->check(CLI::Range(1, 4096));
  train_command->add_option("--layers", train.train.model.layers, "GraphSAGE layers (default 2)")->check(CLI::Range(0, 64));
  train_command->add_option("--hops", train.train.model.hops, "layout pruning: k hops around configurable nodes, -1 for none (default 1)");
  graphcost::add_seed_option(train_command, train.train.model.seed, "seed: same seed, same model");
  train_command->add_option("--init", train.train.init,
                            "start from this model's weights (its architecture and feature statistics; fresh optimizer): a warm start, "
                            "as tune --init model does");
  train_command->add_flag("--cross-config-attention", train.train.model.cross_config_attention,
                          "attention across a batch's configs in every layer (predictions then rank in chunks of 128 configs)");
  train_command->add_flag(
      "--relative-configs", train.train.model.relative_configs,
      "layout: read each node's values relative to its most common row in the file (a second embedding for changed nodes)");
  train_command
      ->add_option("--segment-nodes", train.train.segments.segment_nodes,
                   "Graph Segment Training: segments of about N nodes (default 0: whole graphs)")
      ->check(CLI::Range(0, 100000000));
  graphcost::add_named_option(train_command, "--partition", train.train.segments.partition, graphcost::partition_method_names(),
                              "GST segments: metis or contiguous (default metis)");
  train_command
      ->add_option("--segments-per-step", train.train.segments.segments_per_step, "GST: segments backpropagated per step (default 1)")
      ->check(CLI::Range(1, 100000));
  train_command
      ->add_option("--stale-dropout", train.train.segments.stale_dropout,
                   "GST: probability of dropping each historical segment embedding (default 0)")
      ->check(CLI::Range(0.0, 0.99));
  train_command
      ->add_option("--max-staleness", train.train.segments.max_staleness,
                   "GST: recompute historical embeddings older than N steps (default 0: always; -1: never)")
      ->check(CLI::Range(-1, 100000000));
  train_command
      ->add_option("--finetune-steps", train.train.segments.finetune_steps,
                   "GST: head finetuning steps after the last epoch (default: steps per epoch)")
      ->check(CLI::Range(0, 10000000));
  train_command
      ->add_option("--stop-after-epoch", train.stop_after_epoch,
                   "stop once this epoch's checkpoint is written (a batch job's time slice); --resume continues")
      ->check(CLI::PositiveNumber);
  train_command->add_option("--cache", train.train.cache,
                            "config store folder: layout files are prepared there on first use and their configs read per step "
                            "(graphcost prepare; bounded memory)");
  train_command->add_flag("--fit-configs-per-step", train.train.fit_configs_per_step,
                          "with --memory-budget: lower --configs-per-step to the most that fit instead of refusing");
  train_command->add_option("--memory-budget", train.memory_budget,
                            "peak memory to stay under, e.g. 256MiB or 4GiB: refused up front when the estimate exceeds it");
  train_command
      ->add_option("--valid-configs", train.train.valid_configs,
                   "validate on at most N configs per graph, a fixed sample (default: all; 1000 with --cache)")
      ->check(CLI::Range(2, 100000000));
  train_command->add_flag("-q,--quiet", train.quiet, "no progress on stderr");
  return train_command;
}

CLI::App* add_prepare_command(CLI::App& app, graphcost::PrepareCommandOptions& prepare) {
  CLI::App* prepare_command = app.add_subcommand(
      "prepare", "Prepare layout files' configs into a config store (int8, deduplicated, memory-mapped) for train --cache");
  prepare_command->add_option("--data", prepare.data, "npz tree")->required();
  prepare_command->add_option("--cache", prepare.cache, "config store folder (created; current entries are kept)")->required();
  prepare_command->add_option("--collection", prepare.collection, "layout collection(s), comma list (default: all four)")
      ->check(collection_list);
  prepare_command->add_option("--split", prepare.split, "split(s) (default train,valid,test)");
  prepare_command->add_option("--memory-budget", prepare.memory_budget, "inflate at most this much at once, e.g. 256MiB");
  prepare_command->add_flag("-q,--quiet", prepare.quiet, "no progress on stderr");
  return prepare_command;
}

CLI::App* add_predict_command(CLI::App& app, graphcost::PredictCommandOptions& predict) {
  CLI::App* predict_command = app.add_subcommand("predict", "Rank every config of a split and write a Kaggle submission");
  predict_command->add_option("--model", predict.models, "model file(s), one per collection or kind")->required();
  predict_command->add_option("--data", predict.data, "npz tree")->required();
  predict_command->add_option("--split", predict.split, "split(s) (default test)");
  predict_command->add_option("--out", predict.out, "submission CSV")->required();
  predict_command->add_option("--costs", predict.costs_out, "also write every config's predicted cost (CSV ID,config,cost)");
  predict_command->add_option("--threads", predict.threads, "worker threads for layout ranking (default 2)")->check(CLI::Range(1, 256));

  // `draw` was called `layout` before "layout" came to mean TPU tensor layouts only; the old name stays
  // as an alias.
  return predict_command;
}

CLI::App* add_draw_command(CLI::App& app, graphcost::DrawCommandOptions& draw) {
  CLI::App* draw_command =
      app.add_subcommand("draw", "Draw a graph in layers (as the browser app draws it); time it; export node positions");
  draw_command->alias("layout");
  draw_command->add_option("path", draw.path, "a TpuGraphs .npz file, or HLO text (.hlo/.txt: imported on the fly)")->required();
  draw_command->add_option("--out", draw.out, "CSV of node,layer,position,x,y,stub");
  draw_command->add_option("--repeat", draw.repeat, "runs to time (median printed; default 1)")->check(CLI::Range(1, 1000));
  draw_command->add_flag("-q,--quiet", draw.quiet, "no progress on stderr");
  return draw_command;
}

CLI::App* add_import_command(CLI::App& app, graphcost::ImportCommandOptions& import) {
  CLI::App* import_command = app.add_subcommand(
      "import", "Import an XLA HLO text module (.hlo/.txt dump) as a TpuGraphs graph: layout configs to rank, or tile kernels");
  import_command->add_option("module", import.module, "HLO text (XLA_FLAGS=--xla_dump_to=DIR, or jax's .as_text(dialect=\"hlo\"))")
      ->required();
  import_command->add_option("--out", import.out, "layout: the .npz to write; tile: a folder for one .npz per fusion")->required();
  graphcost::add_named_option(import_command, "--kind", import.kind, graphcost::graph_kind_names(),
                              "layout (the whole program, default) or tile (one kernel per fusion of a post-optimization module)");
  import_command
      ->add_option(
          "--configs", import.configs,
          "layout: random configs beside config 0, the module's own layouts (default 100); tile: at most N per kernel (default 1000)")
      ->check(CLI::Range(0, 1000000));
  graphcost::add_seed_option(import_command, import.seed, "seed of the random configs");
  import_command->add_flag("-q,--quiet", import.quiet, "no timings or per-file lines on stderr");
  return import_command;
}

CLI::App* add_simulate_command(CLI::App& app, graphcost::SimulateCommandOptions& simulate) {
  CLI::App* simulate_command = app.add_subcommand(
      "simulate", "Price every config of a file with the cost simulator (gen's labeller); on measured files, its tau and top-5 slowdown");
  simulate_command->add_option("paths", simulate.paths,
                               "layout or tile .npz files, or modules (HLO text, protos, tuning records: imported on the fly)");
  simulate_command->add_option("--out", simulate.out,
                               "CSV of every config: file, config, simulated_seconds, measured; with --gemm, the rows with predicted_s");
  simulate_command->add_option(
      "--hardware", simulate.hardware,
      "the simulator's constants: nominal (default, what gen labels with), tpu-v5e, tpu-v6e, or a JSON file of {\"field\": number}");
  simulate_command->add_flag("--json", simulate.json, "print JSON instead of text");
  simulate_command->add_option("--gemm", simulate.gemm,
                               "a CSV of matrix multiplications (M,N,K,dtype[,median_s][,family]) to price instead of files");
  simulate_command->add_flag("--fit", simulate.fit,
                             "with --gemm: fit the profile's efficiencies to the rows, and show how they hold on rows left out");
  return simulate_command;
}

CLI::App* add_rank_command(CLI::App& app, graphcost::RankCommandOptions& rank) {
  CLI::App* rank_command = app.add_subcommand("rank", "Rank one graph's configs with a model: the best K, predicted costs and speedups");
  rank_command->add_option("path", rank.path, "an .npz, or HLO text (.hlo/.txt: imported on the fly)")->required();
  rank_command
      ->add_option("--model", rank.model,
                   "model file (models/layout_xla.npz, ...) or a learner file tune --model-out wrote for this program")
      ->required();
  rank_command->add_option("--top", rank.top, "configs to list (default 10)")->check(CLI::Range(1, 100000000));
  rank_command->add_option("--threads", rank.threads, "worker threads (default 2)")->check(CLI::Range(1, 256));
  rank_command->add_flag("--json", rank.json, "print JSON instead of text");
  return rank_command;
}

CLI::App* add_search_command(CLI::App& app, graphcost::SearchCommandOptions& search) {
  CLI::App* search_command =
      app.add_subcommand("search", "Search better layouts with a model (greedy, from the best listed config) and write them");
  search_command->add_option("path", search.path, "a layout .npz, or HLO text (.hlo/.txt: imported on the fly)")->required();
  search_command->add_option("--model", search.model, "layout model file")->required();
  search_command->add_option("--out", search.out,
                             "write the input's configs plus the found one here (.npz), or, for HLO text, the module with the found "
                             "config's layouts written in (.hlo/.txt)");
  search_command->add_option("--rounds", search.rounds, "greedy rounds (default 8)")->check(CLI::Range(1, 1000));
  search_command->add_option("--candidates", search.candidates, "candidate rows per node (default 6)")->check(CLI::Range(1, 1000));
  search_command->add_flag("-q,--quiet", search.quiet, "no progress on stderr");
  return search_command;
}

CLI::App* add_evaluate_command(CLI::App& app, graphcost::EvaluateCommandOptions& evaluate) {
  CLI::App* evaluate_command = app.add_subcommand("evaluate-model", "Validation metric of a model on its collection");
  evaluate_command->add_option("--model", evaluate.model, "model file")->required();
  evaluate_command->add_option("--data", evaluate.data, "npz tree")->required();
  evaluate_command->add_option("--split", evaluate.split, "split(s) (default valid)");
  evaluate_command->add_option("--collection", evaluate.collection, "collection(s) to score on (default: the model's own)")
      ->check(collection_list);
  return evaluate_command;
}

CLI::App* add_calibrate_command(CLI::App& app, graphcost::CalibrateCommandOptions& calibrate) {
  CLI::App* calibrate_command =
      app.add_subcommand("calibrate", "Fit how a model's predicted costs map to runtimes (the predicted speedups) on labelled graphs");
  calibrate_command->add_option("--model", calibrate.model, "model file")->required();
  calibrate_command->add_option("--data", calibrate.data, "npz tree")->required();
  calibrate_command->add_option("--split", calibrate.split, "split(s) (default valid)");
  calibrate_command->add_option("--collection", calibrate.collection, "collection(s) (default: the model's own)")->check(collection_list);
  calibrate_command->add_option("--out", calibrate.out, "write the calibrated model here (default: in place)");
  return calibrate_command;
}

}  // namespace

int main(int argc, char** argv) {
  graphcost::keep_large_allocations_in_heap();
  CLI::App app{"graphcost: learned cost models for ML compiler graphs (TpuGraphs format)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "graphcost 0.1.0");

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
  CLI::App* info_command = add_info_command(app, info);
  CLI::App* gen_command = add_gen_command(app, gen);
  CLI::App* train_command = add_train_command(app, train);
  CLI::App* prepare_command = add_prepare_command(app, prepare);
  CLI::App* predict_command = add_predict_command(app, predict);
  CLI::App* draw_command = add_draw_command(app, draw);
  CLI::App* import_command = add_import_command(app, import);
  CLI::App* rank_command = add_rank_command(app, rank);
  CLI::App* simulate_command = add_simulate_command(app, simulate);
  CLI::App* tune_command = graphcost::add_tune_command(app, tune);
  CLI::App* search_command = add_search_command(app, search);
  CLI::App* evaluate_command = add_evaluate_command(app, evaluate);
  CLI::App* calibrate_command = add_calibrate_command(app, calibrate);

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
