#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "data/dataset_path.h"
#include "data/dataset_survey.h"
#include "data/graph_summary.h"
#include "io/npz_file.h"
#include "metrics/ranking_metrics.h"
#include "nn/ops.h"
#include "nn/optimizer.h"

namespace graphcost {

const NameTable<RankingLoss>& ranking_loss_names() {
  static const NameTable<RankingLoss> names = {{"listmle", RankingLoss::ListMle}, {"hinge", RankingLoss::Hinge}, {"mse", RankingLoss::Mse}};
  return names;
}

namespace {

// Every config of each graph.
std::vector<GraphConfigs> whole_graphs(const std::vector<const TpuGraph*>& graphs) {
  std::vector<GraphConfigs> all;
  for (const TpuGraph* graph : graphs) all.push_back({graph, {}});
  return all;
}

}  // namespace

std::vector<TpuGraph> load_collection(const std::string& data, const std::string& collection, const std::string& split) {
  std::vector<TpuGraph> graphs;
  for (const std::string& path : find_npz_files(data)) {
    const DatasetPath location = parse_dataset_path(path);
    if (split_in_list(location.collection, collection) && split_in_list(location.split, split)) graphs.push_back(load_tpu_graph(path));
  }
  return graphs;
}

namespace {

std::vector<int32_t> all_or(const TpuGraph& graph, const std::vector<int32_t>& configs) {
  if (!configs.empty()) return configs;
  std::vector<int32_t> all(static_cast<size_t>(graph.config_count));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

// A checkpoint is the model file plus the training state: "train_state_json" (epoch, Adam step
// count, the sampler's state) and Adam's moments as "train_state/m/<parameter>" and ".../v/...".
void save_checkpoint(CostModel& model, nn::Adam& adam, int epoch, const std::mt19937_64& sampler, const std::string& path) {
  std::ostringstream sampler_text;
  sampler_text << sampler;
  const std::string text = nlohmann::json{{"epoch", epoch}, {"adam_steps", adam.steps_taken()}, {"sampler", sampler_text.str()}}.dump();
  std::vector<std::pair<std::string, NpyArray>> extra;
  extra.emplace_back("train_state_json",
                     NpyArray::from_values<uint8_t>({static_cast<int64_t>(text.size())}, std::vector<uint8_t>(text.begin(), text.end())));
  const std::vector<nn::Parameter*> parameters = model.parameters();
  for (size_t i = 0; i < parameters.size(); ++i) {
    for (const auto& [prefix, moments] : {std::make_pair("m", &adam.first_moments()), std::make_pair("v", &adam.second_moments())}) {
      const nn::Matrix& moment = (*moments)[i];
      extra.emplace_back(
          std::string("train_state/") + prefix + "/" + parameters[i]->name,
          NpyArray::from_values<float>({moment.rows(), moment.cols()}, std::vector<float>(moment.data(), moment.data() + moment.size())));
    }
  }
  model.save(path, extra);
}

// Restores Adam and the sampler from checkpoint `path`; returns the epoch it ended.
int restore_checkpoint(CostModel& model, nn::Adam& adam, std::mt19937_64& sampler, const std::string& path) {
  const NpzFile npz = read_npz_file(path);
  const NpyArray* state_array = npz.find("train_state_json");
  if (state_array == nullptr)
    throw InputError(path, "train_state_json", "a training checkpoint (written by graphcost train)", "a model file without training state");
  const std::vector<uint8_t> bytes = state_array->to_vector<uint8_t>(path, "train_state_json");
  const nlohmann::json state = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (state.is_discarded() || !state.is_object() || !state.contains("epoch") || !state["epoch"].is_number_integer() ||
      !state.contains("adam_steps") || !state["adam_steps"].is_number_integer() || !state.contains("sampler") ||
      !state["sampler"].is_string()) {
    throw InputError(path, "train_state_json", "{epoch, adam_steps, sampler}",
                     bytes.size() > 80 ? "other JSON" : std::string(bytes.begin(), bytes.end()));
  }
  const std::vector<nn::Parameter*> parameters = model.parameters();
  for (size_t i = 0; i < parameters.size(); ++i) {
    for (const auto& [prefix, moments] : {std::make_pair("m", &adam.first_moments()), std::make_pair("v", &adam.second_moments())}) {
      const std::string name = std::string("train_state/") + prefix + "/" + parameters[i]->name;
      const NpyArray* array = npz.find(name);
      nn::Matrix& moment = (*moments)[i];
      if (array == nullptr || array->shape() != std::vector<int64_t>{moment.rows(), moment.cols()}) {
        throw InputError(path, name, "shape (" + std::to_string(moment.rows()) + ", " + std::to_string(moment.cols()) + ")",
                         array == nullptr ? "missing" : "shape " + array->shape_text());
      }
      const std::vector<float> values = array->to_vector<float>(path, name);
      moment = Eigen::Map<const nn::Matrix>(values.data(), moment.rows(), moment.cols());
    }
  }
  std::istringstream sampler_text(state["sampler"].get<std::string>());
  sampler_text >> sampler;
  if (!sampler_text) throw InputError(path, "train_state_json.sampler", "a mt19937_64 state", "unreadable text");
  adam.set_steps_taken(state["adam_steps"].get<int>());
  return state["epoch"].get<int>();
}

// A step's sample: up to `count` of `candidates` in a seeded random order (Fisher-Yates on the
// trainer's generator), with their runtimes in `y`.
std::vector<int32_t> sample_configs(const std::vector<int32_t>& candidates, const std::vector<double>& runtimes, size_t count,
                                    std::mt19937_64& random, std::vector<double>& y) {
  std::vector<int32_t> pool = candidates;
  for (size_t i = pool.size(); i > 1; --i) std::swap(pool[i - 1], pool[random() % i]);
  pool.resize(std::min(pool.size(), count));
  y.clear();
  for (int32_t c : pool) y.push_back(runtimes[static_cast<size_t>(c)]);
  return pool;
}

// The loss of one step: ListMLE, pairwise hinge, or MSE on the sample's standardised log runtimes.
nn::Var ranking_loss(RankingLoss loss, nn::Var cost, const std::vector<double>& y) {
  if (loss == RankingLoss::ListMle) return nn::listmle_loss(cost, y);
  if (loss == RankingLoss::Hinge) return nn::pairwise_hinge_loss(cost, y);
  nn::Matrix target(static_cast<Eigen::Index>(y.size()), 1);
  double mean = 0;
  for (double v : y) mean += std::log(v) / static_cast<double>(y.size());
  for (size_t i = 0; i < y.size(); ++i) target(static_cast<Eigen::Index>(i), 0) = static_cast<float>(std::log(y[i]) - mean);
  return nn::mse_loss(cost, target);
}

// GST's last phase: the backbone frozen, the head (head.*, out.*) trained on exact segment sums
// (cached per config: the frozen backbone makes them constant), then validated and reported.
void finetune_head(CostModel& model, std::vector<SegmentedGraph>& segmented, const std::vector<std::vector<int32_t>>& candidates,
                   const std::vector<std::vector<double>>& runtimes, const std::vector<GraphConfigs>& valid, const TrainOptions& options,
                   std::mt19937_64& random, TrainResult& result, const TrainProgress& progress) {
  const int steps = options.segments.finetune_steps < 0 ? options.steps_per_epoch : options.segments.finetune_steps;
  if (steps == 0) return;
  const auto start = std::chrono::steady_clock::now();
  std::vector<nn::Parameter*> head;
  for (nn::Parameter* parameter : model.parameters()) {
    if (parameter->name.rfind("head.", 0) == 0 || parameter->name.rfind("out.", 0) == 0) head.push_back(parameter);
  }
  nn::Adam adam(head, nn::AdamOptions{options.learning_rate, 0.9f, 0.999f, 1e-8f, 0.0f, 1.0f});
  for (SegmentedGraph& graph : segmented) graph.forget_history();
  double loss_sum = 0;
  for (int step = 0; step < steps; ++step) {
    const size_t g = random() % segmented.size();
    std::vector<double> y;
    const std::vector<int32_t> pool = sample_configs(candidates[g], runtimes[g], static_cast<size_t>(options.configs_per_step), random, y);
    nn::Tape tape;
    const nn::Var loss = ranking_loss(options.loss, segmented[g].frozen_backbone_cost(tape, model, pool), y);
    loss_sum += loss.value()(0, 0);
    tape.backward(loss);
    adam.step(nn::cosine_schedule(step, steps, steps / 20, 0.05f));
  }
  EpochReport report;
  report.epoch = options.epochs;
  report.head_finetuning = true;
  report.train_loss = loss_sum / steps;
  report.valid_metric = evaluate_model(model, valid);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.epochs.push_back(report);
  if (progress) progress(report, options.epochs);
}


}  // namespace

double ranking_metric(const TpuGraph& graph, const std::vector<int32_t>& configs, const std::vector<float>& cost) {
  const std::vector<int32_t> used = all_or(graph, configs);
  if (cost.size() != used.size()) {
    throw InternalError("ranking_metric: " + std::to_string(cost.size()) + " costs for " + std::to_string(used.size()) + " configs");
  }
  const std::vector<double> all_targets = config_ranking_targets(graph);
  std::vector<double> y;
  for (int32_t c : used) y.push_back(all_targets[static_cast<size_t>(c)]);
  std::vector<int32_t> order(cost.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return cost[static_cast<size_t>(a)] < cost[static_cast<size_t>(b)]; });
  return graph.kind == GraphKind::Tile ? tile_score(y, order) : layout_kendall_tau(y, order);
}

double evaluate_model(CostModel& model, const std::vector<GraphConfigs>& graphs) {
  double total = 0;
  int counted = 0;
  for (const GraphConfigs& item : graphs) {
    const TpuGraph& graph = *item.graph;
    if (graph.runtimes_hidden) continue;
    const std::vector<int32_t> used = all_or(graph, item.configs);
    const std::vector<double> y = config_ranking_targets(graph);
    if (used.size() < 2 || std::all_of(used.begin(), used.end(),
                                       [&](int32_t c) { return y[static_cast<size_t>(c)] == y[static_cast<size_t>(used.front())]; })) {
      continue;
    }
    total += ranking_metric(graph, used, model.predict(model.prepare(graph), used));
    ++counted;
  }
  return counted > 0 ? total / counted : std::numeric_limits<double>::quiet_NaN();
}

double evaluate_model(CostModel& model, const std::vector<const TpuGraph*>& graphs) { return evaluate_model(model, whole_graphs(graphs)); }

RuntimeCalibration fit_runtime_calibration(CostModel& model, const std::vector<GraphConfigs>& graphs) {
  double cross = 0, cost_square = 0, runtime_square = 0;
  RuntimeCalibration calibration;
  for (const GraphConfigs& item : graphs) {
    const TpuGraph& graph = *item.graph;
    if (graph.runtimes_hidden) continue;
    const std::vector<int32_t> used = all_or(graph, item.configs);
    const std::vector<double> y = config_ranking_targets(graph);
    std::vector<double> log_runtime;
    for (int32_t c : used) log_runtime.push_back(y[static_cast<size_t>(c)] > 0 ? std::log(y[static_cast<size_t>(c)]) : std::nan(""));
    if (used.size() < 2 || std::any_of(log_runtime.begin(), log_runtime.end(), [](double v) { return !std::isfinite(v); })) continue;
    const std::vector<float> cost = model.predict(model.prepare(graph), used);
    double mean_cost = 0, mean_runtime = 0;
    for (size_t i = 0; i < used.size(); ++i) mean_cost += cost[i], mean_runtime += log_runtime[i];
    mean_cost /= static_cast<double>(used.size());
    mean_runtime /= static_cast<double>(used.size());
    for (size_t i = 0; i < used.size(); ++i) {
      const double dc = cost[i] - mean_cost, dr = log_runtime[i] - mean_runtime;
      cross += dc * dr, cost_square += dc * dc, runtime_square += dr * dr;
    }
    calibration.configs += static_cast<int64_t>(used.size());
    ++calibration.graphs;
  }
  if (cost_square > 0 && runtime_square > 0 && cross > 0) {  // else not fitted (slope 0); the counts stay
    calibration.log_runtime_per_score = cross / cost_square;
    calibration.r2 = std::min(1.0, cross * cross / (cost_square * runtime_square));  // rounding can pass 1
  }
  return calibration;
}

RuntimeCalibration fit_runtime_calibration(CostModel& model, const std::vector<const TpuGraph*>& graphs) {
  return fit_runtime_calibration(model, whole_graphs(graphs));
}

TrainResult train_model(const TrainOptions& options, const TrainProgress& progress) {
  const std::vector<TpuGraph> train = load_collection(options.data, options.collection, options.train_split);
  const std::vector<TpuGraph> valid = load_collection(options.data, options.collection, options.valid_split);
  std::vector<const TpuGraph*> train_graphs;
  std::vector<GraphConfigs> train_items, valid_items;
  for (const TpuGraph& g : train) {
    if (!g.runtimes_hidden && g.config_count >= 2) {
      train_graphs.push_back(&g);
      train_items.push_back({&g, {}});
    }
  }
  for (const TpuGraph& g : valid) valid_items.push_back({&g, {}});
  if (train_graphs.empty()) {
    throw InputError(options.data, "collection " + options.collection + ", split " + options.train_split,
                     "labelled .npz files with at least 2 configs", "none found");
  }
  ModelConfig config = options.model;
  config.kind = collection_kind(options.collection);
  config.collection = options.collection;
  if (options.resume) {
    CostModel model = CostModel::load(options.out);
    if (model.config().collection != config.collection) {
      throw InputError(options.out, "model config.collection", config.collection, model.config().collection);
    }
    return fit_model(model, train_items, valid_items, options, progress);
  }
  CostModel model(config, fit_feature_statistics(train_graphs));
  return fit_model(model, train_items, valid_items, options, progress);
}

TrainResult fit_model(CostModel& model, const std::vector<GraphConfigs>& train, const std::vector<GraphConfigs>& valid,
                      const TrainOptions& options, const TrainProgress& progress) {
  std::vector<PreparedGraph> prepared;
  std::vector<std::vector<int32_t>> candidates;
  std::vector<std::vector<double>> runtimes;
  for (const GraphConfigs& item : train) {
    const TpuGraph& g = *item.graph;
    if (g.runtimes_hidden) continue;
    // Distinct configs only (duplicates would teach nothing and skew the sampling), restricted
    // to the allowed ones.
    std::vector<int32_t> distinct = distinct_config_indices(g);
    if (!item.configs.empty()) {
      std::vector<char> allowed(static_cast<size_t>(g.config_count), 0);
      for (int32_t c : item.configs) allowed[static_cast<size_t>(c)] = 1;
      distinct.erase(std::remove_if(distinct.begin(), distinct.end(), [&](int32_t c) { return !allowed[static_cast<size_t>(c)]; }),
                     distinct.end());
    }
    if (distinct.size() < 2) continue;
    prepared.push_back(model.prepare(g));
    candidates.push_back(std::move(distinct));
    runtimes.push_back(config_ranking_targets(g));
  }
  if (prepared.empty()) throw InputError("", "training graphs", "at least one with 2 distinct labelled configs", "none");
  nn::Adam adam(model.parameters(), nn::AdamOptions{options.learning_rate, 0.9f, 0.999f, 1e-8f, 0.0f, 1.0f});
  std::mt19937_64 random(model.config().seed + 17);
  TrainResult result;
  result.train_graphs = prepared.size();
  result.valid_graphs = valid.size();
  const int total_steps = options.epochs * options.steps_per_epoch;
  const int first_epoch = options.resume ? restore_checkpoint(model, adam, random, options.out) + 1 : 1;
  std::vector<SegmentedGraph> segmented;
  if (options.segments.segment_nodes > 0) {
    segmented.reserve(prepared.size());
    for (const PreparedGraph& graph : prepared) {
      segmented.emplace_back(graph, model.config().layers, options.segments, model.config().seed);
      result.segments += segmented.back().segment_count();
      result.halo_ratio += segmented.back().halo_ratio() / static_cast<double>(prepared.size());
      result.cut_edges += segmented.back().cut_edges();
    }
  }
  EpochReport start_report;
  start_report.epoch = first_epoch - 1;
  start_report.valid_metric = evaluate_model(model, valid);
  if (progress && !progress(start_report, options.epochs)) return result;
  for (int epoch = first_epoch; epoch <= options.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0;
    for (int step = 0; step < options.steps_per_epoch; ++step) {
      const size_t g = random() % prepared.size();
      std::vector<double> y;
      const std::vector<int32_t> pool =
          sample_configs(candidates[g], runtimes[g], static_cast<size_t>(options.configs_per_step), random, y);
      if (pool.size() < 2) continue;
      nn::Tape tape;
      const nn::Var cost = segmented.empty() ? model.forward(tape, prepared[g], pool) : segmented[g].cost(tape, model, pool, random);
      const nn::Var loss = ranking_loss(options.loss, cost, y);
      loss_sum += loss.value()(0, 0);
      tape.backward(loss);
      adam.step(nn::cosine_schedule((epoch - 1) * options.steps_per_epoch + step, total_steps, total_steps / 20, 0.05f));
    }
    EpochReport report;
    report.epoch = epoch;
    report.train_loss = loss_sum / std::max(1, options.steps_per_epoch);
    report.valid_metric = evaluate_model(model, valid);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.epochs.push_back(report);
    if (!options.out.empty()) save_checkpoint(model, adam, epoch, random, options.out);  // the latest model + training state
    if (progress && !progress(report, options.epochs)) break;
  }
  if (!segmented.empty() && !result.epochs.empty() && result.epochs.back().epoch == options.epochs) {
    finetune_head(model, segmented, candidates, runtimes, valid, options, random, result, progress);
    if (!options.out.empty()) save_checkpoint(model, adam, options.epochs, random, options.out);
  }
  for (const SegmentedGraph& graph : segmented) {
    result.segment_counters.fresh += graph.counters().fresh;
    result.segment_counters.stale += graph.counters().stale;
    result.segment_counters.dropped += graph.counters().dropped;
    result.segment_counters.filled += graph.counters().filled;
  }
  if (!result.epochs.empty() && result.epochs.back().epoch == options.epochs) {
    // Trained to the end: calibrate costs to runtimes on the validation graphs (the training
    // graphs when none are labelled), saved with the last checkpoint.
    RuntimeCalibration calibration = fit_runtime_calibration(model, valid);
    if (calibration.graphs == 0) calibration = fit_runtime_calibration(model, train);
    model.set_calibration(calibration);
    result.calibration = calibration;
    if (!options.out.empty()) save_checkpoint(model, adam, options.epochs, random, options.out);
  }
  if (!options.out.empty() && result.epochs.empty() && !options.resume) save_checkpoint(model, adam, 0, random, options.out);
  return result;
}

}  // namespace graphcost
