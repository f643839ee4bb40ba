// The experiments of docs/experiments.md: the GNN cost model against baselines measured the same
// way, each method over several seeds.
//   model_experiments real [--data DIR]     (../shared/data; labelled real layout files)
//     (a) across programs: train on the labelled layout/xla train files, score Kendall tau-b on
//         every config of the labelled layout/xla/random valid graph;
//     (b) same program, other configs: a seeded 80/20 split of that valid graph's configs; train
//         on the 80%, score on the 20%.
//   model_experiments generated DIR         (a `graphcost gen` tree)
//     per collection: train on its train split, score its valid split (tile score for tile,
//     Kendall tau-b for layout, mean over graphs).
// Methods: random order, fewest-changes (layout: nodes changed from their most common values;
// tile: largest tiles first), ridge on one-hot config values (per node when every graph is one
// program, else a histogram over nodes; tile: its 24 features), an MLP without message passing
// (the cost model with 0 GraphSAGE layers) and the GNN cost model (2 layers).
// Prints Markdown tables (mean +- sd over seeds) on stdout and progress on stderr.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/heap_tuning.h"
#include "data/dataset_path.h"
#include "data/dataset_survey.h"
#include "scoring/baseline_order.h"
#include "train/ridge_ranker.h"
#include "train/trainer.h"

using namespace graphcost;

