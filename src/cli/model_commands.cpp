#include "cli/model_commands.h"

#include <chrono>
#include <cstdio>
#include <numeric>

#include "cli_options/collection_option.h"
#include "cli_options/named_option.h"
#include "cli_options/seed_option.h"
#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/memory_limit.h"
#include "common/process_memory.h"
#include "data/collection_files.h"
#include "data/dataset_path.h"
#include "data/dataset_survey.h"
#include "metrics/ranking_metrics.h"
#include "scoring/submission.h"
#include "train/data_parallel.h"

namespace graphcost {
namespace {

// One line on a model's runtime calibration.
std::string describe(const RuntimeCalibration& c) {
  if (!c.fitted()) return "runtime calibration: none (no labelled graph where predicted costs rise with runtimes)";
  char text[256];
  std::snprintf(text, sizeof text,
                "runtime calibration: log runtime = %.4g x cost + c per graph (R^2 %.3f over %lld configs in %lld graphs)",
                c.log_runtime_per_score, c.r2, static_cast<long long>(c.configs), static_cast<long long>(c.graphs));
  if (!c.knows_its_range()) return text;
  char range[200];
  if (c.too_wide_for_figures()) {
    std::snprintf(range, sizeof range, "; residual sd %.3g: too wide for any speedup figure (none is given)", c.residual_sd);
  } else {
    std::snprintf(range, sizeof range, "; residual sd %.3g; speedups given within a cost gap of %.4g on graphs of %lld to %lld nodes",
                  c.residual_sd, c.cost_range, static_cast<long long>(c.nodes_min / 2), static_cast<long long>(2 * c.nodes_max));
  }
  return text + std::string(range);
}

}  // namespace

int run_train_command(const TrainCommandOptions& given) {
  TrainCommandOptions options = given;
  if (!options.memory_budget.empty()) options.train.memory_budget = parse_byte_size(options.memory_budget, "--memory-budget");
  const auto start = std::chrono::steady_clock::now();
  const bool layout = collection_kind(options.train.collection) == GraphKind::Layout;
  const char* metric = layout ? "valid tau" : "valid tile score";
  int first_report = -1;  // the epoch training starts from (0, or the checkpoint's when resuming)
  const TrainProgress progress = [&](const EpochReport& report, int epochs) {
    const bool go_on = options.stop_after_epoch <= 0 || report.head_finetuning || report.epoch < options.stop_after_epoch;
    if (!go_on && !options.quiet) std::fprintf(stderr, "stopping after epoch %d as asked: --resume continues\n", report.epoch);
    if (options.quiet || !go_on) return go_on;
    if (first_report < 0) first_report = report.epoch;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const int done = report.epoch - first_report;
    const double eta = done > 0 ? elapsed / done * (epochs - report.epoch) : 0;
    if (report.head_finetuning) {
      std::fprintf(stderr, "head finetuning  loss %.4f  %s %s  %.1fs\n", report.train_loss, metric,
                   std::isnan(report.valid_metric) ? "-" : std::to_string(report.valid_metric).substr(0, 7).c_str(), report.seconds);
      return true;
    }
    char imbalance[48] = "";
    if (report.step_imbalance > 0) std::snprintf(imbalance, sizeof imbalance, "  step imbalance %.2f", report.step_imbalance);
    char steps[48] = "";  // the epoch's training steps alone (the elapsed time includes validation)
    if (report.epoch > 0) std::snprintf(steps, sizeof steps, " (steps %.2fs)", report.step_seconds);
    std::fprintf(stderr, "epoch %3d/%d  loss %.4f  %s %s  %.1fs%s  ETA %.0fs%s\n", report.epoch, epochs, report.train_loss, metric,
                 std::isnan(report.valid_metric) ? "-" : std::to_string(report.valid_metric).substr(0, 7).c_str(), elapsed, steps, eta,
                 imbalance);
    return true;
  };
  const DataParallel& world = DataParallel::world();
  if (world.root() && world.ranks() > 1 && !options.quiet) {
    std::fprintf(stderr, "data-parallel training: %d processes (MPI), %d graphs per step\n", world.ranks(), training_shards(options.train));
  }
  TrainOptions train = options.train;
  if (!options.quiet && world.root()) {
    train.on_prepare = [](size_t done, size_t total, const std::string& file, int64_t configs, int64_t distinct, bool reused) {
      if (!reused)
        std::fprintf(stderr, "config store %zu/%zu: %s (%lld configs, %lld distinct)\n", done, total, file.c_str(),
                     static_cast<long long>(configs), static_cast<long long>(distinct));
    };
  }
  const TrainResult result = train_model(train, progress);
  if (!world.root()) return 0;  // rank 0 reports and has written the model
  std::printf("trained on %zu graphs (%zu validation) -> %s\n", result.train_graphs, result.valid_graphs, options.train.out.c_str());
  if (result.configs_per_step > 0 && result.configs_per_step != options.train.configs_per_step) {
    std::printf("configs per step: %d (lowered from %d to fit the memory budget)\n", result.configs_per_step,
                options.train.configs_per_step);
  }
  if (result.segments > 0) {
    const SegmentCounters& c = result.segment_counters;
    std::printf("graph segment training: %zu segments (%s, halo x%.2f, %lld cut edges); %lld fresh, %lld stale, %lld dropped, %lld fills\n",
                result.segments, name_of(partition_method_names(), options.train.segments.partition).c_str(), result.halo_ratio,
                static_cast<long long>(result.cut_edges), static_cast<long long>(c.fresh), static_cast<long long>(c.stale),
                static_cast<long long>(c.dropped), static_cast<long long>(c.filled));
  }
  if (!result.epochs.empty()) {
    const EpochReport& last = result.epochs.back();
    std::printf("final: loss %.4f, %s %s\n", last.train_loss, metric,
                std::isnan(last.valid_metric) ? "- (no labelled validation graphs)" : std::to_string(last.valid_metric).c_str());
    double epoch_seconds = 0;
    int counted = 0;
    for (const EpochReport& report : result.epochs) {
      if (report.head_finetuning) continue;
      epoch_seconds += report.seconds;
      ++counted;
    }
    if (counted > 0) std::printf("mean epoch time %.2f s (training steps + validation)\n", epoch_seconds / counted);
  }
  if (!result.epochs.empty() && result.epochs.back().epoch == options.train.epochs)
    std::printf("%s\n", describe(result.calibration).c_str());
  const double peak_mib = peak_resident_mib();
  if (peak_mib > 0 && options.train.memory_budget > 0) {
    std::printf("peak resident memory %.0f MiB (budget %s)\n", peak_mib, format_byte_size(options.train.memory_budget).c_str());
  } else if (peak_mib > 0) {
    std::printf("peak resident memory %.0f MiB\n", peak_mib);
  }
  return 0;
}

int run_predict_command(const PredictCommandOptions& options) {
  std::vector<CostModel> models;
  for (const std::string& path : options.models) models.push_back(CostModel::load(path));
  auto model_for = [&](const std::string& collection) -> CostModel* {
    for (CostModel& m : models) {
      if (split_in_list(collection, m.config().collection)) return &m;
    }
    const GraphKind kind = collection_kind(collection);
    for (CostModel& m : models) {
      if (m.config().kind == kind) return &m;
    }
    return nullptr;
  };
  std::vector<SubmissionRow> rows;
  const std::vector<SplitFile> files = find_split_files(options.data, options.split);
  std::vector<std::string> inputs = options.models;
  for (const SplitFile& file : files) inputs.push_back(file.path);
  check_output_path(options.out, inputs);
  if (!options.costs_out.empty()) check_output_path(options.costs_out, inputs);
  std::string costs_csv = "ID,config,cost\n";
  size_t done = 0;
  for (const auto& [path, location] : files) {
    CostModel* model = model_for(location.collection);
    if (model == nullptr) {
      throw InputError(path, "collection " + location.collection, "a --model trained for it (or for its kind)", "none given");
    }
    const TpuGraph graph = load_tpu_graph(path);
    const std::vector<float> cost = model->predict(model->prepare(graph), options.batch, options.threads);
    for (size_t i = 0; i < cost.size(); ++i) {
      if (!std::isfinite(cost[i])) {
        throw InputError(path, "predicted cost of config " + std::to_string(i),
                         "a finite number (values in the file or the model out of range)", std::to_string(cost[i]));
      }
    }
    const std::vector<int32_t> order = order_by_cost(cost);
    rows.push_back({location.kaggle_id(), order});
    if (!options.costs_out.empty()) {
      char number[32];
      for (size_t i = 0; i < cost.size(); ++i) {
        std::snprintf(number, sizeof number, "%.9g", static_cast<double>(cost[i]));  // float round-trips exactly
        costs_csv += location.kaggle_id() + "," + std::to_string(i) + "," + number + "\n";
      }
    }
    std::fprintf(stderr, "\rpredict: %zu files", ++done);
  }
  std::fprintf(stderr, "\n");
  if (rows.empty()) throw InputError(options.data, "split " + options.split, "TpuGraphs .npz files", "none found");
  write_submission_file(options.out, rows);
  std::printf("wrote %s: %zu rows\n", options.out.c_str(), rows.size());
  if (!options.costs_out.empty()) {
    write_file_atomically(options.costs_out, costs_csv, inputs);
    std::printf("wrote %s: the predicted cost of every config\n", options.costs_out.c_str());
  }
  return 0;
}

namespace {

// A model file and the graphs of a collection (`collection`, or the model's own) and split.
struct ModelAndGraphs {
  CostModel model;
  std::string collection;
  std::vector<TpuGraph> graphs;
  std::vector<const TpuGraph*> pointers() const {
    std::vector<const TpuGraph*> result;
    for (const TpuGraph& g : graphs) result.push_back(&g);
    return result;
  }
};

ModelAndGraphs load_model_and_graphs(const std::string& model_path, const std::string& data, const std::string& collection,
                                     const std::string& split) {
  CostModel model = CostModel::load(model_path);
  const std::string chosen = collection.empty() ? model.config().collection : collection;
  std::vector<TpuGraph> graphs = load_collection(data, chosen, split);
  return {std::move(model), chosen, std::move(graphs)};
}

}  // namespace

int run_evaluate_model_command(const EvaluateCommandOptions& options) {
  ModelAndGraphs loaded = load_model_and_graphs(options.model, options.data, options.collection, options.split);
  const double metric = evaluate_model(loaded.model, loaded.pointers());
  std::printf("%s on %s (%zu graphs, split %s): %s %s\n", options.model.c_str(), loaded.collection.c_str(), loaded.graphs.size(),
              options.split.c_str(), loaded.model.config().kind == GraphKind::Tile ? "mean tile score" : "mean Kendall tau-b",
              std::isnan(metric) ? "- (no labelled graphs)" : std::to_string(metric).c_str());
  return 0;
}

int run_calibrate_command(const CalibrateCommandOptions& options) {
  ModelAndGraphs loaded = load_model_and_graphs(options.model, options.data, options.collection, options.split);
  CostModel& model = loaded.model;
  const RuntimeCalibration calibration = fit_runtime_calibration(model, loaded.pointers());
  std::printf("%s on %s (%zu files, split %s): %s\n", options.model.c_str(), loaded.collection.c_str(), loaded.graphs.size(),
              options.split.c_str(), describe(calibration).c_str());
  if (!calibration.fitted())
    throw InputError(options.data, "labelled graphs", "configs to calibrate the model on (nothing written)", "none usable");
  model.set_calibration(calibration);
  const std::string out = options.out.empty() ? options.model : options.out;
  // Everything else the file holds (a checkpoint's training state) is kept, so --resume still works.
  std::vector<std::pair<std::string, NpyArray>> kept;
  for (const auto& [name, array] : read_npz_file(options.model).arrays) {
    if (name != "model_json" && name.rfind("param/", 0) != 0) kept.emplace_back(name, array);
  }
  model.save(out, kept);  // atomic: the model file is never half-written
  std::printf("wrote %s\n", out.c_str());
  return 0;
}

CLI::App* add_train_command(CLI::App& app, TrainCommandOptions& train) {
  // The options' ranges are TrainOptions::check's (the library's, shared with Python), not CLI11 checks.
  CLI::App* train_command = app.add_subcommand("train", "Train a GNN cost model on one collection's labelled files");
  train_command->add_option("--data", train.train.data, "npz tree")->required();
  train_command
      ->add_option("--collection", train.train.collection, "tile:xla, layout:xla:random, ... or a comma list of layout collections")
      ->required()
      ->check(collection_list_check);
  train_command->add_option("--out", train.train.out, "model file to write (.npz; rewritten after every epoch)")->required();
  train_command->add_flag("--resume", train.train.resume,
                          "continue from the checkpoint in --out (model, optimizer, sampler, epoch); e.g. after Ctrl-C");
  train_command->add_option("--train-split", train.train.train_split, "split(s) to train on")->capture_default_str();
  train_command->add_option("--valid-split", train.train.valid_split, "split(s) to validate on")->capture_default_str();
  train_command->add_option("--epochs", train.train.epochs, "epochs")->capture_default_str();
  train_command->add_option("--steps-per-epoch", train.train.steps_per_epoch, "steps per epoch")->capture_default_str();
  train_command->add_option("--graphs-per-step", train.train.graphs_per_step,
                            "graphs per step, their gradients averaged (default: one per process; mpirun -np N: a multiple of N)");
  train_command->add_flag(
      "--independent-graphs", [&train](int64_t) { train.train.balance_graph_sizes = false; },
      "with several graphs per step, each draws its graph on its own (default: all draw graphs of the same size rank among their own, "
      "so no process's step waits long for another's)");
  train_command->add_option("--configs-per-step", train.train.configs_per_step, "configs per step")->capture_default_str();
  // An architecture flag given with --resume must agree with the checkpoint (TrainOptions::architecture_given).
  const auto given = [&train](const char* field) {
    return [&train, field](const std::string&) { train.train.architecture_given.push_back(field); };
  };
  add_named_option(train_command, "--aggregation", train.train.model.aggregation, aggregation_names(),
                   "how a node combines its neighbours in each message layer: mean, max or sum")
      ->each(given("aggregation"));
  add_named_option(train_command, "--loss", train.train.loss, ranking_loss_names(),
                   "listmle, hinge, gap-margin (hinge with the log-runtime gap as margin) or mse");
  train_command->add_option("--learning-rate", train.train.learning_rate, "Adam learning rate")->capture_default_str();
  train_command->add_option("--hidden", train.train.model.hidden, "hidden width")->capture_default_str()->each(given("hidden"));
  train_command->add_option("--layers", train.train.model.layers, "GraphSAGE layers")->capture_default_str()->each(given("layers"));
  train_command->add_option("--hops", train.train.model.hops, "layout pruning: k hops around configurable nodes, -1 for none")
      ->capture_default_str()
      ->each(given("hops"));
  add_seed_option(train_command, train.train.model.seed, "seed: same seed, same model");
  train_command->add_option("--init", train.train.init,
                            "start from this model's weights (its architecture and feature statistics; fresh optimizer): a warm start, "
                            "as tune --init model does");
  train_command
      ->add_flag("--cross-config-attention", train.train.model.cross_config_attention,
                 "attention across a batch's configs in every layer (predictions then rank in chunks of 128 configs)")
      ->each(given("cross_config_attention"));
  train_command
      ->add_flag("--relative-configs", train.train.model.relative_configs,
                 "layout: read each node's values relative to its most common row in the file (a second embedding for changed nodes)")
      ->each(given("relative_configs"));
  train_command
      ->add_option("--segment-nodes", train.train.segments.segment_nodes,
                   "Graph Segment Training: segments of about N nodes (0: whole graphs)")
      ->capture_default_str();
  add_named_option(train_command, "--partition", train.train.segments.partition, partition_method_names(),
                   "GST segments: metis or contiguous");
  train_command->add_option("--segments-per-step", train.train.segments.segments_per_step, "GST: segments backpropagated per step")
      ->capture_default_str();
  train_command
      ->add_option("--stale-dropout", train.train.segments.stale_dropout, "GST: probability of dropping each historical segment embedding")
      ->capture_default_str();
  train_command
      ->add_option("--max-staleness", train.train.segments.max_staleness,
                   "GST: recompute historical embeddings older than N steps (0: always; -1: never)")
      ->capture_default_str();
  train_command->add_option("--finetune-steps", train.train.segments.finetune_steps,
                            "GST: head finetuning steps after the last epoch (default: steps per epoch)");
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

CLI::App* add_predict_command(CLI::App& app, PredictCommandOptions& predict) {
  CLI::App* predict_command = app.add_subcommand("predict", "Rank every config of a split and write a Kaggle submission");
  predict_command->add_option("--model", predict.models, "model file(s), one per collection or kind")->required();
  predict_command->add_option("--data", predict.data, "npz tree")->required();
  predict_command->add_option("--split", predict.split, "split(s)")->capture_default_str();
  predict_command->add_option("--out", predict.out, "submission CSV")->required();
  predict_command->add_option("--costs", predict.costs_out, "also write every config's predicted cost (CSV ID,config,cost)");
  predict_command->add_option("--threads", predict.threads, "worker threads for layout ranking")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));

