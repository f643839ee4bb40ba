#include "train/training_loop.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "data/graph_summary.h"
#include "nn/ops.h"
#include "nn/optimizer.h"
#include "train/checkpoint.h"
#include "train/data_parallel.h"

namespace graphcost {
namespace {

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

// The loss of one step: ListMLE, pairwise hinge (fixed margin or log-runtime gap), or MSE on the sample's standardised log runtimes.
nn::Var ranking_loss(RankingLoss loss, nn::Var cost, const std::vector<double>& y) {
  if (loss == RankingLoss::ListMle) return nn::listmle_loss(cost, y);
  if (loss == RankingLoss::Hinge) return nn::pairwise_hinge_loss(cost, y);
  if (loss == RankingLoss::GapMargin) return nn::gap_margin_hinge_loss(cost, y);
  nn::Matrix target(static_cast<Eigen::Index>(y.size()), 1);
  double mean = 0;
  for (double v : y) mean += std::log(v) / static_cast<double>(y.size());
  for (size_t i = 0; i < y.size(); ++i) target(static_cast<Eigen::Index>(i), 0) = static_cast<float>(std::log(y[i]) - mean);
  return nn::mse_loss(cost, target);
}

// A graph's configs to train on: one per group of identical rows (duplicates teach nothing and
// would skew the sampling). With no list, every group's first config and its own ranking target
// (`graphcost train` on whole files). With a list (tune's measured configs), the groups are formed
// among the listed configs themselves, so a listed config whose row first appears at a config not
// listed is kept; its label is the mean of its group's listed targets (two measurements of one
// config, as a config store keeps the mean of copies).
struct LabelledDistinct {
  std::vector<int32_t> configs;
  std::vector<double> targets;  // indexed by config (the graph's), set for `configs`
};
LabelledDistinct labelled_distinct_configs(const TpuGraph& graph, const std::vector<int32_t>& allowed) {
  const std::vector<double> all_targets = config_ranking_targets(graph);
  if (allowed.empty()) return {distinct_config_indices(graph), all_targets};
  const std::vector<int32_t>& listed = allowed;
  const DistinctConfigs groups = group_identical_configs(graph, listed);
  std::vector<double> sum(groups.distinct.size(), 0.0);
  std::vector<int> copies(groups.distinct.size(), 0);
  LabelledDistinct out;
  out.configs.assign(groups.distinct.size(), -1);
  for (size_t i = 0; i < listed.size(); ++i) {
    const size_t slot = static_cast<size_t>(groups.slot[i]);
    if (out.configs[slot] < 0) out.configs[slot] = listed[i];
    sum[slot] += all_targets[static_cast<size_t>(listed[i])];
    ++copies[slot];
  }
  out.targets.assign(all_targets.size(), 0.0);
  for (size_t slot = 0; slot < out.configs.size(); ++slot) {
    out.targets[static_cast<size_t>(out.configs[slot])] = sum[slot] / copies[slot];
  }
  return out;
}

// Where a step's configs come from, chosen per graph before the loop.
class StepConfigs {
 public:
  virtual ~StepConfigs() = default;
  // Up to `count` configs drawn with `random` (indices into the prepared graph's configs), their
  // ranking targets in `y`.
  virtual std::vector<int32_t> draw(size_t count, std::mt19937_64& random, std::vector<double>& y) = 0;
};

// A graph's distinct configs (allowed ones only), held in memory with their targets.
class ConfigsInMemory final : public StepConfigs {
 public:
  ConfigsInMemory(std::vector<int32_t> candidates, std::vector<double> targets)
      : candidates_(std::move(candidates)), targets_(std::move(targets)) {}
  std::vector<int32_t> draw(size_t count, std::mt19937_64& random, std::vector<double>& y) override {
    return sample_configs(candidates_, targets_, count, random, y);
  }

 private:
  std::vector<int32_t> candidates_;
  std::vector<double> targets_;
};

// A config store (distinct already): a step's sample read into the graph as configs 0..k-1.
class ConfigsFromStore final : public StepConfigs {
 public:
  explicit ConfigsFromStore(StoredGraph& store) : store_(store) {}
  std::vector<int32_t> draw(size_t count, std::mt19937_64& random, std::vector<double>& y) override {
    const std::vector<int32_t> drawn = sample_indices(store_.config_count(), count, random);
    y.clear();
    for (int32_t c : drawn) y.push_back(store_.ranking_target(c));
    store_.select(drawn);
    std::vector<int32_t> pool(drawn.size());
    std::iota(pool.begin(), pool.end(), 0);
    return pool;
  }

