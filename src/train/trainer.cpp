#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "common/input_error.h"
#include "data/dataset_path.h"
#include "data/dataset_survey.h"
#include "data/graph_summary.h"
#include "metrics/ranking_metrics.h"
#include "nn/ops.h"
#include "nn/optimizer.h"

namespace graphcost {
namespace {

std::vector<double> targets(const TpuGraph& graph) {
  std::vector<double> y(graph.config_runtime_ns.size());
  for (size_t c = 0; c < y.size(); ++c) {
    y[c] = static_cast<double>(graph.config_runtime_ns[c]);
    if (graph.kind == GraphKind::Tile) y[c] /= static_cast<double>(graph.config_runtime_normalizers_ns[c]);
  }
  return y;
}

}  // namespace

std::vector<TpuGraph> load_collection(const std::string& data, const std::string& collection, const std::string& split) {
  std::vector<TpuGraph> graphs;
  for (const std::string& path : find_npz_files(data)) {
    const DatasetPath location = parse_dataset_path(path);
    if (location.collection == collection && split_in_list(location.split, split)) graphs.push_back(load_tpu_graph(path));
  }
  return graphs;
}

double evaluate_model(CostModel& model, const std::vector<const TpuGraph*>& graphs) {
  double total = 0;
  int counted = 0;
  for (const TpuGraph* graph : graphs) {
    if (graph->runtimes_hidden) continue;
    const std::vector<double> y = targets(*graph);
    if (y.size() < 2 || std::all_of(y.begin(), y.end(), [&](double v) { return v == y.front(); })) continue;
    const std::vector<float> cost = model.predict(model.prepare(*graph));
    std::vector<int32_t> order(cost.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return cost[static_cast<size_t>(a)] < cost[static_cast<size_t>(b)]; });
    total += graph->kind == GraphKind::Tile ? tile_score(y, order) : layout_kendall_tau(y, order);
    ++counted;
  }
  return counted > 0 ? total / counted : std::numeric_limits<double>::quiet_NaN();
}

TrainResult train_model(const TrainOptions& options, const TrainProgress& progress) {
  if (options.loss != "listmle" && options.loss != "hinge" && options.loss != "mse") {
    throw std::invalid_argument("unknown loss '" + options.loss + "' (listmle, hinge, mse)");
  }
  const std::vector<TpuGraph> train = load_collection(options.data, options.collection, options.train_split);
  const std::vector<TpuGraph> valid = load_collection(options.data, options.collection, options.valid_split);
  std::vector<const TpuGraph*> train_graphs, valid_graphs;
  for (const TpuGraph& g : train) {
    if (!g.runtimes_hidden && g.config_count >= 2) train_graphs.push_back(&g);
  }
  for (const TpuGraph& g : valid) valid_graphs.push_back(&g);
  if (train_graphs.empty()) {
    throw InputError(options.data, "collection " + options.collection + ", split " + options.train_split,
                     "labelled .npz files with at least 2 configs", "none found");
  }
  ModelConfig config = options.model;
  config.kind = options.collection == "tile:xla" ? "tile" : "layout";
  config.collection = options.collection;
  CostModel model(config, fit_feature_statistics(train_graphs));
  std::vector<PreparedGraph> prepared;
  std::vector<std::vector<int32_t>> candidates;
  std::vector<std::vector<double>> runtimes;
  for (const TpuGraph* g : train_graphs) {
    prepared.push_back(model.prepare(*g));
    candidates.push_back(distinct_config_indices(*g));
    runtimes.push_back(targets(*g));
  }
  nn::Adam adam(model.parameters(), nn::AdamOptions{options.learning_rate, 0.9f, 0.999f, 1e-8f, 0.0f, 1.0f});
  std::mt19937_64 random(config.seed + 17);
  TrainResult result;
  result.train_graphs = train_graphs.size();
  result.valid_graphs = valid_graphs.size();
  const int total_steps = options.epochs * options.steps_per_epoch;
  EpochReport start_report;
  start_report.valid_metric = evaluate_model(model, valid_graphs);
  if (progress && !progress(start_report, options.epochs)) return result;
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0;
    for (int step = 0; step < options.steps_per_epoch; ++step) {
      const size_t g = random() % prepared.size();
      std::vector<int32_t> pool = candidates[g];
      for (size_t i = pool.size(); i > 1; --i) std::swap(pool[i - 1], pool[random() % i]);
      pool.resize(std::min(pool.size(), static_cast<size_t>(options.configs_per_step)));
      if (pool.size() < 2) continue;
      std::vector<double> y;
      for (int32_t c : pool) y.push_back(runtimes[g][static_cast<size_t>(c)]);
      nn::Tape tape;
      const nn::Var cost = model.forward(tape, prepared[g], pool);
      nn::Var loss;
      if (options.loss == "listmle") {
        loss = nn::listmle_loss(cost, y);
      } else if (options.loss == "hinge") {
        loss = nn::pairwise_hinge_loss(cost, y);
      } else {
        // MSE on standardised log runtimes of the sample.
        nn::Matrix target(static_cast<Eigen::Index>(y.size()), 1);
        double mean = 0;
        for (double v : y) mean += std::log(v) / static_cast<double>(y.size());
        for (size_t i = 0; i < y.size(); ++i) target(static_cast<Eigen::Index>(i), 0) = static_cast<float>(std::log(y[i]) - mean);
        loss = nn::mse_loss(cost, target);
      }
      loss_sum += loss.value()(0, 0);
      tape.backward(loss);
      adam.step(nn::cosine_schedule((epoch - 1) * options.steps_per_epoch + step, total_steps, total_steps / 20, 0.05f));
    }
    EpochReport report;
    report.epoch = epoch;
    report.train_loss = loss_sum / std::max(1, options.steps_per_epoch);
    report.valid_metric = evaluate_model(model, valid_graphs);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.epochs.push_back(report);
    if (!options.out.empty()) model.save(options.out);  // checkpoint: the latest model
    if (progress && !progress(report, options.epochs)) break;
  }
  if (!options.out.empty() && result.epochs.empty()) model.save(options.out);
  return result;
}

}  // namespace graphcost