  return predict_command;
}

CLI::App* add_evaluate_command(CLI::App& app, EvaluateCommandOptions& evaluate) {
  CLI::App* evaluate_command = app.add_subcommand("evaluate-model", "Validation metric of a model on its collection");
  evaluate_command->add_option("--model", evaluate.model, "model file")->required();
  evaluate_command->add_option("--data", evaluate.data, "npz tree")->required();
  evaluate_command->add_option("--split", evaluate.split, "split(s)")->capture_default_str();
  evaluate_command->add_option("--collection", evaluate.collection, "collection(s) to score on (default: the model's own)")
      ->check(collection_list_check);
  return evaluate_command;
}

CLI::App* add_calibrate_command(CLI::App& app, CalibrateCommandOptions& calibrate) {
  CLI::App* calibrate_command =
      app.add_subcommand("calibrate", "Fit how a model's predicted costs map to runtimes (the predicted speedups) on labelled graphs");
  calibrate_command->add_option("--model", calibrate.model, "model file")->required();
  calibrate_command->add_option("--data", calibrate.data, "npz tree")->required();
  calibrate_command->add_option("--split", calibrate.split, "split(s)")->capture_default_str();
  calibrate_command->add_option("--collection", calibrate.collection, "collection(s) (default: the model's own)")
      ->check(collection_list_check);
  calibrate_command->add_option("--out", calibrate.out, "write the calibrated model here (default: in place)");
  return calibrate_command;
}

}  // namespace graphcost
