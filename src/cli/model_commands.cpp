#include "cli/model_commands.h"

#include <chrono>
#include <cstdio>
#include <numeric>

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

}  // namespace graphcost
