// Imports an HLO text module `repeat` times in one process and prints one JSON line: the median
// time of each stage (parse the text; build the graph and its 140 features; draw the configs),
// parse + graph as MB/s of text, and the peak resident memory against the file's size. Driven by
// bench/hlo_import_vs_python.sh, which times the whole `graphcost import` and the Python reader of
// the same text (tests/fixtures/hlo_graph_count.py) beside it.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/heap_tuning.h"
#include "hlo/hlo_graph.h"
#include "hlo/hlo_module.h"
#include "hlo/module_configs.h"
#include "machine.h"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }
double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  graphcost::keep_large_allocations_in_heap();  // as the graphcost CLI does
  std::fprintf(stderr, "%s\n", graphcost::bench::machine_line(graphcost::bench::measure_machine()).c_str());
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_hlo_import MODULE.hlo [REPEAT] [CONFIGS]\n");
    return 2;
  }
  const int repeat = argc > 2 ? std::max(1, std::atoi(argv[2])) : 11;
  const int configs = argc > 3 ? std::max(0, std::atoi(argv[3])) : 100;
  std::ifstream file(argv[1], std::ios::binary);
  std::stringstream buffer;
  buffer << file.rdbuf();
  const std::string text = buffer.str();
  std::vector<double> parse, graph, draw;
  int64_t nodes = 0;
  for (int i = 0; i < repeat; ++i) {
    std::string copy = text;  // the module keeps its text
    auto start = Clock::now();
    const graphcost::HloModule module = graphcost::parse_hlo_module(std::move(copy), argv[1]);
    parse.push_back(seconds_since(start));
    start = Clock::now();
    graphcost::HloGraph hlo = graphcost::build_hlo_graph(module);
    graph.push_back(seconds_since(start));
    start = Clock::now();
    graphcost::add_layout_configs(module, hlo, configs, 0);
    draw.push_back(seconds_since(start));
    nodes = hlo.graph.node_count;
  }
  std::vector<double> parse_and_graph(parse.size());
  for (size_t i = 0; i < parse.size(); ++i) parse_and_graph[i] = parse[i] + graph[i];
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  const double megabytes = static_cast<double>(text.size()) / 1e6;
  std::printf(
      "{\"bytes\": %zu, \"nodes\": %lld, \"repeat\": %d, \"parse_ms\": %.3f, \"graph_ms\": %.3f, \"configs_ms\": %.3f, "
      "\"parse_and_graph_ms\": %.3f, \"parse_and_graph_mb_per_s\": %.1f, \"peak_rss_kib\": %ld}\n",
      text.size(), static_cast<long long>(nodes), repeat, median(parse) * 1e3, median(graph) * 1e3, median(draw) * 1e3,
      median(parse_and_graph) * 1e3, megabytes / median(parse_and_graph), usage.ru_maxrss);
  return 0;
}
