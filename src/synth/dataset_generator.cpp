#include "synth/dataset_generator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "common/units.h"
#include "data/dataset_path.h"
#include "data/opcodes.h"
#include "data/random_layout_block.h"
#include "data/tile_configs.h"
#include "data/tpu_graph.h"
#include "hlo/hlo_import.h"
#include "scoring/solution.h"
#include "simulator/cost_simulator.h"
#include "simulator/program_from_graph.h"
#include "synth/graph_families.h"

namespace graphcost {
namespace {

namespace fs = std::filesystem;

constexpr double kLayoutNoise = 0.015;  // sigma of the log-normal measurement noise
constexpr double kTileNoise = 0.03;
// Imported modules with fewer configurable nodes are left out: too few layouts to rank (the real
// layout graphs have 38 to 848).
constexpr size_t kMinProgramConfigurable = 8;

uint64_t mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t hash_text(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

enum class Split { Train, Valid, Test };  // test files have hidden runtimes and hashed names
const char* split_name(Split split) { return split == Split::Train ? "train" : split == Split::Valid ? "valid" : "test"; }

struct Job {
  std::string collection, stem, path;
  Split split = Split::Train;
  uint64_t graph_seed = 0, config_seed = 0;
};

Split split_of(int index) {
  if (index == 0) return Split::Train;
  if (index == 1) return Split::Valid;
  if (index == 2) return Split::Test;
  const int r = index % 20;
  return r < 14 ? Split::Train : r < 17 ? Split::Valid : Split::Test;
}

// Simulated seconds as whole nanoseconds (at least 1). Programs whose runtimes could leave int64
// are refused when they are loaded (load_programs), so this never clamps a label.
int64_t to_ns(double seconds) {
  check_invariant(std::isfinite(seconds) && seconds >= 0 && seconds * 1e9 < 9e18, "a simulated runtime fits int64 nanoseconds");
  return std::max<int64_t>(1, std::llround(seconds * 1e9));
}

// The longest config-0 runtime a program may simulate to: other configs of it (slower layouts,
// noise) stay far inside int64 nanoseconds (9.2e18 ns, 292 years).
constexpr double kMaxProgramSeconds = 1e6;

void finish_runtimes(TpuGraph& graph, bool hidden, std::vector<int64_t>& true_runtimes, std::vector<int64_t>& true_normalizers) {
  true_runtimes = graph.config_runtime_ns;
  true_normalizers = graph.config_runtime_normalizers_ns;
  if (hidden) {
    std::fill(graph.config_runtime_ns.begin(), graph.config_runtime_ns.end(), 0);
    std::fill(graph.config_runtime_normalizers_ns.begin(), graph.config_runtime_normalizers_ns.end(), 1);
  }
  graph.runtimes_hidden = hidden;
}

GeneratedFile make_tile(const Job& job, const GeneratorOptions&, SolutionEntry& truth) {
  std::mt19937_64 random(job.graph_seed);
  const HloBuilder kernel_graph = build_tile_kernel(random);
  const TileKernel kernel = tile_kernel_of(kernel_graph);
  TpuGraph graph = kernel_graph.to_graph(GraphKind::Tile);
  graph.node_splits.clear();
  const std::vector<int64_t>& dims = kernel.output_dims;
  // The compiler's default: the largest power-of-two tile (minor dims first) whose double-buffered
  // working set fits half of VMEM.
  const HardwareModel hardware;
  std::vector<int64_t> default_tile(dims.size(), 1);
  for (size_t step = 0; step < 64; ++step) {
    bool grew = false;
    for (size_t d = dims.size(); d-- > 0;) {
      std::vector<int64_t> bigger = default_tile;
      bigger[d] = std::min(dims[d], bigger[d] * 2);
      double elements = 1;
      for (int64_t t : bigger) elements *= static_cast<double>(t);
      if (bigger[d] != default_tile[d] && 2 * elements * kernel.bytes_per_element <= hardware.vmem_bytes / 2) {
        default_tile = bigger;
        grew = true;
        break;
      }
    }
    if (!grew) break;
  }
  const int configs = static_cast<int>(std::exp(std::log(8.0) + (random() % 1000) / 1000.0 * std::log(1500.0 / 8.0)));
  std::vector<std::vector<int64_t>> tiles = {default_tile};
  while (static_cast<int>(tiles.size()) < configs) {
    if (random() % 20 == 0) {  // a repeated measurement of an earlier config
      tiles.push_back(tiles[random() % tiles.size()]);
      continue;
    }
    std::vector<int64_t> tile(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      const int64_t alignment = d + 1 == dims.size() ? 128 : d + 2 == dims.size() ? 8 : 1;
      const std::vector<int64_t> options = tile_options(dims[d], alignment);
      tile[d] = options[random() % options.size()];
    }
    tiles.push_back(tile);
  }
  // Shuffle so the default is not always config 0.
  for (size_t i = tiles.size(); i > 1; --i) std::swap(tiles[i - 1], tiles[random() % i]);
  const int64_t normalizer = to_ns(measure(tile_runtime(kernel, default_tile), kTileNoise, random));
  graph.config_count = static_cast<int32_t>(tiles.size());
  for (const auto& tile : tiles) {
    const std::vector<float> features = tile_config_features(dims, tile);
    graph.tile_config_features.insert(graph.tile_config_features.end(), features.begin(), features.end());
    graph.config_runtime_ns.push_back(to_ns(measure(tile_runtime(kernel, tile), kTileNoise, random)));
    graph.config_runtime_normalizers_ns.push_back(normalizer);
  }
  finish_runtimes(graph, job.split == Split::Test, truth.runtime_ns, truth.normalizer_ns);
  save_tpu_graph(graph, job.path);
  GeneratedFile file;
  file.family = "tile-kernel";
  file.nodes = graph.node_count;
  file.configs = graph.config_count;
  return file;
}

void random_node_config(const LayoutProgram& program, size_t slot, int8_t* values, std::mt19937_64& random) {
  const int32_t node = program.configurable_nodes()[slot];
  draw_random_layout_block(values, program.rank_of(node), random);
  draw_random_layout_block(values + 6, program.rank_of(node), random);  // input rank ~ output rank for these ops
  std::fill(values + 12, values + 18, static_cast<int8_t>(-1));
  if (program.has_kernel(node)) draw_random_layout_block(values + 12, program.rank_of(node), random);
}

// An imported HLO module as a program the generator can label (GeneratorOptions::programs_dir).
struct ImportedProgram {
  std::string name;
  bool nlp = false;
  TpuGraph graph;  // node features, edges, splits and names; configs filled per file
  std::vector<SynthNode> nodes;
  std::vector<int32_t> configurable;
};

struct ProgramPool {
  std::vector<ImportedProgram> programs;
  std::vector<size_t> xla, nlp;  // indices into programs, by the collections they feed
};

// The modules of `dir` (.hlo / .txt, in name order), imported and rebuilt for the simulator.
ProgramPool load_programs(const std::string& dir, GeneratorReport& report) {
  ProgramPool pool;
  if (dir.empty()) return pool;
  std::error_code error;
  if (!fs::is_directory(dir, error)) throw InputError(dir, "programs folder", "a folder of HLO text modules (.hlo, .txt)", "not a folder");
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string extension = entry.path().extension().string();
    if (entry.is_regular_file() && (extension == ".hlo" || extension == ".txt")) paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  if (paths.empty()) throw InputError(dir, "programs", "HLO text modules (.hlo, .txt)", "none in the folder");
  HloImportOptions import;
  import.random_configs = 0;
  for (const fs::path& path : paths) {
    ImportedProgram program;
    program.name = path.stem().string();
    program.graph = import_hlo_layout(path.string(), import).graph;
    const RebuiltProgram rebuilt = rebuild_program(program.graph);
    program.nodes = rebuilt.nodes;
    program.configurable = rebuilt.configurable;
    if (program.configurable.size() < kMinProgramConfigurable) {
      report.skipped_programs.push_back(program.name + " (" + std::to_string(program.configurable.size()) +
                                        " configurable nodes, fewer than " + std::to_string(kMinProgramConfigurable) + ")");
      continue;
    }
    const LayoutProgram priced(rebuilt.nodes, rebuilt.configurable);
    const double seconds = priced.runtime(priced.default_config());
    if (!(seconds <= kMaxProgramSeconds)) {
      throw InputError(path.string(), "simulated runtime of its own layouts",
                       "at most " + format_duration(kMaxProgramSeconds) + " (labels must fit int64 nanoseconds)",
                       format_duration(seconds) + " (dimensions far beyond any real program's)");
    }
    program.nlp = rebuilt.convolutions == 0;
    program.graph.config_count = 0;
    program.graph.layout_config_features.clear();
    program.graph.config_runtime_ns.clear();
    program.graph.runtimes_hidden = false;
    report.programs.push_back(program.name + " (" + (program.nlp ? "nlp" : "xla") + ", " + std::to_string(program.graph.node_count) +
                              " nodes, " + std::to_string(program.configurable.size()) + " configurable)");
    pool.programs.push_back(std::move(program));
  }
  if (pool.programs.empty()) {
    throw InputError(dir, "programs", "at least one module with " + std::to_string(kMinProgramConfigurable) + " or more configurable nodes",
                     "none of " + std::to_string(paths.size()));
  }
  for (size_t i = 0; i < pool.programs.size(); ++i) (pool.programs[i].nlp ? pool.nlp : pool.xla).push_back(i);
  return pool;
}

GeneratedFile make_layout(const Job& job, const GeneratorOptions& options, const ProgramPool& pool, SolutionEntry& truth) {
  std::mt19937_64 graph_random(job.graph_seed);
  const bool nlp = job.collection.find(":nlp:") != std::string::npos;
  // An imported program, or a family's: the choice draws from its own stream, so the families'
  // graphs are the same with or without --programs.
  const std::vector<size_t>& imported = nlp ? pool.nlp : pool.xla;
  const ImportedProgram* chosen = nullptr;
  if (!imported.empty()) {
    std::mt19937_64 pick(mix(job.graph_seed ^ 0x70726f6772616d73ull));
    if (static_cast<double>(pick() >> 11) * 0x1.0p-53 < options.program_share) chosen = &pool.programs[imported[pick() % imported.size()]];
  }
  std::vector<SynthNode> nodes;
  std::vector<int32_t> configurable;
  TpuGraph graph;
  std::string family_label;
  if (chosen != nullptr) {
    nodes = chosen->nodes;
    configurable = chosen->configurable;
    graph = chosen->graph;
    family_label = "hlo:" + chosen->name;
  } else {
    const auto& families = nlp ? nlp_families() : xla_families();
    const GraphFamily family = families[graph_random() % families.size()];
    const int cap = std::max(200, options.max_nodes);
    const double low = options.min_nodes > 0 ? options.min_nodes : 300.0;
    const int max_nodes = static_cast<int>(std::exp(std::log(low) + (graph_random() % 1000) / 1000.0 * std::log(std::max(1.0, cap / low))));
    // With --min-nodes, graphs that grow by repeating layers (bert) grow to the drawn size, so a
    // tree's sizes spread over [min, max] instead of all stopping at min.
    const int grow_to = options.min_nodes > 0 ? std::max(options.min_nodes, max_nodes * 9 / 10) : 0;
    const HloBuilder program_graph = build_program(family, graph_random, std::max(200, max_nodes), grow_to);
    configurable = configurable_candidates(program_graph);
    nodes = program_graph.nodes();
    graph = program_graph.to_graph(GraphKind::Layout);
    family_label = family_name(family);
  }
  if (static_cast<int>(configurable.size()) > options.max_configurable) {
    for (size_t i = configurable.size(); i > 1; --i) std::swap(configurable[i - 1], configurable[graph_random() % i]);
    configurable.resize(static_cast<size_t>(options.max_configurable));
    std::sort(configurable.begin(), configurable.end());
  }
  const LayoutProgram program(std::move(nodes), configurable);
  const size_t nc = configurable.size();

  std::mt19937_64 random(job.config_seed);
  const bool search_default = job.collection.find(":default") != std::string::npos;
  std::vector<int8_t> values;
  values.reserve(static_cast<size_t>(options.layout_configs) * nc * 18);
  const std::vector<int8_t> default_config = program.default_config();
  // The per-op optimum seeds some proposals of the search; random collections never use it.
  const std::vector<int8_t> local_best = search_default ? program.locally_best_config() : std::vector<int8_t>();
  std::vector<std::vector<int8_t>> configs;
  std::vector<double> seconds;
  // The "default" collections follow a compiler-like search: hill climbing from the default
  // layouts with changes that keep producers and consumers agreeing (plus a few free ones); every
  // proposal is measured. The "random" collections sample every block uniformly.
  std::vector<int8_t> current = default_config;
  // Each config is priced from the previous one: only what changed is recomputed, with the same
  // result as program.runtime() (simulator/cost_simulator.h).
  IncrementalLayoutRuntime simulate(program);
  double current_seconds = simulate.runtime(current);
  while (static_cast<int>(configs.size()) < options.layout_configs) {
    if (!configs.empty() && random() % 20 == 0) {  // a repeated measurement of an earlier config
      const size_t earlier = random() % configs.size();
      configs.push_back(configs[earlier]);
      seconds.push_back(seconds[earlier]);
      continue;
    }
    std::vector<int8_t> config(nc * 18);
    if (search_default && nc > 0) {
      config = random() % 8 == 0 ? local_best : current;
      const size_t changes = 1 + random() % 3;
      for (size_t c = 0; c < changes; ++c) {
        const size_t slot = random() % nc;
        const uint64_t rank = static_cast<uint64_t>(program.rank_of(program.configurable_nodes()[slot]));
        // A scalar output (an imported reshape of [1, 1] to []) has no dim to make minor.
        if (random() % 4 == 0 || rank == 0) {
          random_node_config(program, slot, config.data() + slot * 18, random);
        } else {
          program.coordinated_change(config, slot, static_cast<int>(random() % rank), static_cast<int>(random() % rank));
        }
      }
    } else {
      for (size_t slot = 0; slot < nc; ++slot) random_node_config(program, slot, config.data() + slot * 18, random);
    }
    const double time = simulate.runtime(config);
    if (search_default && time < current_seconds) {
      current = config;
      current_seconds = time;
    }
    configs.push_back(std::move(config));
    seconds.push_back(time);
  }
  graph.configurable_nodes = configurable;
  graph.config_count = static_cast<int32_t>(configs.size());
  double best = std::numeric_limits<double>::infinity();
  for (size_t c = 0; c < configs.size(); ++c) {
    values.insert(values.end(), configs[c].begin(), configs[c].end());
    best = std::min(best, seconds[c]);
    graph.config_runtime_ns.push_back(to_ns(measure(seconds[c], kLayoutNoise, random)));
  }
  graph.layout_config_features = std::move(values);
  finish_runtimes(graph, job.split == Split::Test, truth.runtime_ns, truth.normalizer_ns);
  save_tpu_graph(graph, job.path);
  GeneratedFile file;
  file.family = family_label;
  file.nodes = graph.node_count;
  file.configs = graph.config_count;
  file.configurable = static_cast<int>(nc);
  file.best_vs_default = best / program.runtime(default_config);
  return file;
}

std::vector<Job> plan(const GeneratorOptions& options) {
  std::vector<std::string> collections = options.collections;
  if (collections.empty()) collections.assign(std::begin(kCollections), std::end(kCollections));
  for (const std::string& collection : collections) {
    if (std::find(std::begin(kCollections), std::end(kCollections), collection) == std::end(kCollections)) {
      throw InputError("", "collection", "one of tile:xla, layout:xla:random, layout:xla:default, layout:nlp:random, layout:nlp:default",
                       "'" + printable(collection) + "'");
    }
  }
  std::vector<Job> jobs;
  for (int g = 0; g < options.graphs; ++g) {
    Job job;
    job.collection = collections[static_cast<size_t>(g) % collections.size()];
    const int index = g / static_cast<int>(collections.size());
    job.split = split_of(index);
    const bool tile = job.collection == "tile:xla";
    // A source's default and random collections hold the same programs (same graph, different
    // configs), as in the real dataset: the n-th graph of a split is one program in both. Test
    // files also share their hash. Train and valid programs are keyed by the random collection,
    // so the random collections' files are what they were before the default ones joined them.
    const std::string source = tile ? "tile" : job.collection.substr(0, job.collection.rfind(':'));
    const std::string split = split_name(job.split);
    const std::string graph_key = job.split == Split::Test ? source + ":test:" + std::to_string(index)
                                  : tile                   ? job.collection + ":" + split + ":" + std::to_string(index)
                                                           : source + ":random:" + split + ":" + std::to_string(index);
    job.graph_seed = mix(options.seed ^ hash_text(graph_key));
    job.config_seed = mix(job.graph_seed ^ hash_text(job.collection));
    char stem[40];
    if (job.split == Split::Test) {
      std::snprintf(stem, sizeof stem, "%016llx%016llx", static_cast<unsigned long long>(mix(job.graph_seed)),
                    static_cast<unsigned long long>(mix(job.graph_seed + 1)));
    } else {
      std::snprintf(stem, sizeof stem, "synthetic_%04d", index);
    }
    job.stem = stem;
    std::string folder = options.out + "/npz/";
    if (tile) {
      folder += "tile/xla/" + split;
    } else {
      const std::string rest = job.collection.substr(7);  // "xla:default"
      folder += "layout/" + rest.substr(0, rest.find(':')) + "/" + rest.substr(rest.find(':') + 1) + "/" + split;
    }
    job.path = folder + "/" + job.stem + ".npz";
    jobs.push_back(job);
  }
  return jobs;
}

}  // namespace

GeneratorReport generate_dataset(const GeneratorOptions& options, const GeneratorProgress& progress) {
  if (options.out.empty()) throw InputError("", "output folder", "a path", "none");
  if (options.graphs < 1) throw InputError("", "graphs", "at least 1", std::to_string(options.graphs));
  if (options.layout_configs < 2) throw InputError("", "configs per layout file", "at least 2", std::to_string(options.layout_configs));
  if (options.min_nodes > options.max_nodes) {
    throw InputError("", "minimum nodes", "at most the maximum (" + std::to_string(options.max_nodes) + ")",
                     std::to_string(options.min_nodes));
  }
  if (!(options.program_share >= 0 && options.program_share <= 1)) {
    throw InputError("", "program share", "a number in [0, 1]", std::to_string(options.program_share));
  }
  const std::vector<Job> jobs = plan(options);
  GeneratorReport report;
  const ProgramPool programs = load_programs(options.programs_dir, report);
  for (const Job& job : jobs) fs::create_directories(fs::path(job.path).parent_path());

  std::vector<GeneratedFile> files(jobs.size());
  std::vector<SolutionEntry> truths(jobs.size());
  std::atomic<size_t> next{0}, done{0};
  std::atomic<bool> stop{false};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    for (size_t i; !stop && (i = next++) < jobs.size();) {
      try {
        const Job& job = jobs[i];
        files[i] = job.collection == "tile:xla" ? make_tile(job, options, truths[i]) : make_layout(job, options, programs, truths[i]);
        files[i].path = job.path;
        files[i].collection = job.collection;
        files[i].split = split_name(job.split);
        truths[i].id = job.collection + ":" + job.stem;
        truths[i].collection = job.collection;
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        stop = true;
      }
      ++done;
    }
  };
  // Workers generate; this thread reports progress and relays a stop request.
  const int thread_count = std::max(1, std::min(options.threads, static_cast<int>(jobs.size())));
  std::vector<std::thread> threads;
  try {
    for (int t = 0; t < thread_count; ++t) threads.emplace_back(worker);
  } catch (const std::system_error&) {  // no threads here (e.g. WebAssembly without pthreads)
    if (threads.empty()) worker();
  }
  size_t reported = 0;
  while (done < jobs.size() && !stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const size_t now = done;
    if (now != reported && progress && !progress(now, jobs.size(), jobs[now - 1].path)) stop = true;
    reported = now;
  }
  for (std::thread& thread : threads) thread.join();
  if (failure) std::rethrow_exception(failure);
  if (progress) progress(done, jobs.size(), "");

  Solution solution;
  for (size_t i = 0; i < jobs.size() && i < done; ++i) {
    if (files[i].path.empty()) continue;
    report.files.push_back(files[i]);
    if (jobs[i].split == Split::Test) solution.entries.push_back(truths[i]);
  }
  if (!solution.entries.empty()) {
    solution.rebuild_index();
    assign_usage(solution, options.seed, 0.5);
    report.solution_path = options.out + "/solution_test.csv";
    write_solution(solution, report.solution_path);
  }
  return report;
}

}  // namespace graphcost
