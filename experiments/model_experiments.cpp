// The experiments of docs/experiments.md: the GNN cost model against baselines measured the same
// way, each method over several seeds.
//   model_experiments real [--data DIR] [--setting abc]   (../shared/data; labelled real layout files)
//     (a) across programs: train on the labelled layout/xla train files, score every config of the
//         labelled layout/xla/random valid graph;
//     (b) same program, other configs: a seeded 80/20 split of that valid graph's configs; train
//         on the 80%, score on the 20%;
//     (c) the same on the labelled layout/xla/default train file (unet3d): the compiler's own
//         search, whose configs cluster near the best.
//   model_experiments generated DIR [--setting vd]        (a `graphcost gen` tree)
//     (v) per collection: train on its train split, score its valid split;
//     (d) per source (xla, nlp): train on layout:S:random's train split, rank the configs of
//         layout:S:default's train split: the same programs, searched by the compiler instead of
//         sampled at random (ridge is fitted per program on that program's random configs).
// Every layout result is also given (e) on the configs within 1% of the file's best runtime:
// Kendall tau-b among them, and the top-5 slowdown (best runtime among the 5 configs ranked first
// of all the file's test configs, over the best, minus 1) that a compiler picking from the
// ranking would pay.
// Methods: random order, fewest-changes (layout: nodes changed from their most common values;
// tile: largest tiles first), ridge on one-hot config values (per node when train and test are
// one program, else a histogram over nodes; tile: its 24 features), an MLP without message passing
// (the cost model with 0 GraphSAGE layers), the GNN cost model (2 layers) with ListMLE, and the
// same GNN with the gap-margin pairwise loss (nn/ops.h), and with configs read relative to each
// file's most common config (ModelConfig::relative_configs), and with the neighbours' elementwise max
// instead of their mean (ModelConfig::aggregation).
// Prints Markdown tables (mean +- sd over seeds) on stdout and progress on stderr.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/heap_tuning.h"
#include "data/collection_files.h"
#include "data/dataset_path.h"
#include "data/dataset_survey.h"
#include "metrics/ranking_metrics.h"
#include "scoring/baseline_order.h"
#include "train/ridge_ranker.h"
#include "train/trainer.h"

using namespace graphcost;

namespace {

struct Settings {
  std::string mode, data = "../shared/data";
  std::string setting;  // which settings to run: real a, b, c (default abc); generated v, d (default vd)
  int seeds = 3;
  TrainOptions train;
};

const char* const kMethods[] = {"random order",
                                "fewest-changes",
                                "ridge on one-hot config values",
                                "MLP, no message passing",
                                "GNN (graphcost, 2 SAGE layers)",
                                "GNN, gap-margin loss",
                                "GNN, configs relative to the most common",
                                "GNN, max aggregation of neighbours"};
constexpr size_t kMethodCount = sizeof kMethods / sizeof kMethods[0];

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

// One method's scores in one setting and seed, averaged over the test graphs. For tile graphs
// only `metric` (the tile score) is set.
struct Scores {
  double metric = 0;         // Kendall tau-b (layout) or tile score
  double near_tau = 0;       // (e) tau-b among the configs within 1% of the best
  double top5_slowdown = 0;  // (e) best of the 5 ranked first over the best, minus 1
  int near_graphs = 0;       // graphs with at least 2 distinct runtimes within 1%
};

// Each method's scores in one setting, by seed.
using Results = std::map<std::string, std::vector<Scores>>;

// (e): the near-best scores of one ranking of `configs` (costs in the same order) of a layout graph.
void add_near_best(const GraphConfigs& test, const std::vector<float>& cost, double weight, Scores& scores) {
  const std::vector<double> runtime = config_ranking_targets(*test.graph);
  double best = std::numeric_limits<double>::infinity();
  for (int32_t c : test.configs) best = std::min(best, runtime[static_cast<size_t>(c)]);
  std::vector<int32_t> near;
  std::vector<float> near_cost;
  std::vector<double> y;
  for (size_t i = 0; i < test.configs.size(); ++i) {
    const double r = runtime[static_cast<size_t>(test.configs[i])];
    y.push_back(r);
    if (r <= 1.01 * best) near.push_back(test.configs[i]), near_cost.push_back(cost[i]);
  }
  std::vector<int32_t> order(cost.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return cost[static_cast<size_t>(a)] < cost[static_cast<size_t>(b)]; });
  scores.top5_slowdown += weight * top_k_error(y, order, 5);
  const double tau = near.size() >= 2 ? ranking_metric(*test.graph, near, near_cost) : std::nan("");
  if (std::isfinite(tau)) {
    scores.near_tau += tau;  // divided by near_graphs at the end
    ++scores.near_graphs;
  }
}

