#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "common/io_error.h"
#include "common/memory_limit.h"
#include "data/dataset_path.h"
#include "data/dataset_survey.h"
#include "data/graph_summary.h"
#include "io/npz_file.h"
#include "io/zip_archive.h"
#include "metrics/ranking_metrics.h"
#include "model/feature_encoder.h"
#include "model/layout_inference.h"
#include "nn/ops.h"
#include "nn/optimizer.h"
#include "train/checkpoint.h"
#include "train/data_parallel.h"
#include "train/memory_estimate.h"

namespace graphcost {

const NameTable<RankingLoss>& ranking_loss_names() {
  static const NameTable<RankingLoss> names = {
      {"listmle", RankingLoss::ListMle}, {"hinge", RankingLoss::Hinge}, {"gap-margin", RankingLoss::GapMargin}, {"mse", RankingLoss::Mse}};
  return names;
}

std::vector<std::string> collection_files(const std::string& data, const std::string& collection, const std::string& split) {
  std::vector<std::string> files;
  for (const std::string& path : find_npz_files(data)) {
    const DatasetPath location = parse_dataset_path(path);
    if (split_in_list(location.collection, collection) && split_in_list(location.split, split)) files.push_back(path);
  }
  return files;
}

std::vector<TpuGraph> load_collection(const std::string& data, const std::string& collection, const std::string& split) {
  std::vector<TpuGraph> graphs;
  for (const std::string& path : collection_files(data, collection, split)) graphs.push_back(load_tpu_graph(path));
  return graphs;
}

int validation_limit(const TrainOptions& options) {
  return options.valid_configs > 0 ? options.valid_configs : (options.cache.empty() ? 0 : 1000);
}

int training_shards(const TrainOptions& options) {
  const DataParallel& world = DataParallel::world();
  const int shards = options.graphs_per_step > 0 ? options.graphs_per_step : world.ranks();
  if (shards % world.ranks() != 0) {
    throw InputError("", "graphs per step", "a multiple of the " + std::to_string(world.ranks()) + " processes", std::to_string(shards));
  }
  return shards;
}

namespace {

// `count` of `total` configs drawn without replacement (a partial Fisher-Yates shuffle that keeps
// only the swapped positions: memory and time grow with `count`, not `total`), in draw order.
std::vector<int32_t> sample_indices(int32_t total, size_t count, std::mt19937_64& random) {
  const size_t k = std::min(count, static_cast<size_t>(std::max(total, 0)));
  std::unordered_map<int32_t, int32_t> moved;  // position -> the index now there, where it differs
  auto at = [&](int32_t position) {
    const auto found = moved.find(position);
    return found == moved.end() ? position : found->second;
  };
  std::vector<int32_t> drawn;
  drawn.reserve(k);
  for (size_t i = 0; i < k; ++i) {
    const int32_t position = static_cast<int32_t>(i), other = static_cast<int32_t>(i + random() % static_cast<uint64_t>(total - position));
    const int32_t here = at(position);
    drawn.push_back(at(other));
    moved[other] = here;
  }
  return drawn;
}

// The configs a validation or calibration uses of a graph with `total`: all when `limit` is 0 or
// not below it, else a sample seeded by `seed` (the same every epoch), ascending.
std::vector<int32_t> limited_configs(int32_t total, int limit, uint64_t seed) {
  if (limit <= 0 || total <= limit) {
    std::vector<int32_t> all(static_cast<size_t>(total));
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  std::mt19937_64 random(seed);
  std::vector<int32_t> sample = sample_indices(total, static_cast<size_t>(limit), random);
  std::sort(sample.begin(), sample.end());
  return sample;
}

// `items` with each graph's configs cut to at most `limit` (stored graphs always get a list).
std::vector<GraphConfigs> with_config_limit(std::vector<GraphConfigs> items, int limit) {
  for (size_t i = 0; i < items.size(); ++i) {
    GraphConfigs& item = items[i];
    if (!item.configs.empty()) continue;
    const int32_t total = item.stored != nullptr ? item.stored->config_count() : item.graph->config_count;
    if (item.stored != nullptr || (limit > 0 && total > limit)) item.configs = limited_configs(total, limit, 1000003ull + i);
  }
  return items;
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

namespace {
// fit_model over graphs whose training shards are given (train/data_parallel.h): train_model
// shards by file, fit_model by position.
TrainResult fit_sharded(CostModel& model, const std::vector<GraphConfigs>& train, const std::vector<int>& train_shards,
                        const std::vector<GraphConfigs>& valid, const TrainOptions& options, const TrainProgress& progress);
}  // namespace

double step_size_rank(uint64_t seed, int step) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(step) + 0x632BE59BD9B4E019ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

TrainResult train_model(const TrainOptions& options, const TrainProgress& progress) {
  const DataParallel& world = DataParallel::world();
  const int shards = training_shards(options);
  const bool use_cache = !options.cache.empty() && collection_kind(options.collection) == GraphKind::Layout;
  if (use_cache && options.segments.segment_nodes > 0) {
    throw InputError(options.cache, "graph segment training", "configs held in memory", "a config store (its configs are read per step)");
  }
  if (options.model.relative_configs && collection_kind(options.collection) != GraphKind::Layout) {
    throw InputError("", "--relative-configs", "a layout collection", "'" + options.collection + "'");
  }
  if (use_cache && options.model.relative_configs) {
    throw InputError(options.cache, "--relative-configs",
                     "configs held in memory (each file's most common config is found over all of them)",
                     "a config store (not supported yet)");
  }
  // This rank's training files: file i of the collection belongs to shard i % shards, and rank r
  // loads the shards s with s % ranks == r. Rank 0 alone loads the validation files. With several
  // shards and balanced draws the files are first ordered by the rows a step runs on (fewest
  // first), so every shard holds the same spread of sizes and the step's size rank finds a graph of
  // about the same size in each.
  std::vector<std::string> train_files, valid_files;
  std::vector<int> train_shard;
  std::vector<std::string> all_train_files = collection_files(options.data, options.collection, options.train_split);
  if (shards > 1 && options.balance_graph_sizes && all_train_files.size() > static_cast<size_t>(shards)) {
    // Rank 0 reads the sizes and every rank receives them (a sum with zeros elsewhere): the ranks
    // cannot deal the files differently, and only one reads every file's edges.
    std::vector<double> rows(all_train_files.size(), 0.0);
    if (world.root()) {
      const int hops = collection_kind(options.collection) == GraphKind::Layout
                           ? (options.resume ? CostModel::load(options.out).config().hops : options.model.hops)
                           : -1;
      for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<double>(step_rows(all_train_files[i], hops));
    }
    world.sum(rows);
    std::vector<size_t> order(all_train_files.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return rows[x] < rows[y]; });  // ties: path order
    std::vector<std::string> sorted;
    for (size_t i : order) sorted.push_back(all_train_files[i]);
    all_train_files = std::move(sorted);
  }
  for (size_t i = 0; i < all_train_files.size(); ++i) {
    const int shard = static_cast<int>(i % static_cast<size_t>(shards));
    if (shard % world.ranks() != world.rank()) continue;
    train_files.push_back(all_train_files[i]);
    train_shard.push_back(shard);
  }
  if (world.root()) valid_files = collection_files(options.data, options.collection, options.valid_split);
  if (options.memory_budget > 0) {
    // Validation's state tables (interned row states, layout_inference.cpp) get what the budget
    // leaves after everything else, at most their usual 128 MiB and at least a 24th of the budget;
    // with the slack of growing vectors they can take 3 times that (counted in the estimate). A
    // smaller table recomputes more, never changes a result.
    std::vector<std::string> held = train_files;
    held.insert(held.end(), valid_files.begin(), valid_files.end());
    // A resumed run trains the checkpoint's model: its widths and hops size the step.
    TrainOptions sized = options;
    if (options.resume) sized.model = CostModel::load(options.out).config();
    const size_t usual_tables = layout_state_memory();
    set_layout_state_memory(0);
    MemoryEstimate estimate;
    try {
      estimate = estimate_training_memory(held, sized);  // without the tables
    } catch (...) {
      set_layout_state_memory(usual_tables);
      throw;
    }
    const uint64_t left = options.memory_budget > estimate.total() ? (options.memory_budget - estimate.total()) / 3 : 0;
    set_layout_state_memory(static_cast<size_t>(std::min<uint64_t>(usual_tables, std::max(options.memory_budget / 24, left))));
    estimate.validation += 3 * layout_state_memory();  // as estimate_training_memory counts them
    if (estimate.total() > options.memory_budget) {
      // Fewer configs per step shrink the step: propose the most that fit (a binary search over
      // the estimate, which grows with them), so the user need not guess.
      std::string proposal;
      int low = 1, high = sized.configs_per_step;  // low fits (or is the floor), high does not
      while (high - low > 1) {
        const int middle = (low + high) / 2;
        TrainOptions fewer = sized;
        fewer.configs_per_step = middle;
        (estimate_training_memory(held, fewer).total() <= options.memory_budget ? low : high) = middle;
      }
      if (low >= 2) {
        TrainOptions fewer = sized;
        fewer.configs_per_step = low;
        if (estimate_training_memory(held, fewer).total() <= options.memory_budget) {
          proposal = "; --configs-per-step " + std::to_string(low) + " fits";
        }
      }
      set_layout_state_memory(usual_tables);
      throw InputError(options.data, "memory budget",
                       "at least " + format_byte_size(estimate.total()) + " for this run (" + estimate.text() +
                           (use_cache ? "" : "; a config store holds no configs") + proposal + ")",
                       format_byte_size(options.memory_budget));
    }
    set_input_memory_limit(options.memory_budget);
  }
  // Each file: loaded whole, or prepared into the cache (when not current there) and opened.
  std::vector<TpuGraph> loaded;
  std::vector<std::unique_ptr<StoredGraph>> stores;
  loaded.reserve(train_files.size() + valid_files.size());
  size_t done = 0;
  auto open_graph = [&](const std::string& file) -> GraphConfigs {
    if (!use_cache) {
      loaded.push_back(load_tpu_graph(file));
      return {&loaded.back(), {}, nullptr};
    }
    const std::string folder = config_store_folder(options.cache, file);
    const PreparedStore prepared = prepare_config_store(file, folder, config_store_piece_bytes(options.memory_budget));
    if (options.on_prepare)
      options.on_prepare(++done, train_files.size() + valid_files.size(), file, prepared.configs, prepared.distinct, prepared.reused);
    stores.push_back(StoredGraph::open(folder, file));
    return {&stores.back()->graph(), {}, stores.back().get()};
  };
  std::vector<GraphConfigs> train_items, valid_items;
  std::vector<int> train_item_shards;
  std::vector<const TpuGraph*> train_graphs;
  for (size_t i = 0; i < train_files.size(); ++i) {
    const GraphConfigs item = open_graph(train_files[i]);
    const int32_t configs = item.stored != nullptr ? item.stored->config_count() : item.graph->config_count;
    if (!item.graph->runtimes_hidden && configs >= 2) {
      train_graphs.push_back(item.graph);
      train_items.push_back(item);
      train_item_shards.push_back(train_shard[i]);
    }
  }
  for (const std::string& file : valid_files) valid_items.push_back(open_graph(file));
  valid_items = with_config_limit(valid_items, validation_limit(options));
  std::vector<double> usable = {static_cast<double>(train_graphs.size())};
  world.sum(usable);
  if (usable[0] == 0) {
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
    return fit_sharded(model, train_items, train_item_shards, valid_items, options, progress);
  }
  // The feature statistics of every training graph, whichever rank holds it.
  std::vector<double> sums = feature_sums(train_graphs);
  world.sum(sums);
  CostModel model(config, feature_statistics_from_sums(sums));
  return fit_sharded(model, train_items, train_item_shards, valid_items, options, progress);
}

TrainResult fit_model(CostModel& model, const std::vector<GraphConfigs>& train, const std::vector<GraphConfigs>& valid,
                      const TrainOptions& options, const TrainProgress& progress) {
  const int shard_count = training_shards(options);
  std::vector<int> shards(train.size());
  for (size_t i = 0; i < train.size(); ++i) shards[i] = static_cast<int>(i % static_cast<size_t>(shard_count));
  return fit_sharded(model, train, shards, valid, options, progress);
}

namespace {

TrainResult fit_sharded(CostModel& model, const std::vector<GraphConfigs>& train, const std::vector<int>& train_shards,
                        const std::vector<GraphConfigs>& valid, const TrainOptions& options, const TrainProgress& progress) {
  const DataParallel& world = DataParallel::world();
  const int shard_count = training_shards(options);
  if (world.ranks() > 1 && options.segments.segment_nodes > 0) {
    throw InputError("", "graph segment training (segment nodes)", "a single process", std::to_string(world.ranks()) + " processes");
  }
  // A relative_configs model (also one resumed from a checkpoint) needs each file's most common
  // config, found over all its configs; a store hands out a step's configs only.
  if (model.config().relative_configs) {
    for (const std::vector<GraphConfigs>* items : {&train, &valid}) {
      for (const GraphConfigs& item : *items) {
        if (item.stored != nullptr) {
          throw InputError(item.graph->source, "configs of a model with relative_configs", "held in memory (train without --cache)",
                           "a config store (not supported yet)");
        }
      }
    }
  }
  std::vector<PreparedGraph> prepared;
  std::vector<std::vector<int32_t>> candidates;
  std::vector<std::vector<double>> runtimes;
  std::map<int, std::vector<size_t>> shard_graphs;  // this rank's shards -> their prepared graphs
  for (int shard = world.rank(); shard < shard_count; shard += world.ranks()) shard_graphs[shard];
  std::vector<StoredGraph*> stored;  // per prepared graph: its config store, or null (configs in memory)
  for (size_t item_index = 0; item_index < train.size(); ++item_index) {
    const GraphConfigs& item = train[item_index];
    const TpuGraph& g = *item.graph;
    if (g.runtimes_hidden) continue;
    if (item.stored != nullptr) {  // distinct already; sampled per step from the whole store
      if (options.segments.segment_nodes > 0) throw InternalError("fit_model: graph segment training over a config store");
      if (item.stored->config_count() < 2) continue;
      const int shard = train_shards[item_index];
      if (!shard_graphs.count(shard)) throw InternalError("fit_model: a graph of shard " + std::to_string(shard) + " on another rank");
      shard_graphs[shard].push_back(prepared.size());
      prepared.push_back(model.prepare(g));
      candidates.emplace_back();
      runtimes.emplace_back();
      stored.push_back(item.stored);
      continue;
    }
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
    const int shard = train_shards[item_index];
    if (!shard_graphs.count(shard)) throw InternalError("fit_model: a graph of shard " + std::to_string(shard) + " on another rank");
    shard_graphs[shard].push_back(prepared.size());
    prepared.push_back(model.prepare(g));
    candidates.push_back(std::move(distinct));
    runtimes.push_back(config_ranking_targets(g));
    stored.push_back(nullptr);
  }
  for (const auto& [shard, graphs] : shard_graphs) {
    if (graphs.empty()) {
      throw InputError(
          "", shard_count == 1 ? "training graphs" : "training shard " + std::to_string(shard) + " of " + std::to_string(shard_count),
          "at least one graph with 2 distinct labelled configs",
          shard_count == 1 ? "none" : "none (fewer usable training files than graphs per step?)");
    }
  }
  nn::Adam adam(model.parameters(), nn::AdamOptions{options.learning_rate, 0.9f, 0.999f, 1e-8f, 0.0f, 1.0f});
  // One sampler per shard; shard 0's is the single-process trainer's, so one process with one
  // shard trains exactly as before data-parallel training existed.
  std::map<int, std::mt19937_64> samplers;
  const bool balanced = shard_count > 1 && options.balance_graph_sizes;  // draws at a shared size rank
  for (const auto& [shard, graphs] : shard_graphs)
    samplers.emplace(shard, std::mt19937_64(model.config().seed + 17 + static_cast<uint64_t>(shard)));
  TrainResult result;
  result.train_graphs = prepared.size();
  result.valid_graphs = valid.size();
  const int total_steps = options.epochs * options.steps_per_epoch;
  int first_epoch = 1;
  if (options.resume) {
    const RestoredState restored = restore_checkpoint(model, adam, samplers, shard_count, balanced, options.out);
    first_epoch = restored.epoch + 1;
    if (!restored.samplers_restored) {
      // Another number of graphs per step, or other draws, than the checkpoint's: the shards are
      // not the same, so their samplers start afresh, seeded by the epoch (the model and Adam's
      // state carry on).
      for (auto& [shard, sampler] : samplers) sampler.seed(model.config().seed + 17 + static_cast<uint64_t>(shard) + 7919ull * first_epoch);
      if (world.root())
        std::fprintf(stderr, "resume: %d graphs per step, %s draws; the checkpoint had another count or draws: samplers reseeded\n",
                     shard_count, balanced ? "balanced" : "independent");
    }
  }
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
  auto sampler_states = [&] {  // every shard's sampler, gathered on rank 0
    std::map<int, std::string> states;
    nlohmann::json mine = nlohmann::json::object();
    for (const auto& [shard, sampler] : samplers) {
      std::ostringstream text;
      text << sampler;
      mine[std::to_string(shard)] = text.str();
    }
    for (const std::string& part : world.gather(mine.dump())) {
      const nlohmann::json parsed = nlohmann::json::parse(part);  // named: items() must not outlive it
      for (const auto& item : parsed.items()) states[std::stoi(item.key())] = item.value().get<std::string>();
    }
    return states;
  };
  auto checkpoint = [&](int epoch) {
    const std::map<int, std::string> states = sampler_states();  // every rank takes part
    if (world.root() && !options.out.empty()) save_checkpoint(model, adam, epoch, states, shard_count, balanced, options.out);
  };
  // Rank 0 validates and reports; its answer (go on or stop) reaches every rank.
  auto report_progress = [&](const EpochReport& report) {
    const bool go_on = world.root() && progress ? progress(report, options.epochs) : true;
    return world.broadcast(go_on);
  };
  // Balanced draws: each shard's graphs by view rows, fewest first.
  std::map<int, std::vector<size_t>> by_size;
  if (balanced) {
    for (const auto& [shard, graphs] : shard_graphs) {
      std::vector<size_t>& sorted = by_size[shard] = graphs;
      std::stable_sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) { return prepared[a].view.size() < prepared[b].view.size(); });
    }
  }
  std::vector<nn::Parameter*> parameters = model.parameters();
  std::vector<float> gradients;
  EpochReport start_report;
  start_report.epoch = first_epoch - 1;
  start_report.valid_metric = world.root() ? evaluate_model(model, valid) : std::nan("");
  if (!report_progress(start_report)) return result;
  for (int epoch = first_epoch; epoch <= options.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<double> loss_sum = {0.0, 0.0};  // losses, graphs that gave one
    double imbalance_sum = 0;
    std::vector<float> shard_rows(shard_count > 1 ? static_cast<size_t>(shard_count) : 0);  // the step's view rows per shard
    for (int step = 0; step < options.steps_per_epoch; ++step) {
      bool contributed = false;
      std::fill(shard_rows.begin(), shard_rows.end(), 0.0f);
      // The step's size rank in [0, 1): a function of the seed and the global step alone, the same
      // on every rank, with nothing to checkpoint (a resumed run with any process count agrees).
      const double size_rank = balanced ? step_size_rank(model.config().seed, (epoch - 1) * options.steps_per_epoch + step) : 0.0;
      for (auto& [shard, graphs] : shard_graphs) {
        std::mt19937_64& random = samplers.at(shard);
        const size_t g =
            balanced ? by_size.at(shard)[std::min(graphs.size() - 1, static_cast<size_t>(size_rank * static_cast<double>(graphs.size())))]
                     : graphs[random() % graphs.size()];
        std::vector<double> y;
        std::vector<int32_t> pool;
        if (stored[g] != nullptr) {  // the sample's rows, read from the store into the graph as configs 0..k-1
          const std::vector<int32_t> drawn =
              sample_indices(stored[g]->config_count(), static_cast<size_t>(options.configs_per_step), random);
          for (int32_t c : drawn) y.push_back(stored[g]->ranking_target(c));
          stored[g]->select(drawn);
          pool.resize(drawn.size());
          std::iota(pool.begin(), pool.end(), 0);
        } else {
          pool = sample_configs(candidates[g], runtimes[g], static_cast<size_t>(options.configs_per_step), random, y);
        }
        if (pool.size() < 2) continue;
        if (!shard_rows.empty()) shard_rows[static_cast<size_t>(shard)] = static_cast<float>(prepared[g].view.size());
        nn::Tape tape;
        const nn::Var cost = segmented.empty() ? model.forward(tape, prepared[g], pool) : segmented[g].cost(tape, model, pool, random);
        const nn::Var loss = ranking_loss(options.loss, cost, y);
        loss_sum[0] += loss.value()(0, 0);
        loss_sum[1] += 1;
        tape.backward(loss);  // adds to every parameter's grad
        contributed = true;
      }
      if (shard_count == 1 && !contributed) continue;  // as the single-process trainer always did
      if (shard_count > 1) {
        // The mean gradient over the step's shards: summed across ranks, divided by their count.
        // The shards' rows ride along (each is nonzero on its own rank only).
        gradients.clear();
        for (const nn::Parameter* parameter : parameters)
          gradients.insert(gradients.end(), parameter->grad.data(), parameter->grad.data() + parameter->grad.size());
        gradients.insert(gradients.end(), shard_rows.begin(), shard_rows.end());
        world.sum(gradients);
        const auto rows_begin = gradients.end() - static_cast<std::ptrdiff_t>(shard_count);
        const double rows_mean = std::accumulate(rows_begin, gradients.end(), 0.0) / static_cast<double>(shard_count);
        if (rows_mean > 0) imbalance_sum += *std::max_element(rows_begin, gradients.end()) / rows_mean;
        size_t offset = 0;
        for (nn::Parameter* parameter : parameters) {
          for (Eigen::Index k = 0; k < parameter->grad.size(); ++k)
            parameter->grad.data()[k] = gradients[offset++] / static_cast<float>(shard_count);
        }
      }
      adam.step(nn::cosine_schedule((epoch - 1) * options.steps_per_epoch + step, total_steps, total_steps / 20, 0.05f));
    }
    const double step_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    world.sum(loss_sum);
    EpochReport report;
    report.step_seconds = step_seconds;
    report.epoch = epoch;
    report.train_loss = shard_count == 1 ? loss_sum[0] / std::max(1, options.steps_per_epoch) : loss_sum[0] / std::max(1.0, loss_sum[1]);
    report.valid_metric = world.root() ? evaluate_model(model, valid) : std::nan("");
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.step_imbalance = shard_count > 1 ? imbalance_sum / std::max(1, options.steps_per_epoch) : 0.0;
    result.epochs.push_back(report);
    checkpoint(epoch);  // the latest model + training state
    if (!report_progress(report)) break;
  }
  if (!segmented.empty() && !result.epochs.empty() && result.epochs.back().epoch == options.epochs) {
    finetune_head(model, segmented, candidates, runtimes, valid, options, samplers.at(0), result, progress);
    checkpoint(options.epochs);
  }
  for (const SegmentedGraph& graph : segmented) {
    result.segment_counters.fresh += graph.counters().fresh;
    result.segment_counters.stale += graph.counters().stale;
    result.segment_counters.dropped += graph.counters().dropped;
    result.segment_counters.filled += graph.counters().filled;
  }
  if (!result.epochs.empty() && result.epochs.back().epoch == options.epochs) {
    // Trained to the end: calibrate costs to runtimes on the validation graphs (the training
    // graphs when none are labelled), saved with the last checkpoint. Rank 0's graphs only.
    if (world.root()) {
      RuntimeCalibration calibration = fit_runtime_calibration(model, valid);
      if (calibration.graphs == 0) calibration = fit_runtime_calibration(model, with_config_limit(train, validation_limit(options)));
      model.set_calibration(calibration);
      result.calibration = calibration;
    }
    checkpoint(options.epochs);
  }
  if (result.epochs.empty() && !options.resume) checkpoint(0);
  return result;
}

}  // namespace

}  // namespace graphcost
