// One fine-tuning round of `graphcost tune` timed: a labelled file's first N configs of a seeded
// random order taken as measured (the replay oracle's runtimes), then one round that measures one
// more and learns from all of them (tune/tuner.h: the fit and the ranking of every candidate). One
// JSON line of medians. Built natively and for Node.js (web/CMakeLists.txt): bench/tune_round.sh
// compares the two, which is what the app's Tune panel runs.
// Usage: bench_tune_round FILE.npz [MEASURED=100] [REPEAT=3] [LEARNER=auto]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/heap_tuning.h"
#include "tune/tuner.h"

using namespace graphcost;

int main(int argc, char** argv) {
  keep_large_allocations_in_heap();
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_tune_round FILE.npz [MEASURED=100] [REPEAT=3] [LEARNER=auto]\n");
    return 2;
  }
  const int measured = argc > 2 ? std::atoi(argv[2]) : 100;
  const int repeat = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;
  const std::string learner = argc > 4 ? argv[4] : "auto";
  const TuningTarget target = tuning_target_from_graph(load_tpu_graph(argv[1]), argv[1]);
  std::vector<int32_t> order(static_cast<size_t>(target.graph.config_count));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 random(3);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random() % i]);
  order.resize(std::min<size_t>(order.size() - 1, static_cast<size_t>(measured)));
  std::vector<Measurement> made;
  for (const int32_t c : order) {
    Measurement m;
    m.config = c;
    m.seconds = static_cast<double>(target.graph.config_runtime_ns[static_cast<size_t>(c)]) * 1e-9;
    made.push_back(m);
  }
  std::vector<double> learn;
  std::string resolved;  // auto: the learner its cross-validation chose ("" for the others)
  for (int r = 0; r < repeat; ++r) {
    TuneOptions options;
    options.learner.kind = value_named(learner_names(), learner, "learner");
    options.budget = static_cast<int>(made.size()) + 1;
    options.per_round = 1;
    Tuner tuner(target, replay_oracle(target), nullptr, options);
    tuner.restore(made);
    const RoundReport report = tuner.run_round({});
    learn.push_back(report.learn_seconds);
    resolved = report.learner.value("chosen", std::string());
  }
  std::sort(learn.begin(), learn.end());
  std::printf(
      "{\"file\": \"%s\", \"nodes\": %d, \"configurable\": %d, \"candidates\": %d, \"measured\": %zu, \"learner\": \"%s\", "
      "\"chose\": \"%s\", \"round_ms\": %.1f}\n",
      argv[1], target.graph.node_count, target.graph.configurable_count(), target.graph.config_count, made.size() + 1, learner.c_str(),
      resolved.c_str(), learn[learn.size() / 2] * 1e3);
  return 0;
}
