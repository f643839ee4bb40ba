// The real-data layout experiments of docs/experiments.md, each method over several seeds:
//   (a) across programs: train on the labelled layout/xla train files, score Kendall tau-b on
//       every config of the labelled layout/xla/random valid graph;
//   (b) same program, other configs: a seeded 80/20 split of that valid graph's configs; train on
//       the 80%, score on the 20%.
// Methods: random order, fewest layout changes, ridge on one-hot config values (per node in (b),
// as a histogram over nodes in (a), where nodes differ between programs), an MLP without message
// passing (the cost model with 0 GraphSAGE layers) and the GNN cost model.
// Prints a Markdown table (mean +- sd over seeds) on stdout and progress on stderr.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
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
  std::string data = "../shared/data";
  std::string setting = "ab";  // which settings to run: a, b or ab
  int seeds = 3;
  TrainOptions train;
};

double mean_of(const std::vector<double>& values) {
  if (values.empty()) return std::nan("");
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size()); }
double sd_of(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double mean = mean_of(values);
  double sum = 0;
  for (double v : values) sum += (v - mean) * (v - mean);
  return std::sqrt(sum / static_cast<double>(values.size() - 1));
}

// Scores of one method in one setting, by seed.
using Results = std::map<std::string, std::vector<double>>;

void run_setting(const char* name, const std::vector<GraphConfigs>& train, const GraphConfigs& test, ConfigEncoding encoding,
                 const Settings& settings, uint64_t seed, Results& results) {
  const TpuGraph& graph = *test.graph;
  const std::vector<int32_t>& configs = test.configs;
  auto score = [&](const std::string& method, const std::vector<float>& cost) {
    const double tau = ranking_metric(graph, configs, cost);
    results[method].push_back(tau);
    std::fprintf(stderr, "  (%s) seed %llu  %-28s tau %.4f\n", name, static_cast<unsigned long long>(seed), method.c_str(), tau);
  };
  // A model-free order becomes costs: a config's cost is its position in the order.
  auto order_costs = [&](const std::vector<int32_t>& order) {
    std::vector<float> position(order.size());
    for (size_t i = 0; i < order.size(); ++i) position[static_cast<size_t>(order[i])] = static_cast<float>(i);
    std::vector<float> costs;
    for (int32_t c : configs) costs.push_back(position[static_cast<size_t>(c)]);
    return costs;
  };
  score("random order", order_costs(baseline_order(graph, "random", seed)));
  score("fewest layout changes", layout_change_counts(graph, configs));
  RidgeRanker ridge(encoding);
  ridge.fit(train, seed);
  score(encoding == ConfigEncoding::PerNode ? "ridge, one-hot per node" : "ridge, one-hot histogram", ridge.predict(graph, configs));
  std::vector<const TpuGraph*> train_graphs;
  for (const GraphConfigs& item : train) train_graphs.push_back(item.graph);
  for (int layers : {0, 2}) {
    TrainOptions options = settings.train;
    options.model.kind = "layout";
    options.model.collection = "layout:xla:random";
    options.model.layers = layers;
    options.model.seed = seed;
    CostModel model(options.model, fit_feature_statistics(train_graphs));
    const auto start = std::chrono::steady_clock::now();
    fit_model(model, train, {}, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string method = layers == 0 ? "MLP, no message passing" : "GNN (graphcost, 2 SAGE layers)";
    std::fprintf(stderr, "  (%s) seed %llu  %s trained in %.1f s\n", name, static_cast<unsigned long long>(seed), method.c_str(), seconds);
    score(method, model.predict(model.prepare(graph), configs));
  }
}

}  // namespace

int main(int argc, char** argv) {
  keep_large_allocations_in_heap();
  Settings settings;
  settings.train.epochs = 8;
  settings.train.steps_per_epoch = 100;
  settings.train.configs_per_step = 32;
  settings.train.learning_rate = 2e-3f;
  settings.train.model.hidden = 64;
  settings.train.model.hops = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : "";
    if (arg == "--data") settings.data = value, ++i;
    else if (arg == "--setting") settings.setting = value, ++i;
    else if (arg == "--seeds") settings.seeds = std::max(1, std::atoi(value)), ++i;
    else if (arg == "--epochs") settings.train.epochs = std::max(1, std::atoi(value)), ++i;
    else if (arg == "--steps") settings.train.steps_per_epoch = std::max(1, std::atoi(value)), ++i;
    else if (arg == "--configs") settings.train.configs_per_step = std::max(2, std::atoi(value)), ++i;
    else if (arg == "--loss") settings.train.loss = value, ++i;
    else {
      std::fprintf(stderr, "usage: layout_experiments [--data DIR] [--setting a|b|ab] [--seeds N] [--epochs E] [--steps S] [--configs B] [--loss L]\n");
      return 2;
    }
  }
  try {
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
      std::fprintf(stderr, "layout_experiments: need labelled layout/xla train files and one labelled layout/xla/random valid file under %s\n",
                   settings.data.c_str());
      return 1;
    }
    const TpuGraph& valid = valid_files.front();
    Results across, within;
    for (int s = 0; s < settings.seeds; ++s) {
      const uint64_t seed = static_cast<uint64_t>(s) + 1;
      std::vector<int32_t> all(static_cast<size_t>(valid.config_count));
      std::iota(all.begin(), all.end(), 0);
      if (settings.setting.find('a') != std::string::npos) run_setting("a", train, {&valid, all}, ConfigEncoding::Histogram, settings, seed, across);
      std::shuffle(all.begin(), all.end(), std::mt19937_64(seed));
      const size_t cut = all.size() * 4 / 5;
      const std::vector<int32_t> fit_part(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(cut));
      const std::vector<int32_t> test_part(all.begin() + static_cast<std::ptrdiff_t>(cut), all.end());
      if (settings.setting.find('b') != std::string::npos) run_setting("b", {{&valid, fit_part}}, {&valid, test_part}, ConfigEncoding::PerNode, settings, seed, within);
    }
    std::printf("| method | (a) across programs: tau-b | (b) 80/20 configs: tau-b |\n|---|---|---|\n");
    for (const char* method : {"random order", "fewest layout changes", "MLP, no message passing", "GNN (graphcost, 2 SAGE layers)"}) {
      std::printf("| %s | %.3f +- %.3f | %.3f +- %.3f |\n", method, mean_of(across[method]), sd_of(across[method]), mean_of(within[method]),
                  sd_of(within[method]));
    }
    std::printf("| ridge on one-hot config values | %.3f +- %.3f (histogram) | %.3f +- %.3f (per node) |\n",
                mean_of(across["ridge, one-hot histogram"]), sd_of(across["ridge, one-hot histogram"]),
                mean_of(within["ridge, one-hot per node"]), sd_of(within["ridge, one-hot per node"]));
    std::printf("\n%d seeds; model: hidden %d, 1-hop pruning, %d epochs x %d steps x %d configs, loss %s\n", settings.seeds,
                settings.train.model.hidden, settings.train.epochs, settings.train.steps_per_epoch, settings.train.configs_per_step,
                settings.train.loss.c_str());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "layout_experiments: %s\n", error.what());
    return 1;
  }
  return 0;
}