namespace {

struct Settings {
  std::string mode, data = "../shared/data";
  std::string setting = "ab";  // real: which settings to run (a, b or ab)
  int seeds = 3;
  TrainOptions train;
};

const char* const kMethods[] = {"random order", "fewest-changes", "ridge on one-hot config values", "MLP, no message passing",
                                "GNN (graphcost, 2 SAGE layers)"};

double mean_of(const std::vector<double>& values) {
  if (values.empty()) return std::nan("");
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}
double sd_of(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double mean = mean_of(values);
  double sum = 0;
  for (double v : values) sum += (v - mean) * (v - mean);
  return std::sqrt(sum / static_cast<double>(values.size() - 1));
}

// Metric of each method in one setting, by seed.
using Results = std::map<std::string, std::vector<double>>;

// Trains and scores every method once: fit on `train`, metric averaged over `tests`.
void run_methods(const std::string& name, const std::string& collection, const std::vector<GraphConfigs>& train,
                 const std::vector<GraphConfigs>& tests, ConfigEncoding encoding, const Settings& settings, uint64_t seed,
                 Results& results) {
  std::map<std::string, double> sums;
  auto add = [&](const std::string& method, const GraphConfigs& test, const std::vector<float>& cost) {
    sums[method] += ranking_metric(*test.graph, test.configs, cost) / static_cast<double>(tests.size());
  };
  // A model-free order becomes costs: a config's cost is its position in the order.
  auto order_costs = [](const std::vector<int32_t>& order, const std::vector<int32_t>& configs) {
    std::vector<float> position(order.size());
    for (size_t i = 0; i < order.size(); ++i) position[static_cast<size_t>(order[i])] = static_cast<float>(i);
    std::vector<float> costs;
    for (int32_t c : configs) costs.push_back(position[static_cast<size_t>(c)]);
    return costs;
  };
  RidgeRanker ridge(encoding);
  ridge.fit(train, seed);
  std::vector<const TpuGraph*> train_graphs;
  for (const GraphConfigs& item : train) train_graphs.push_back(item.graph);
  std::vector<CostModel> models;
  for (int layers : {0, 2}) {
    TrainOptions options = settings.train;
    options.model.kind = collection_kind(collection);
    options.model.collection = collection;
    options.model.layers = layers;
    options.model.seed = seed;
    models.emplace_back(options.model, fit_feature_statistics(train_graphs));
    const auto start = std::chrono::steady_clock::now();
    fit_model(models.back(), train, {}, options);
    std::fprintf(stderr, "  (%s) seed %llu  %d-layer model trained in %.1f s\n", name.c_str(), static_cast<unsigned long long>(seed),
                 layers, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  for (const GraphConfigs& test : tests) {
    add(kMethods[0], test, order_costs(baseline_order(*test.graph, graphcost::BaselineStrategy::Random, seed), test.configs));
    add(kMethods[1], test, order_costs(baseline_order(*test.graph, graphcost::BaselineStrategy::FewestChanges, seed), test.configs));
    add(kMethods[2], test, ridge.predict(*test.graph, test.configs));
    add(kMethods[3], test, models[0].predict(models[0].prepare(*test.graph), test.configs));
    add(kMethods[4], test, models[1].predict(models[1].prepare(*test.graph), test.configs));
  }
  for (const auto& [method, value] : sums) {
    results[method].push_back(value);
    std::fprintf(stderr, "  (%s) seed %llu  %-32s %.4f\n", name.c_str(), static_cast<unsigned long long>(seed), method.c_str(), value);
  }
}

std::string cell(const Results& results, const std::string& method) {
  const auto found = results.find(method);
  if (found == results.end()) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.3f +- %.3f", mean_of(found->second), sd_of(found->second));
  return text;
}

// Real data: settings (a) and (b).
int run_real(const Settings& settings) {
  std::vector<TpuGraph> train_files, valid_files;
  for (const std::string& path : find_npz_files(settings.data)) {
    const DatasetPath location = parse_dataset_path(path);
    if (location.collection.rfind("layout:xla:", 0) != 0) continue;
    if (location.split == "train") train_files.push_back(load_tpu_graph(path));
    if (location.split == "valid" && location.collection == "layout:xla:random") valid_files.push_back(load_tpu_graph(path));
  }
  std::vector<GraphConfigs> train;
  for (const TpuGraph& g : train_files) {
    if (!g.runtimes_hidden) train.push_back({&g, {}});
  }
  if (train.empty() || valid_files.size() != 1 || valid_files.front().runtimes_hidden) {
    std::fprintf(stderr, "model_experiments: need labelled layout/xla train files and one labelled layout/xla/random valid file under %s\n",
                 settings.data.c_str());
    return 1;
  }
  const TpuGraph& valid = valid_files.front();
  Results across, within;
  for (int s = 0; s < settings.seeds; ++s) {
    const uint64_t seed = static_cast<uint64_t>(s) + 1;
    std::vector<int32_t> all(static_cast<size_t>(valid.config_count));
    std::iota(all.begin(), all.end(), 0);
    if (settings.setting.find('a') != std::string::npos) {
      run_methods("a", "layout:xla:default,layout:xla:random", train, {{&valid, all}}, ConfigEncoding::Histogram, settings, seed, across);
    }
    std::shuffle(all.begin(), all.end(), std::mt19937_64(seed));
    const size_t cut = all.size() * 4 / 5;
    const std::vector<int32_t> fit_part(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(cut));
    const std::vector<int32_t> test_part(all.begin() + static_cast<std::ptrdiff_t>(cut), all.end());
    if (settings.setting.find('b') != std::string::npos) {
      run_methods("b", "layout:xla:random", {{&valid, fit_part}}, {{&valid, test_part}}, ConfigEncoding::PerNode, settings, seed, within);
    }
  }
  std::printf("| method | (a) across programs: tau-b | (b) 80/20 configs: tau-b |\n|---|---|---|\n");
  for (const char* method : kMethods) {
    const std::string label = std::string(method) == kMethods[2] ? std::string(method) + " (a: histogram over nodes; b: per node)" : method;
    std::printf("| %s | %s | %s |\n", label.c_str(), cell(across, method).c_str(), cell(within, method).c_str());
  }
  return 0;
}

// Generated data: every collection, train split -> valid split.
int run_generated(const Settings& settings) {
  std::map<std::string, Results> by_collection;
  for (const char* collection : kCollections) {
    std::vector<TpuGraph> train_files = load_collection(settings.data, collection, "train");
    std::vector<TpuGraph> valid_files = load_collection(settings.data, collection, "valid");
    std::vector<GraphConfigs> train, valid;
    for (const TpuGraph& g : train_files) {
      if (!g.runtimes_hidden && g.config_count >= 2) train.push_back({&g, {}});
    }
    for (const TpuGraph& g : valid_files) {
      std::vector<int32_t> all(static_cast<size_t>(g.config_count));
      std::iota(all.begin(), all.end(), 0);
      if (!g.runtimes_hidden && g.config_count >= 2) valid.push_back({&g, all});
    }
    if (train.empty() || valid.empty()) {
      std::fprintf(stderr, "model_experiments: %s has no labelled train or valid files under %s; skipped\n", collection,
                   settings.data.c_str());
      continue;
    }
    for (int s = 0; s < settings.seeds; ++s) {
      run_methods(collection, collection, train, valid, ConfigEncoding::Histogram, settings, static_cast<uint64_t>(s) + 1,
                  by_collection[collection]);
    }
  }
  std::printf("| method |");
  for (const auto& [collection, results] : by_collection)
    std::printf(" %s (%s) |", collection.c_str(), collection == "tile:xla" ? "tile score" : "tau-b");
  std::printf("\n|---|");
  for (size_t i = 0; i < by_collection.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const char* method : kMethods) {
    std::printf("| %s |", method);
    for (const auto& [collection, results] : by_collection) std::printf(" %s |", cell(results, method).c_str());
    std::printf("\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  keep_large_allocations_in_heap();
  Settings settings;
  std::string loss_name = "listmle";
  settings.train.epochs = 10;
  settings.train.steps_per_epoch = 100;
  settings.train.configs_per_step = 32;
  settings.train.learning_rate = 2e-3f;
  settings.train.model.hidden = 64;
  settings.train.model.hops = 1;
  const char* usage =
      "usage: model_experiments real [--data DIR] [--setting a|b|ab] [options]\n"
      "       model_experiments generated DIR [options]\n"
      "options: --seeds N --epochs E --steps S --configs B --loss L --hidden H --config-embedding E\n";
  if (argc < 2 || (std::string(argv[1]) != "real" && std::string(argv[1]) != "generated")) {
    std::fputs(usage, stderr);
    return 2;
  }
  settings.mode = argv[1];
  int i = 2;
  if (settings.mode == "generated") {
    if (argc < 3) {
      std::fputs(usage, stderr);
      return 2;
    }
    settings.data = argv[i++];
  }
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : "";
    if (arg == "--data") settings.data = value, ++i;
    else if (arg == "--setting") settings.setting = value, ++i;
    else if (arg == "--seeds") settings.seeds = std::max(1, std::atoi(value)), ++i;
    else if (arg == "--epochs") settings.train.epochs = std::max(1, std::atoi(value)), ++i;
    else if (arg == "--steps") settings.train.steps_per_epoch = std::max(1, std::atoi(value)), ++i;
    else if (arg == "--configs") settings.train.configs_per_step = std::max(2, std::atoi(value)), ++i;
    else if (arg == "--loss") loss_name = value, ++i;
    else if (arg == "--hidden") settings.train.model.hidden = std::max(1, std::atoi(value)), ++i;
    else if (arg == "--config-embedding") settings.train.model.config_embedding = std::max(1, std::atoi(value)), ++i;
    else {
      std::fputs(usage, stderr);
      return 2;
    }
  }
  try {
    settings.train.loss = graphcost::value_named(graphcost::ranking_loss_names(), loss_name, "--loss");
    const int status = settings.mode == "real" ? run_real(settings) : run_generated(settings);
    std::printf(
        "\n%d seeds; models: hidden %d, layout value embedding %d, 1-hop pruning (layout), %d epochs x %d steps x %d configs, "
        "loss %s, learning rate %g\n",
        settings.seeds, settings.train.model.hidden, settings.train.model.config_embedding, settings.train.epochs,
        settings.train.steps_per_epoch, settings.train.configs_per_step, loss_name.c_str(), settings.train.learning_rate);
    return status;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "model_experiments: %s\n", error.what());
    return 1;
  }
}
