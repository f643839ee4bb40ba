#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
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
#include "data/collection_files.h"
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
#include "train/training_loop.h"

namespace graphcost {

const NameTable<RankingLoss>& ranking_loss_names() {
  static const NameTable<RankingLoss> names = {
      {"listmle", RankingLoss::ListMle}, {"hinge", RankingLoss::Hinge}, {"gap-margin", RankingLoss::GapMargin}, {"mse", RankingLoss::Mse}};
  return names;
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

double step_size_rank(uint64_t seed, int step) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(step) + 0x632BE59BD9B4E019ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

void TrainOptions::check() const {
  const auto in_range = [](const char* field, int64_t value, int64_t low, int64_t high) {
    if (value < low || value > high)
      throw InputError("", field, "an integer in [" + std::to_string(low) + ", " + std::to_string(high) + "]", std::to_string(value));
  };
  in_range("epochs", epochs, 1, 1000000000);
  in_range("steps_per_epoch", steps_per_epoch, 1, 1000000000);
  in_range("configs_per_step", configs_per_step, 2, 4096);
  in_range("graphs_per_step", graphs_per_step, 0, 4096);
  in_range("valid_configs", valid_configs, 0, 1000000000);
  in_range("segment_nodes", segments.segment_nodes, 0, 100000000);
  in_range("segments_per_step", segments.segments_per_step, 1, 100000);
  in_range("max_staleness", segments.max_staleness, -1, 100000000);
  in_range("finetune_steps", segments.finetune_steps, -1, 10000000);
  if (!(segments.stale_dropout >= 0 && segments.stale_dropout <= 0.99))
    throw InputError("", "stale_dropout", "a probability in [0, 0.99]", std::to_string(segments.stale_dropout));
  if (!(std::isfinite(learning_rate) && learning_rate > 0 && learning_rate <= 1))
    throw InputError("", "learning_rate", "a finite number in (0, 1]", std::to_string(learning_rate));
  model.check("");
  const bool use_cache = !cache.empty() && collection_kind(collection) == GraphKind::Layout;
  if (use_cache && segments.segment_nodes > 0) {
    throw InputError(cache, "segment_nodes", "0 with a config store (graph segment training holds the configs in memory)",
                     std::to_string(segments.segment_nodes));
  }
  if (model.relative_configs && collection_kind(collection) != GraphKind::Layout) {
    throw InputError("", "relative_configs", "a layout collection", "'" + collection + "'");
  }
  if (use_cache && model.relative_configs) {
    throw InputError(cache, "relative_configs", "configs held in memory (each file's most common config is found over all of them)",
                     "a config store (not supported yet)");
  }
}

namespace {

// A resumed run trains the checkpoint's model: an architecture option the caller set to another
// value would be silently ignored, so it is refused.
void check_resumed_architecture(const TrainOptions& options, const ModelConfig& checkpoint) {
  const ModelConfig& asked = options.model;
  for (const std::string& field : options.architecture_given) {
    std::string given, kept;
    if (field == "hidden") given = std::to_string(asked.hidden), kept = std::to_string(checkpoint.hidden);
    if (field == "layers") given = std::to_string(asked.layers), kept = std::to_string(checkpoint.layers);
    if (field == "hops") given = std::to_string(asked.hops), kept = std::to_string(checkpoint.hops);
    if (field == "aggregation")
      given = name_of(aggregation_names(), asked.aggregation), kept = name_of(aggregation_names(), checkpoint.aggregation);
    if (field == "relative_configs")
      given = asked.relative_configs ? "true" : "false", kept = checkpoint.relative_configs ? "true" : "false";
    if (field == "cross_config_attention")
      given = asked.cross_config_attention ? "true" : "false", kept = checkpoint.cross_config_attention ? "true" : "false";
    if (given != kept) {
      throw InputError(options.out, field, kept + " (the checkpoint's: resume continues its architecture; train anew to change it)", given);
    }
  }
}

struct DealtFiles {
  std::vector<std::string> files;  // this rank's training files
  std::vector<int> shards;         // the shard of each
};

// This rank's training files: file i of the collection belongs to shard i % shards, and rank r
// loads the shards s with s % ranks == r. Rank 0 alone loads the validation files. With several
// shards and balanced draws the files are first ordered by the rows a step runs on (fewest
// first), so every shard holds the same spread of sizes and the step's size rank finds a graph of
// about the same size in each.
DealtFiles deal_training_files(const TrainOptions& options, int shards) {
  const DataParallel& world = DataParallel::world();
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
  DealtFiles dealt;
  for (size_t i = 0; i < all_train_files.size(); ++i) {
    const int shard = static_cast<int>(i % static_cast<size_t>(shards));
    if (shard % world.ranks() != world.rank()) continue;
    dealt.files.push_back(all_train_files[i]);
    dealt.shards.push_back(shard);
  }
  return dealt;
}

}  // namespace

TrainResult train_model(const TrainOptions& requested, const TrainProgress& progress) {
  requested.check();
  if (!requested.overwrite && !requested.resume && std::filesystem::exists(requested.out)) {
    throw InputError(requested.out, "out", "a new model file (resume continues this one; overwrite replaces it)", "an existing file");
  }
  TrainOptions options = requested;  // --fit-configs-per-step may lower configs_per_step
  const DataParallel& world = DataParallel::world();
  const int shards = training_shards(options);
  const bool use_cache = !options.cache.empty() && collection_kind(options.collection) == GraphKind::Layout;
  const DealtFiles dealt = deal_training_files(options, shards);
  const std::vector<std::string>& train_files = dealt.files;
  const std::vector<int>& train_shard = dealt.shards;
  std::vector<std::string> valid_files;
  if (world.root()) valid_files = collection_files(options.data, options.collection, options.valid_split);
  if (options.memory_budget > 0) {
    std::vector<std::string> held = train_files;
    held.insert(held.end(), valid_files.begin(), valid_files.end());
    // Every rank's estimate of its own files: the steps use the smallest fit.
    std::vector<double> fits(static_cast<size_t>(world.ranks()), 0.0);
    fits[static_cast<size_t>(world.rank())] = enforce_memory_budget(options, held, use_cache);
    world.sum(fits);
    options.configs_per_step = static_cast<int>(*std::min_element(fits.begin(), fits.end()));
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
    check_resumed_architecture(options, model.config());
    TrainResult result = fit_sharded(model, train_items, train_item_shards, valid_items, options, progress);
    result.configs_per_step = options.configs_per_step;
    return result;
  }
  if (!options.init.empty()) {
    CostModel model = CostModel::load(options.init);
    if (model.config().kind != config.kind) {
      throw InputError(options.init, "model config.kind", std::string(graph_kind_name(config.kind)) + " (the collection's)",
                       graph_kind_name(model.config().kind));
    }
    model.set_collection(config.collection);  // it is trained on this collection now
    TrainResult result = fit_sharded(model, train_items, train_item_shards, valid_items, options, progress);
    result.configs_per_step = options.configs_per_step;
    return result;
  }
  // The feature statistics of every training graph, whichever rank holds it.
  std::vector<double> sums = feature_sums(train_graphs);
  world.sum(sums);
  CostModel model(config, feature_statistics_from_sums(sums));
  TrainResult result = fit_sharded(model, train_items, train_item_shards, valid_items, options, progress);
  result.configs_per_step = options.configs_per_step;
  return result;
}

TrainResult fit_model(CostModel& model, const std::vector<GraphConfigs>& train, const std::vector<GraphConfigs>& valid,
                      const TrainOptions& options, const TrainProgress& progress) {
  const int shard_count = training_shards(options);
  std::vector<int> shards(train.size());
  for (size_t i = 0; i < train.size(); ++i) shards[i] = static_cast<int>(i % static_cast<size_t>(shard_count));
  return fit_sharded(model, train, shards, valid, options, progress);
}

}  // namespace graphcost
