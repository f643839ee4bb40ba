// Times the layout cost simulator on one generated program, as `graphcost gen` labels configs: the
// full simulation (LayoutProgram::runtime, every node) against the incremental one
// (IncrementalLayoutRuntime: only what changed since the previous config), on the same configs in
// the same run, and checks that every runtime agrees bit for bit. Configs are drawn as the random
// collections draw them (every block random) and as the default collections' search proposes them
// (one to three slots changed). Prints the machine line and one JSON line.
// Usage: bench_simulator [--nodes 5000] [--family bert|resnet|...] [--configs 2000] [--seed 1]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "data/opcodes.h"
#include "machine.h"
#include "simulator/cost_simulator.h"
#include "synth/graph_families.h"

using namespace graphcost;

int main(int argc, char** argv) {
  int nodes = 5000, configs = 2000;
  uint64_t seed = 1;
  std::string family_text = "bert";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--nodes")) nodes = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--configs")) configs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--family")) family_text = argv[i + 1];
  }
  GraphFamily family = GraphFamily::Bert;
  for (GraphFamily f :
       {GraphFamily::ResNet, GraphFamily::Inception, GraphFamily::EfficientNet, GraphFamily::UNet3D, GraphFamily::Rnn, GraphFamily::Bert}) {
    if (family_text == family_name(f)) family = f;
  }
  const bench::Machine machine = bench::measure_machine();
  std::printf("%s\n", bench::machine_line(machine).c_str());
  std::mt19937_64 random(seed);
  const HloBuilder program_graph = build_program(family, random, nodes, nodes);
  std::vector<int32_t> configurable = configurable_candidates(program_graph);  // as graphcost gen picks them (at most 500)
  if (configurable.size() > 500) configurable.resize(500);
  const LayoutProgram program(program_graph, configurable);
  const size_t nc = configurable.size();

  nlohmann::json result = {{"machine", bench::machine_json(machine)},
                           {"family", family_name(family)},
                           {"nodes", program_graph.node_count()},
                           {"configurable", nc}};
  for (const char* kind : {"random", "search"}) {
    // The configs, drawn first so that neither timing includes drawing them.
    std::vector<std::vector<int8_t>> drawn;
    std::vector<int8_t> config = program.default_config();
    for (int c = 0; c < configs; ++c) {
      if (std::strcmp(kind, "random") == 0) {
        for (size_t slot = 0; slot < nc; ++slot) {
          const int rank = program.rank_of(configurable[slot]);
          for (int k = 0; k < 18; ++k)
            config[slot * 18 + static_cast<size_t>(k)] = static_cast<int8_t>(static_cast<int>(random() % (rank + 1)) - 1);
        }
      } else {
        for (uint64_t change = 0, changes = 1 + random() % 3; change < changes; ++change) {
          const size_t slot = random() % nc;
          const uint64_t rank = static_cast<uint64_t>(program.rank_of(configurable[slot]));
          program.coordinated_change(config, slot, static_cast<int>(random() % rank), static_cast<int>(random() % rank));
        }
      }
      drawn.push_back(config);
    }
    std::vector<double> full(drawn.size()), incremental(drawn.size());
    const auto start = std::chrono::steady_clock::now();
    for (size_t c = 0; c < drawn.size(); ++c) full[c] = program.runtime(drawn[c]);
    const auto middle = std::chrono::steady_clock::now();
    IncrementalLayoutRuntime simulate(program);
    size_t recomputed = 0;
    for (size_t c = 0; c < drawn.size(); ++c) {
      incremental[c] = simulate.runtime(drawn[c]);
      recomputed += simulate.recomputed_nodes();
    }
    const auto end = std::chrono::steady_clock::now();
    size_t mismatches = 0;
    for (size_t c = 0; c < drawn.size(); ++c) mismatches += full[c] != incremental[c];
    const double full_s = std::chrono::duration<double>(middle - start).count(),
                 incremental_s = std::chrono::duration<double>(end - middle).count();
    result[kind] = {{"configs", drawn.size()},
                    {"full_configs_per_s", drawn.size() / full_s},
                    {"incremental_configs_per_s", drawn.size() / incremental_s},
                    {"speedup", full_s / incremental_s},
                    {"mean_recomputed_nodes", static_cast<double>(recomputed) / drawn.size()},
                    {"mismatches", mismatches}};
  }
  std::printf("%s\n", result.dump().c_str());
  return 0;
}
