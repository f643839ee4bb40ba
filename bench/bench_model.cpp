// Times the cost model on one TpuGraphs file and prints one JSON line of medians:
//   rank:        ranking every config (LayoutInference for layout graphs, 1 and 2 threads), and
//                the plain batched forward pass on a sample of configs, scaled to 1,000 configs
//   train_step:  one training step (forward, ListMLE, backward, Adam) on `configs` configs, drawn
//                as the trainer draws them (distinct ones, at random, seed 0); layout graphs also
//                print the batch's rows and its distinct rows at each layer (what the step computes)
// --what rank times only the 1-thread ranking (what the WebAssembly build runs: it has no threads;
// bench/ranking_wasm_vs_native.sh runs it in both builds), --what train only the training step.
// The model is a fresh one (--hidden/--layers/--hops, seed 0) or --model FILE. Driven by
// bench/model_vs_pytorch.py, which times the same architecture in PyTorch on the same file.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/heap_tuning.h"
#include "data/graph_summary.h"
#include "machine.h"
#include "model/cost_model.h"
#include "model/layout_inference.h"
#include "nn/ops.h"
#include "nn/optimizer.h"

using namespace graphcost;

namespace {

double median_seconds(int repeat, const std::function<void()>& body) {
  std::vector<double> seconds;
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    body();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  keep_large_allocations_in_heap();
  std::string file, model_path;
  ModelConfig config;
  config.hidden = 64;
  config.layers = 2;
  int repeat = 3, sample = 32, step_configs = 16;
  std::string what = "all";  // all | rank | train
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : "";
    if (arg == "--model") model_path = value, ++i;
    else if (arg == "--hidden") config.hidden = std::atoi(value), ++i;
    else if (arg == "--layers") config.layers = std::atoi(value), ++i;
    else if (arg == "--hops") config.hops = std::atoi(value), ++i;
    else if (arg == "--repeat") repeat = std::max(1, std::atoi(value)), ++i;
    else if (arg == "--sample") sample = std::max(1, std::atoi(value)), ++i;
    else if (arg == "--what") what = value, ++i;
    else if (arg == "--configs") step_configs = std::max(2, std::atoi(value)), ++i;
    else if (arg[0] != '-') file = arg;
    else {
      std::fprintf(stderr, "bench_model: unknown option %s\n", arg.c_str());
      return 2;
    }
  }
  if (file.empty()) {
    std::fprintf(stderr,
                 "usage: bench_model FILE.npz [--model M | --hidden H --layers L --hops K] [--repeat R] [--sample S] [--configs B]\n");
    return 2;
  }
  try {
    const TpuGraph graph = load_tpu_graph(file);
    config.kind = graph.kind;
    CostModel model = model_path.empty() ? CostModel(config, fit_feature_statistics({&graph})) : CostModel::load(model_path);
    PreparedGraph prepared;
    const double prepare_s = median_seconds(repeat, [&] { prepared = model.prepare(graph); });
    std::vector<int32_t> all(static_cast<size_t>(graph.config_count));
    std::iota(all.begin(), all.end(), 0);
    std::vector<int32_t> sampled(all.begin(), all.begin() + std::min<size_t>(all.size(), static_cast<size_t>(sample)));

    // Plain forward in batches of 16, on the sample; scaled to 1,000 configs.
    const double forward_s = what != "all" ? 0.0 : median_seconds(repeat, [&] {
      for (size_t start = 0; start < sampled.size(); start += 16) {
        const std::vector<int32_t> chunk(sampled.begin() + static_cast<std::ptrdiff_t>(start),
                                         sampled.begin() + static_cast<std::ptrdiff_t>(std::min(sampled.size(), start + 16)));
        nn::Tape tape;
        model.forward(tape, prepared, chunk);
      }
    });
    std::printf("{\"machine\": %s, ", bench::machine_json(bench::measure_machine()).dump().c_str());
    std::printf(
        "\"file\": \"%s\", \"view_rows\": %d, \"configs\": %d, \"hidden\": %d, \"layers\": %d, \"hops\": %d, \"prepare_ms\": %.3f, "
        "\"forward_per_1000_configs_ms\": %.3f",
        file.c_str(), prepared.view.size(), graph.config_count, model.config().hidden, model.config().layers, model.config().hops,
        prepare_s * 1e3, forward_s / static_cast<double>(sampled.size()) * 1000 * 1e3);
    if (graph.kind == GraphKind::Layout && what != "train") {
      std::vector<double> rows;
      double setup_s = 0;
      for (int threads : what == "rank" ? std::vector<int>{1} : std::vector<int>{1, 2}) {
        const double rank_s = median_seconds(repeat, [&] {
          const auto start = std::chrono::steady_clock::now();
          const LayoutInference inference(model, prepared);
          setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          inference.predict(all, threads);
          rows = inference.mean_recomputed_rows();
        });
        std::printf(", \"rank_all_%dthread_ms\": %.3f", threads, rank_s * 1e3);
      }
      std::printf(", \"incremental_setup_ms\": %.3f, \"mean_recomputed_rows\": [", setup_s * 1e3);
      for (size_t l = 0; l < rows.size(); ++l) std::printf("%s%.1f", l ? ", " : "", rows[l]);
      std::printf("]");
    }
    if (what == "rank") {
      std::printf("}\n");
      return 0;
    }
    // One training step: forward, ListMLE, backward, Adam.
    // As the trainer draws them: distinct configs (layout graphs repeat some), a random sample.
    std::vector<int32_t> step_pool = graph.kind == GraphKind::Layout ? group_identical_configs(graph, all).distinct : all;
    std::mt19937_64 random(0);
    const size_t step_count = std::min<size_t>(step_pool.size(), static_cast<size_t>(step_configs));
    for (size_t i = 0; i < step_count; ++i) std::swap(step_pool[i], step_pool[i + random() % (step_pool.size() - i)]);
    step_pool.resize(step_count);
    std::vector<double> runtimes;
    for (int32_t c : step_pool) runtimes.push_back(static_cast<double>(c % 7 + 1));
    nn::Adam adam(model.parameters(), nn::AdamOptions{});
    const double step_s = median_seconds(repeat * 3, [&] {
      nn::Tape tape;
      const nn::Var loss = nn::listmle_loss(model.forward(tape, prepared, step_pool), runtimes);
      tape.backward(loss);
      adam.step(1.0f);
    });
    std::printf(", \"train_step_configs\": %zu, \"train_step_ms\": %.3f", step_pool.size(), step_s * 1e3);
    if (graph.kind == GraphKind::Layout && !model.couples_configs()) {
      // The rows the step computes: the batch's (config, node) rows, and the distinct ones at each
      // layer (model/distinct_rows.h), which is what the step computes.
      const DistinctRows plan = model.distinct_rows(prepared, step_pool);
      std::printf(", \"train_step_rows\": %zu, \"train_step_distinct_rows\": [%zu",
                  step_pool.size() * static_cast<size_t>(prepared.view.size()), plan.input_nodes.size());
      for (const auto& layer : plan.layers) std::printf(", %zu", layer->self.size());
      std::printf("]");
    }
    std::printf("}\n");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_model: %s\n", error.what());
    return 1;
  }
  return 0;
}