 private:
  StoredGraph& store_;
};

struct TrainingGraph {
  PreparedGraph prepared;
  std::unique_ptr<StepConfigs> configs;
};

// GST's last phase: the backbone frozen, the head (head.*, out.*) trained on exact segment sums
// (cached per config: the frozen backbone makes them constant), then validated and reported.
void finetune_head(CostModel& model, std::vector<SegmentedGraph>& segmented, const std::vector<TrainingGraph>& graphs,
                   const std::vector<GraphConfigs>& valid, const TrainOptions& options, std::mt19937_64& random, TrainResult& result,
                   const TrainProgress& progress) {
  const int steps = options.segments.finetune_steps < 0 ? options.steps_per_epoch : options.segments.finetune_steps;
  if (steps == 0) return;
  const auto start = std::chrono::steady_clock::now();
  std::vector<nn::Parameter*> head;
  for (nn::Parameter* parameter : model.parameters()) {
    const HeadSpec& spec = model.architecture().head;
    for (const std::string* name : {&spec.weight, &spec.bias, &spec.out_weight, &spec.out_bias}) {
      if (parameter->name == *name) head.push_back(parameter);
    }
  }
  nn::Adam adam(head, nn::AdamOptions{options.learning_rate, 0.9f, 0.999f, 1e-8f, 0.0f, 1.0f});
  for (SegmentedGraph& graph : segmented) graph.forget_history();
  double loss_sum = 0;
  for (int step = 0; step < steps; ++step) {
    const size_t g = random() % segmented.size();
    std::vector<double> y;
    const std::vector<int32_t> pool = graphs[g].configs->draw(static_cast<size_t>(options.configs_per_step), random, y);
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

class ShardedFit {
 public:
  ShardedFit(CostModel& model, const std::vector<GraphConfigs>& valid, const TrainOptions& options, const TrainProgress& progress)
      : model_(model),
        valid_(valid),
        options_(options),
        progress_(progress),
        world_(DataParallel::world()),
        shard_count_(training_shards(options)),
        balanced_(shard_count_ > 1 && options.balance_graph_sizes),
        adam_(model.parameters(), nn::AdamOptions{options.learning_rate, 0.9f, 0.999f, 1e-8f, 0.0f, 1.0f}) {}

  TrainResult run(const std::vector<GraphConfigs>& train, const std::vector<int>& train_shards) {
    check_supported(train);
    gather(train, train_shards);
    start_samplers();
    choose_forward();
    EpochReport start_report;
    start_report.epoch = first_epoch_ - 1;
    start_report.valid_metric = world_.root() ? evaluate_model(model_, valid_) : std::nan("");
    if (!report_progress(start_report)) return std::move(result_);
    for (int epoch = first_epoch_; epoch <= options_.epochs; ++epoch) {
      const EpochReport report = run_epoch(epoch);
      result_.epochs.push_back(report);
      checkpoint(epoch);  // the latest model + training state
      if (!report_progress(report)) break;
    }
    finish(train);
    return std::move(result_);
  }

 private:
  void check_supported(const std::vector<GraphConfigs>& train) const {
    if (world_.ranks() > 1 && options_.segments.segment_nodes > 0) {
      throw InputError("", "graph segment training (segment nodes)", "a single process", std::to_string(world_.ranks()) + " processes");
    }
    // A relative_configs model (also one resumed from a checkpoint) needs each file's most common
    // config, found over all its configs; a store hands out a step's configs only.
    if (!model_.config().relative_configs) return;
    for (const std::vector<GraphConfigs>* items : {&train, &valid_}) {
      for (const GraphConfigs& item : *items) {
        if (item.stored != nullptr) {
          throw InputError(item.graph->source, "configs of a model with relative_configs", "held in memory (train without --cache)",
                           "a config store (not supported yet)");
        }
      }
    }
  }

  // This rank's training graphs, each with its config source, by shard.
  void gather(const std::vector<GraphConfigs>& train, const std::vector<int>& train_shards) {
    for (int shard = world_.rank(); shard < shard_count_; shard += world_.ranks()) shard_graphs_[shard];
    for (size_t item_index = 0; item_index < train.size(); ++item_index) {
      const GraphConfigs& item = train[item_index];
      const TpuGraph& g = *item.graph;
      if (g.runtimes_hidden) continue;
      std::unique_ptr<StepConfigs> configs;
      if (item.stored != nullptr) {  // distinct already; sampled per step from the whole store
        if (options_.segments.segment_nodes > 0) throw InternalError("fit_model: graph segment training over a config store");
        if (item.stored->config_count() < 2) continue;
        configs = std::make_unique<ConfigsFromStore>(*item.stored);
      } else {
        const LabelledDistinct distinct = labelled_distinct_configs(g, item.configs);
        if (distinct.configs.size() < 2) continue;
        result_.train_configs += distinct.configs.size();
        configs = std::make_unique<ConfigsInMemory>(distinct.configs, distinct.targets);
      }
      const int shard = train_shards[item_index];
      if (!shard_graphs_.count(shard)) throw InternalError("fit_model: a graph of shard " + std::to_string(shard) + " on another rank");
      shard_graphs_[shard].push_back(graphs_.size());
      graphs_.push_back({model_.prepare(g), std::move(configs)});
    }
    for (const auto& [shard, graphs] : shard_graphs_) {
      if (graphs.empty()) {
        throw InputError(
            "", shard_count_ == 1 ? "training graphs" : "training shard " + std::to_string(shard) + " of " + std::to_string(shard_count_),
            "at least one graph with 2 distinct labelled configs",
            shard_count_ == 1 ? "none" : "none (fewer usable training files than graphs per step?)");
      }
    }
    result_.train_graphs = graphs_.size();
    result_.valid_graphs = valid_.size();
    if (balanced_) {  // balanced draws: each shard's graphs by view rows, fewest first
      for (const auto& [shard, graphs] : shard_graphs_) {
        std::vector<size_t>& sorted = by_size_[shard] = graphs;
        std::stable_sort(sorted.begin(), sorted.end(),
                         [&](size_t a, size_t b) { return graphs_[a].prepared.view.size() < graphs_[b].prepared.view.size(); });
      }
    }
  }

  // One sampler per shard; shard 0's is the single-process trainer's, so one process with one
  // shard trains exactly as before data-parallel training existed. A resumed run restores them.
  void start_samplers() {
    for (const auto& [shard, graphs] : shard_graphs_)
      samplers_.emplace(shard, std::mt19937_64(model_.config().seed + 17 + static_cast<uint64_t>(shard)));
    if (!options_.resume) return;
    const RestoredState restored = restore_checkpoint(model_, adam_, samplers_, shard_count_, balanced_, options_.out);
    first_epoch_ = restored.epoch + 1;
    if (restored.samplers_restored) return;
    // Another number of graphs per step, or other draws, than the checkpoint's: the shards are not
    // the same, so their samplers start afresh, seeded by the epoch (the model and Adam carry on).
    for (auto& [shard, sampler] : samplers_)
      sampler.seed(model_.config().seed + 17 + static_cast<uint64_t>(shard) + 7919ull * first_epoch_);
    if (world_.root())
      std::fprintf(stderr, "resume: %d graphs per step, %s draws; the checkpoint had another count or draws: samplers reseeded\n",
                   shard_count_, balanced_ ? "balanced" : "independent");
  }

  // The forward pass, chosen once: whole graphs, or Graph Segment Training's segments.
  void choose_forward() {
    if (options_.segments.segment_nodes <= 0) {
      forward_ = [this](nn::Tape& tape, size_t g, const std::vector<int32_t>& pool, std::mt19937_64&) {
        return model_.forward(tape, graphs_[g].prepared, pool);
      };
      return;
    }
    segmented_.reserve(graphs_.size());
    for (const TrainingGraph& graph : graphs_) {
      segmented_.emplace_back(graph.prepared, model_.config().layers, options_.segments, model_.config().seed);
      result_.segments += segmented_.back().segment_count();
      result_.halo_ratio += segmented_.back().halo_ratio() / static_cast<double>(graphs_.size());
      result_.cut_edges += segmented_.back().cut_edges();
    }
    forward_ = [this](nn::Tape& tape, size_t g, const std::vector<int32_t>& pool, std::mt19937_64& random) {
      return segmented_[g].cost(tape, model_, pool, random);
    };
  }

  EpochReport run_epoch(int epoch) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<double> loss_sum = {0.0, 0.0};  // losses, graphs that gave one
    double imbalance_sum = 0;
    for (int step = 0; step < options_.steps_per_epoch; ++step) {
      const int global_step = (epoch - 1) * options_.steps_per_epoch + step;
      std::vector<float> shard_rows(shard_count_ > 1 ? static_cast<size_t>(shard_count_) : 0);  // the step's view rows per shard
      const bool contributed = run_step(global_step, loss_sum, shard_rows);
      if (shard_count_ == 1 && !contributed) continue;  // as the single-process trainer always did
      if (shard_count_ > 1) imbalance_sum += mean_gradients(shard_rows);
      const int total_steps = options_.epochs * options_.steps_per_epoch;
      adam_.step(nn::cosine_schedule(global_step, total_steps, total_steps / 20, 0.05f));
    }
    const double step_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    world_.sum(loss_sum);
    EpochReport report;
    report.step_seconds = step_seconds;
    report.epoch = epoch;
    report.train_loss = shard_count_ == 1 ? loss_sum[0] / std::max(1, options_.steps_per_epoch) : loss_sum[0] / std::max(1.0, loss_sum[1]);
    report.valid_metric = world_.root() ? evaluate_model(model_, valid_) : std::nan("");
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.step_imbalance = shard_count_ > 1 ? imbalance_sum / std::max(1, options_.steps_per_epoch) : 0.0;
    return report;
  }

  // Each of this rank's shards: a graph, a sample of its configs, the loss, its gradient (added to
  // every parameter's grad). False when no shard had 2 configs to rank.
  bool run_step(int global_step, std::vector<double>& loss_sum, std::vector<float>& shard_rows) {
    bool contributed = false;
    // The step's size rank in [0, 1): a function of the seed and the global step alone, the same
    // on every rank, with nothing to checkpoint (a resumed run with any process count agrees).
    const double size_rank = balanced_ ? step_size_rank(model_.config().seed, global_step) : 0.0;
    for (auto& [shard, graphs] : shard_graphs_) {
      std::mt19937_64& random = samplers_.at(shard);
      const size_t g =
          balanced_ ? by_size_.at(shard)[std::min(graphs.size() - 1, static_cast<size_t>(size_rank * static_cast<double>(graphs.size())))]
                    : graphs[random() % graphs.size()];
      std::vector<double> y;
      const std::vector<int32_t> pool = graphs_[g].configs->draw(static_cast<size_t>(options_.configs_per_step), random, y);
      if (pool.size() < 2) continue;
      if (!shard_rows.empty()) shard_rows[static_cast<size_t>(shard)] = static_cast<float>(graphs_[g].prepared.view.size());
      nn::Tape tape;
      const nn::Var loss = ranking_loss(options_.loss, forward_(tape, g, pool, random), y);
      loss_sum[0] += loss.value()(0, 0);
      loss_sum[1] += 1;
      tape.backward(loss);
      contributed = true;
    }
    return contributed;
  }

  // The mean gradient over the step's shards: summed across ranks, divided by their count. The
  // shards' rows ride along (each is nonzero on its own rank only). Returns the step's imbalance.
  double mean_gradients(const std::vector<float>& shard_rows) {
    const std::vector<nn::Parameter*> parameters = model_.parameters();
    gradients_.clear();
    for (const nn::Parameter* parameter : parameters)
      gradients_.insert(gradients_.end(), parameter->grad.data(), parameter->grad.data() + parameter->grad.size());
    gradients_.insert(gradients_.end(), shard_rows.begin(), shard_rows.end());
    world_.sum(gradients_);
    const auto rows_begin = gradients_.end() - static_cast<std::ptrdiff_t>(shard_count_);
    const double rows_mean = std::accumulate(rows_begin, gradients_.end(), 0.0) / static_cast<double>(shard_count_);
    const double imbalance = rows_mean > 0 ? *std::max_element(rows_begin, gradients_.end()) / rows_mean : 0.0;
    size_t offset = 0;
    for (nn::Parameter* parameter : parameters) {
      for (Eigen::Index k = 0; k < parameter->grad.size(); ++k)
        parameter->grad.data()[k] = gradients_[offset++] / static_cast<float>(shard_count_);
    }
    return imbalance;
  }

  std::map<int, std::string> sampler_states() const {  // every shard's sampler, gathered on rank 0
    std::map<int, std::string> states;
    nlohmann::json mine = nlohmann::json::object();
    for (const auto& [shard, sampler] : samplers_) {
      std::ostringstream text;
      text << sampler;
      mine[std::to_string(shard)] = text.str();
    }
    for (const std::string& part : world_.gather(mine.dump())) {
      const nlohmann::json parsed = nlohmann::json::parse(part);  // named: items() must not outlive it
      for (const auto& item : parsed.items()) states[std::stoi(item.key())] = item.value().get<std::string>();
    }
    return states;
  }

  void checkpoint(int epoch) {
    const std::map<int, std::string> states = sampler_states();  // every rank takes part
    if (world_.root() && !options_.out.empty()) save_checkpoint(model_, adam_, epoch, states, shard_count_, balanced_, options_.out);
  }

  // Rank 0 validates and reports; its answer (go on or stop) reaches every rank.
  bool report_progress(const EpochReport& report) {
    const bool go_on = world_.root() && progress_ ? progress_(report, options_.epochs) : true;
    return world_.broadcast(go_on);
  }

  // Trained to the end: GST's head finetuning, then the runtime calibration on the validation graphs
  // (the training graphs when none are labelled), saved with the last checkpoint.
  void finish(const std::vector<GraphConfigs>& train) {
    const bool completed = !result_.epochs.empty() && result_.epochs.back().epoch == options_.epochs;
    if (!segmented_.empty() && completed) {
      finetune_head(model_, segmented_, graphs_, valid_, options_, samplers_.at(0), result_, progress_);
      checkpoint(options_.epochs);
    }
    for (const SegmentedGraph& graph : segmented_) {
      result_.segment_counters.fresh += graph.counters().fresh;
      result_.segment_counters.stale += graph.counters().stale;
      result_.segment_counters.dropped += graph.counters().dropped;
      result_.segment_counters.filled += graph.counters().filled;
    }
    if (completed) {
      if (world_.root()) {  // rank 0's graphs only
        RuntimeCalibration calibration = fit_runtime_calibration(model_, valid_);
        if (calibration.graphs == 0) calibration = fit_runtime_calibration(model_, with_config_limit(train, validation_limit(options_)));
        model_.set_calibration(calibration);
        result_.calibration = calibration;
      }
      checkpoint(options_.epochs);
    }
    if (result_.epochs.empty() && !options_.resume) checkpoint(0);
  }

  CostModel& model_;
  const std::vector<GraphConfigs>& valid_;
  const TrainOptions& options_;
  const TrainProgress& progress_;
  const DataParallel& world_;
  const int shard_count_;
  const bool balanced_;  // draws at a shared size rank
  nn::Adam adam_;
  std::vector<TrainingGraph> graphs_;
  std::map<int, std::vector<size_t>> shard_graphs_;  // this rank's shards -> their graphs
  std::map<int, std::vector<size_t>> by_size_;       // balanced draws: each shard's graphs, fewest rows first
  std::map<int, std::mt19937_64> samplers_;
  std::vector<SegmentedGraph> segmented_;
  std::function<nn::Var(nn::Tape&, size_t, const std::vector<int32_t>&, std::mt19937_64&)> forward_;
  std::vector<float> gradients_;
  int first_epoch_ = 1;
  TrainResult result_;
};

}  // namespace

TrainResult fit_sharded(CostModel& model, const std::vector<GraphConfigs>& train, const std::vector<int>& train_shards,
                        const std::vector<GraphConfigs>& valid, const TrainOptions& options, const TrainProgress& progress) {
  return ShardedFit(model, valid, options, progress).run(train, train_shards);
}

}  // namespace graphcost