// How `run_methods` fits ridge: once on all of `train`, or per test graph on the train graph of the
// same program (`ridge_train_of[t]`, an index into train).
struct RidgePlan {
  ConfigEncoding encoding = ConfigEncoding::Histogram;
  std::vector<size_t> ridge_train_of;  // empty: one ridge on all of train
};

// Trains and scores every method once: fit on `train`, scores averaged over `tests`.
void run_methods(const std::string& name, const std::string& collection, const std::vector<GraphConfigs>& train,
                 const std::vector<GraphConfigs>& tests, const RidgePlan& ridge_plan, const Settings& settings, uint64_t seed,
                 Results& results) {
  std::map<std::string, Scores> sums;
  const bool layout = collection_kind(collection) == GraphKind::Layout;
  const double weight = 1.0 / static_cast<double>(tests.size());
  auto add = [&](const std::string& method, const GraphConfigs& test, const std::vector<float>& cost) {
    Scores& scores = sums[method];
    scores.metric += ranking_metric(*test.graph, test.configs, cost) * weight;
    if (layout) add_near_best(test, cost, weight, scores);
  };
  // A model-free order becomes costs: a config's cost is its position in the order.
  auto order_costs = [](const std::vector<int32_t>& order, const std::vector<int32_t>& configs) {
    std::vector<float> position(order.size());
    for (size_t i = 0; i < order.size(); ++i) position[static_cast<size_t>(order[i])] = static_cast<float>(i);
    std::vector<float> costs;
    for (int32_t c : configs) costs.push_back(position[static_cast<size_t>(c)]);
    return costs;
  };
  std::vector<RidgeRanker> ridges;
  if (ridge_plan.ridge_train_of.empty()) {
    ridges.emplace_back(ridge_plan.encoding);
    ridges.back().fit(train);
  } else {
    for (size_t t = 0; t < tests.size(); ++t) {
      ridges.emplace_back(ridge_plan.encoding);
      ridges.back().fit({train[ridge_plan.ridge_train_of[t]]});
    }
  }
  std::vector<const TpuGraph*> train_graphs;
  for (const GraphConfigs& item : train) train_graphs.push_back(item.graph);
  std::vector<CostModel> models;
  struct Variant {
    int layers;
    RankingLoss loss;
    bool relative;
    nn::Aggregation aggregation = nn::Aggregation::Mean;
  };
  const Variant variants[] = {{0, settings.train.loss, false},
                              {2, settings.train.loss, false},
                              {2, RankingLoss::GapMargin, false},
                              {2, settings.train.loss, true},
                              {2, settings.train.loss, false, nn::Aggregation::Max}};
  for (const Variant& variant : variants) {
    if (!layout && (variant.loss == RankingLoss::GapMargin || variant.relative || variant.aggregation != nn::Aggregation::Mean)) continue;
    TrainOptions options = settings.train;
    options.model.kind = collection_kind(collection);
    options.model.collection = collection;
    options.model.layers = variant.layers;
    options.model.seed = seed;
    options.model.relative_configs = variant.relative;
    options.model.aggregation = variant.aggregation;
    options.loss = variant.loss;
    models.emplace_back(options.model, fit_feature_statistics(train_graphs));
    const auto start = std::chrono::steady_clock::now();
    fit_model(models.back(), train, {}, options);
    std::fprintf(stderr, "  (%s) seed %llu  %d-layer model (loss %s%s, %s aggregation) trained in %.1f s\n", name.c_str(),
                 static_cast<unsigned long long>(seed), variant.layers, name_of(ranking_loss_names(), variant.loss).c_str(),
                 variant.relative ? ", relative configs" : "", name_of(aggregation_names(), variant.aggregation).c_str(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  for (size_t t = 0; t < tests.size(); ++t) {
    const GraphConfigs& test = tests[t];
    add(kMethods[0], test, order_costs(baseline_order(*test.graph, graphcost::BaselineStrategy::Random, seed), test.configs));
    add(kMethods[1], test, order_costs(baseline_order(*test.graph, graphcost::BaselineStrategy::FewestChanges, seed), test.configs));
    add(kMethods[2], test, ridges[ridges.size() == 1 ? 0 : t].predict(*test.graph, test.configs));
    for (size_t m = 0; m < models.size(); ++m) add(kMethods[3 + m], test, models[m].predict(models[m].prepare(*test.graph), test.configs));
  }
  for (auto& [method, scores] : sums) {
    if (scores.near_graphs > 0) scores.near_tau /= scores.near_graphs;
    else scores.near_tau = std::nan("");
    results[method].push_back(scores);
    std::fprintf(stderr, "  (%s) seed %llu  %-32s %.4f", name.c_str(), static_cast<unsigned long long>(seed), method.c_str(),
                 scores.metric);
    if (layout)
      std::fprintf(stderr, "  within 1%%: tau %.4f (%d graphs), top-5 slowdown %.5f", scores.near_tau, scores.near_graphs,
                   scores.top5_slowdown);
    std::fprintf(stderr, "\n");
  }
}

// "mean +- sd" of one score over seeds; `percent` scales by 100.
std::string cell(const Results& results, const std::string& method, double Scores::*field, bool percent = false) {
  const auto found = results.find(method);
  if (found == results.end()) return "-";
  std::vector<double> values;
  for (const Scores& scores : found->second) values.push_back((percent ? 100.0 : 1.0) * (scores.*field));
  char text[64];
  std::snprintf(text, sizeof text, percent ? "%.3f%% +- %.3f" : "%.3f +- %.3f", mean_of(values), sd_of(values));
  return text;
}

// One setting's table: the metric and, for layout, (e)'s two scores.
void print_table(const std::string& title, const Results& results, bool layout, const char* metric = "tau-b") {
  std::printf("\n%s\n\n", title.c_str());
  if (layout) {
    std::printf("| method | %s | (e) tau-b within 1%% of best | (e) top-5 slowdown |\n|---|---|---|---|\n", metric);
  } else {
    std::printf("| method | %s |\n|---|---|\n", metric);
  }
  for (const char* method : kMethods) {
    if (results.find(method) == results.end()) continue;
    std::printf("| %s | %s |", method, cell(results, method, &Scores::metric).c_str());
    if (layout)
      std::printf(" %s | %s |", cell(results, method, &Scores::near_tau).c_str(),
                  cell(results, method, &Scores::top5_slowdown, true).c_str());
    std::printf("\n");
  }
}

// Every config of a graph, or a seeded 80/20 split of them.
std::vector<int32_t> all_configs(const TpuGraph& graph) {
  std::vector<int32_t> all(static_cast<size_t>(graph.config_count));
  std::iota(all.begin(), all.end(), 0);
  return all;
}
std::pair<std::vector<int32_t>, std::vector<int32_t>> split_80_20(const TpuGraph& graph, uint64_t seed) {
  std::vector<int32_t> all = all_configs(graph);
  std::shuffle(all.begin(), all.end(), std::mt19937_64(seed));
  const auto cut = static_cast<std::ptrdiff_t>(all.size() * 4 / 5);
  return {std::vector<int32_t>(all.begin(), all.begin() + cut), std::vector<int32_t>(all.begin() + cut, all.end())};
}

// Real data: settings (a), (b) and (c).
int run_real(const Settings& settings) {
  std::vector<TpuGraph> train_files, valid_files, default_files;
  for (const std::string& path : find_npz_files(settings.data)) {
    const DatasetPath location = parse_dataset_path(path);
    if (location.collection.rfind("layout:xla:", 0) != 0) continue;
    if (location.split == "train") train_files.push_back(load_tpu_graph(path));
    if (location.split == "train" && location.collection == "layout:xla:default") default_files.push_back(load_tpu_graph(path));
    if (location.split == "valid" && location.collection == "layout:xla:random") valid_files.push_back(load_tpu_graph(path));
  }
  std::vector<GraphConfigs> train;
  for (const TpuGraph& g : train_files) {
    if (!g.runtimes_hidden) train.push_back({&g, {}});
  }
  if (train.empty() || valid_files.size() != 1 || valid_files.front().runtimes_hidden || default_files.size() != 1 ||
      default_files.front().runtimes_hidden) {
    std::fprintf(stderr,
                 "model_experiments: need labelled layout/xla train files (one of them layout/xla/default) and one labelled "
                 "layout/xla/random valid file under %s\n",
                 settings.data.c_str());
    return 1;
  }
  const TpuGraph& valid = valid_files.front();
  const TpuGraph& searched = default_files.front();
  Results across, within, within_default;
  const bool a = settings.setting.find('a') != std::string::npos, b = settings.setting.find('b') != std::string::npos,
             c = settings.setting.find('c') != std::string::npos;
  for (int s = 0; s < settings.seeds; ++s) {
    const uint64_t seed = static_cast<uint64_t>(s) + 1;
    if (a) {
      run_methods("a", "layout:xla:default,layout:xla:random", train, {{&valid, all_configs(valid)}}, {ConfigEncoding::Histogram, {}},
                  settings, seed, across);
    }
    if (b) {
      const auto [fit_part, test_part] = split_80_20(valid, seed);
      run_methods("b", "layout:xla:random", {{&valid, fit_part}}, {{&valid, test_part}}, {ConfigEncoding::PerNode, {}}, settings, seed,
                  within);
    }
    if (c) {
      const auto [fit_part, test_part] = split_80_20(searched, seed);
      run_methods("c", "layout:xla:default", {{&searched, fit_part}}, {{&searched, test_part}}, {ConfigEncoding::PerNode, {}}, settings,
                  seed, within_default);
    }
  }
  if (a)
    print_table("(a) across programs: train on the layout/xla train files, rank unet_3d.4x4.bf16 (xla random valid, 481 configs)", across,
                true);
  if (b) print_table("(b) 80/20 configs of unet_3d.4x4.bf16 (xla random valid); ridge per node", within, true);
  if (c) print_table("(c) 80/20 configs of unet3d (xla default train, the compiler's search); ridge per node", within_default, true);
  return 0;
}

// The labelled files of a collection and split with at least 2 configs, and their configs.
std::vector<GraphConfigs> labelled(const std::vector<TpuGraph>& files) {
  std::vector<GraphConfigs> out;
  for (const TpuGraph& g : files) {
    if (!g.runtimes_hidden && g.config_count >= 2) out.push_back({&g, all_configs(g)});
  }
  return out;
}

// Generated data: (v) every collection, train split -> valid split; (d) random -> default configs
// of the same programs.
int run_generated(const Settings& settings) {
  if (settings.setting.find('v') != std::string::npos) {
    for (const char* collection : kCollections) {
      const std::vector<TpuGraph> train_files = load_collection(settings.data, collection, "train");
      const std::vector<TpuGraph> valid_files = load_collection(settings.data, collection, "valid");
      const std::vector<GraphConfigs> train = labelled(train_files), valid = labelled(valid_files);
      if (train.empty() || valid.empty()) {
        std::fprintf(stderr, "model_experiments: %s has no labelled train or valid files under %s; skipped\n", collection,
                     settings.data.c_str());
        continue;
      }
      Results results;
      for (int s = 0; s < settings.seeds; ++s) {
        run_methods(collection, collection, train, valid, {ConfigEncoding::Histogram, {}}, settings, static_cast<uint64_t>(s) + 1, results);
      }
      const bool tile = std::string(collection) == "tile:xla";
      print_table(std::string("(v) ") + collection + ": train split -> valid split", results, !tile, tile ? "tile score" : "tau-b");
    }
  }
  if (settings.setting.find('d') != std::string::npos) {
    for (const std::string source : {"xla", "nlp"}) {
      const std::vector<TpuGraph> random_files = load_collection(settings.data, "layout:" + source + ":random", "train");
      const std::vector<TpuGraph> default_files = load_collection(settings.data, "layout:" + source + ":default", "train");
      const std::vector<GraphConfigs> train = labelled(random_files);
      std::vector<GraphConfigs> tests;
      RidgePlan ridge{ConfigEncoding::PerNode, {}};
      for (const GraphConfigs& searched : labelled(default_files)) {
        // The same program: the random collection's graph with the same name and configurable nodes.
        for (size_t t = 0; t < train.size(); ++t) {
          if (train[t].graph->location.stem == searched.graph->location.stem &&
              train[t].graph->configurable_nodes == searched.graph->configurable_nodes) {
            tests.push_back(searched);
            ridge.ridge_train_of.push_back(t);
            break;
          }
        }
      }
      if (train.empty() || tests.empty()) {
        std::fprintf(stderr, "model_experiments: no %s program in both layout:%s:random and layout:%s:default train under %s; skipped\n",
                     source.c_str(), source.c_str(), source.c_str(), settings.data.c_str());
        continue;
      }
      Results results;
      for (int s = 0; s < settings.seeds; ++s) {
        run_methods("d " + source, "layout:" + source + ":random", train, tests, ridge, settings, static_cast<uint64_t>(s) + 1, results);
      }
      char title[200];
      std::snprintf(title, sizeof title,
                    "(d) %s: train on layout:%s:random (%zu programs), rank the layout:%s:default configs of %zu of them", source.c_str(),
                    source.c_str(), train.size(), source.c_str(), tests.size());
      print_table(title, results, true);
    }
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
      "usage: model_experiments real [--data DIR] [--setting abc] [options]\n"
      "       model_experiments generated DIR [--setting vd] [options]\n"
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
  if (settings.setting.empty()) settings.setting = settings.mode == "real" ? "abc" : "vd";
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
