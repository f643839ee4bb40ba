// The C++ calls the Python package wraps, timed alone (bench/python_overhead.py times the same
// calls through `import graphcost` and prints the bindings' share): load_graph_file, a model's
// predict on every config, and train_model for a fixed number of steps. One JSON line of medians.
// Usage: bench_python_peer GRAPH.npz MODEL.npz TREE COLLECTION [REPEAT]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/heap_tuning.h"
#include "hlo/graph_file.h"
#include "model/cost_model.h"
#include "train/trainer.h"

using namespace graphcost;

namespace {

// (median, fastest) of `repeat` timed runs in ms; one untimed run first (caches, the heap's first
// growth), as python_overhead.py does.
std::pair<double, double> median_ms(int repeat, const std::function<void()>& body) {
  body();
  std::vector<double> ms;
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    body();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front()};
}

}  // namespace

int main(int argc, char** argv) {
  keep_large_allocations_in_heap();
  if (argc < 5) {
    std::fprintf(stderr, "usage: bench_python_peer GRAPH.npz MODEL.npz TREE COLLECTION [REPEAT]\n");
    return 2;
  }
  const std::string graph_path = argv[1], model_path = argv[2], tree = argv[3], collection = argv[4];
  const int repeat = argc > 5 ? std::max(1, std::atoi(argv[5])) : 7;
  const auto load = median_ms(repeat, [&] { (void)load_graph_file(graph_path).graph.node_count; });
  const TpuGraph graph = load_graph_file(graph_path).graph;
  CostModel model = CostModel::load(model_path);
  const auto predict = median_ms(repeat, [&] { (void)model.predict(model.prepare(graph), 64, 1).size(); });
  const auto train = median_ms(std::max(1, repeat / 2), [&] {
    TrainOptions options;
    options.data = tree;
    options.collection = collection;
    options.out = "/tmp/graphcost-python-peer.npz";
    options.epochs = 1;
    options.steps_per_epoch = 50;
    options.model.hidden = 64;
    train_model(options);
  });
  std::printf(
      "{\"load_ms\": %.3f, \"predict_ms\": %.3f, \"train_50_steps_ms\": %.3f, \"load_min_ms\": %.3f, \"predict_min_ms\": %.3f, "
      "\"train_50_steps_min_ms\": %.3f}\n",
      load.first, predict.first, train.first, load.second, predict.second, train.second);
  return 0;
}
