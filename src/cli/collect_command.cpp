#include "cli/collect_command.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "hlo/fusion_kernels.h"
#include "hlo/hlo_import.h"
#include "lowering/hlo_to_halide.h"
#include "lowering/lowering_ops.h"
#include "lowering/measure_targets.h"

namespace graphcost {

CLI::App* add_collect_command(CLI::App& app, CollectOptions& options) {
  CLI::App* command = app.add_subcommand(
      "collect", "A labelled TpuGraphs tree of this CPU's runtimes (layout:cpu, tile:cpu) from every module in a directory it can lower");
  command->add_option("--programs", options.programs, "A directory of modules (.hlo HLO text, .pb protos)")->required();
  command->add_option("--out", options.out, "The tree to write (or to continue: files already there are kept)")->required();
  command->add_option("--configs", options.configs, "Random layout configs a file beside config 0")->capture_default_str();
  command->add_option("--tile-configs", options.tile_configs, "Tile configs a kernel beside the untiled one (at most)")
      ->capture_default_str();
  command->add_option("--kernels", options.kernels, "Distinct kernels a module at most, the largest first")->capture_default_str();
  command->add_option("--max-gflop", options.max_gflop, "Leave out what would run longer: estimated work of one run, GFLOP")
      ->capture_default_str();
  command->add_option("--max-input-mb", options.max_input_mb, "Leave out what reads more: its parameters' size, MB")->capture_default_str();
  command->add_option("--max-repeats", options.max_repeats, "Timed runs of one config at most once --min-seconds are timed")
      ->capture_default_str();
  command->add_option("--test", options.test_programs, "Modules (file names without extension) whose files go to the test split")
      ->delimiter(',');
  command->add_option("--valid", options.valid_programs, "Modules whose files go to the valid split (the others: by a hash of the name)")
      ->delimiter(',');
  add_config_bounds(command, options.bounds);
  command->add_option("--seed", options.seed, "The random configs, the inputs' values and the order");
  command->add_flag("-q,--quiet", options.quiet, "No progress on stderr");
  return command;
}

namespace {

volatile std::sig_atomic_t interrupted = 0;
void on_interrupt(int) { interrupted = 1; }

// One file to write: a module's or a kernel's layout configs, or a kernel's tile configs.
struct CollectUnit {
  std::string module_path, kernel;  // kernel "": the whole module
  bool tile = false;
  std::string out;
  double gflop = 0;
};

int64_t elements(const HloShape& shape) {
  int64_t count = 1;
  for (const int64_t d : shape.dims) count *= std::max<int64_t>(d, 1);
  return count;
}

// Estimated work of one run, in GFLOP: a dot's and a convolution's multiply-adds, a reduce-window's
// window per output, an element for every other value.
double estimated_gflop(const HloModule& module) {
  double flop = 0;
  for (const HloComputation& computation : module.computations) {
    for (const HloInstruction& in : computation.instructions) {
      if (in.shape.is_tuple()) continue;
      double work = static_cast<double>(elements(in.shape));
      const auto operand = [&](size_t k) -> const HloShape& { return computation.instructions[static_cast<size_t>(in.operands[k])].shape; };
      if (in.opcode == "dot" && !in.operands.empty()) {
        const HloShape& lhs = operand(0);
        std::vector<int64_t> contracting;
        try {
          contracting =
              lowering::integer_list_text(in.op_attributes().text_of("lhs_contracting_dims"), std::string(in.name), "lhs_contracting_dims");
        } catch (const InputError&) {
          // a malformed list: the lowering refuses it, this estimate counts elements only
        }
        for (const int64_t d : contracting) {
          if (d >= 0 && static_cast<size_t>(d) < lhs.dims.size()) work *= 2.0 * static_cast<double>(lhs.dims[static_cast<size_t>(d)]);
        }
      } else if (in.opcode == "convolution" && in.operands.size() == 2 && in.op_attributes().has_convolution_dims) {
        // Each output element: 2 x the kernel's elements per output feature (input features x window).
        const HloShape& kernel = operand(1);
        const auto feature = static_cast<size_t>(in.op_attributes().convolution_dims.kernel_output_feature);
        if (feature < kernel.dims.size()) {
          work *= 2.0 * static_cast<double>(elements(kernel)) / static_cast<double>(std::max<int64_t>(kernel.dims[feature], 1));
        }
      } else if (in.opcode == "reduce-window") {
        for (const HloWindowDim& window : in.op_attributes().window) work *= static_cast<double>(std::max<int64_t>(window.size, 1));
      }
      flop += work;
    }
  }
  return flop * 1e-9;
}

// The megabytes of `module`'s entry parameters: what every config fills with random values.
double input_megabytes(const HloModule& module) {
  double bytes = 0;
  for (const HloInstruction& in : module.computations.at(static_cast<size_t>(module.entry)).instructions) {
    if (in.opcode != "parameter" || in.shape.is_tuple()) continue;
    const std::string_view type = in.shape.element_type;
    const double size = type == "f64" || type == "s64" || type == "u64"   ? 8
                        : type == "f32" || type == "s32" || type == "u32" ? 4
                        : type == "pred" || type == "s8" || type == "u8"  ? 1
                                                                          : 2;
    bytes += size * static_cast<double>(elements(in.shape));
  }
  return bytes / 1e6;
}

// Why a module or kernel is past the collect's bounds ("" when it is not).
std::string past_bounds(const HloModule& module, const CollectOptions& options) {
  const double gflop = estimated_gflop(module), megabytes = input_megabytes(module);
  if (gflop > options.max_gflop) return "estimated " + std::to_string(gflop) + " GFLOP a run, past --max-gflop";
  if (megabytes > options.max_input_mb) return std::to_string(megabytes) + " MB of parameters, past --max-input-mb";
  return "";
}

// What makes two kernels the same program: each instruction's opcode and shape, in order.
std::string kernel_signature(const HloModule& kernel) {
  std::string signature;
  for (const HloComputation& computation : kernel.computations) {
    for (const HloInstruction& in : computation.instructions) {
      signature += std::string(in.opcode) + ":" + std::string(in.shape.element_type);
      for (const int64_t d : in.shape.dims) signature += "," + std::to_string(d);
      signature += std::string(in.op_attributes().text_of("lhs_contracting_dims")) + ";";
    }
  }
  return signature;
}

// "train" for most modules, "valid" or "test" for some: a hash of the module's name (FNV-1a), so
// a module keeps its split however many others the directory holds.
std::string split_of(const std::string& stem) {
  uint64_t hash = 1469598103934665603ull;
  for (const char c : stem) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  const uint64_t bucket = hash % 10;
  return bucket < 2 ? "test" : bucket < 3 ? "valid" : "train";
}

// The kernels worth a file: fusions, and dots and convolutions outside fused computations, that
// lower and fit --max-gflop, one of each signature, the largest --kernels.
std::vector<std::pair<std::string, double>> chosen_kernels(const HloModule& module, const CollectOptions& options,
                                                           nlohmann::json& skipped) {
  std::set<int32_t> fused;
  for (const HloComputation& computation : module.computations) {
    for (const HloInstruction& in : computation.instructions) {
      if (in.opcode == "fusion") fused.insert(in.called_computations.begin(), in.called_computations.end());
    }
  }
  std::vector<std::pair<std::string, double>> kernels;
  std::set<std::string> signatures;
  for (size_t c = 0; c < module.computations.size(); ++c) {
    if (fused.count(static_cast<int32_t>(c))) continue;
    const std::vector<HloInstruction>& instructions = module.computations[c].instructions;
    for (size_t i = 0; i < instructions.size(); ++i) {
      const std::string_view opcode = instructions[i].opcode;
      if (opcode != "fusion" && opcode != "dot" && opcode != "convolution") continue;
      const HloModule kernel = kernel_module(module, {static_cast<int32_t>(c), static_cast<int32_t>(i)});
      const std::string name(instructions[i].name);
      if (!signatures.insert(kernel_signature(kernel)).second) continue;
      const double gflop = estimated_gflop(kernel);
      if (const std::string why = past_bounds(kernel, options); !why.empty()) {
        skipped.push_back({{"kernel", name}, {"why", why}});
        continue;
      }
      try {
        lower_computation(kernel, kernel.entry);
      } catch (const InputError& error) {
        skipped.push_back({{"kernel", name}, {"why", error.what()}});
        continue;
      }
      kernels.emplace_back(name, gflop);
    }
  }
  std::stable_sort(kernels.begin(), kernels.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (kernels.size() > static_cast<size_t>(std::max(options.kernels, 0))) kernels.resize(static_cast<size_t>(std::max(options.kernels, 0)));
  return kernels;
}

// The files `module` (read from `path`) gives.
std::vector<CollectUnit> units_of(const HloModule& module, const std::string& path, const CollectOptions& options, nlohmann::json& log) {
  const std::string stem = std::filesystem::path(path).stem().string();
  const auto named = [&](const std::vector<std::string>& names) { return std::find(names.begin(), names.end(), stem) != names.end(); };
  const std::string split = named(options.test_programs) ? "test" : named(options.valid_programs) ? "valid" : split_of(stem);
  const std::filesystem::path tree(options.out);
  std::vector<CollectUnit> units;
  nlohmann::json skipped = nlohmann::json::array();
  const double module_gflop = estimated_gflop(module);
  try {
    if (const std::string why = past_bounds(module, options); !why.empty()) throw InputError(path, "size", "within the bounds", why);
    lower_computation(module, module.entry);
    layout_target(module, path, ModuleFileFormat::HloText, "", 0, options.seed);  // a configurable node, or InputError
    units.push_back({path, "", false, (tree / "layout/cpu/random" / split / (stem + ".npz")).string(), module_gflop});
  } catch (const InputError& error) {
    skipped.push_back({{"kernel", "(the whole module)"}, {"why", error.what()}});
  }
  for (const auto& [kernel, gflop] : chosen_kernels(module, options, skipped)) {
    const std::string kernel_stem = stem + "." + kernel;
    // Planned only where there is something to choose: a configurable node (layouts), an array
    // output of static dimensions (tiles); the targets say why not (a scalar dot has neither).
    for (const bool tile : {false, true}) {
      try {
        HloModule kernel_module = named_kernel(module, path, kernel);
        const MeasureTarget target =
            tile ? tile_target(std::move(kernel_module), path, "", 0, options.seed)
                 : layout_target(std::move(kernel_module), path, ModuleFileFormat::HloText, kernel, 0, options.seed);
        (void)target;
        const std::string file = (tile ? tree / "tile/cpu" : tree / "layout/cpu/random") / split / (kernel_stem + ".npz");
        units.push_back({path, kernel, tile, file, gflop});
      } catch (const InputError& error) {
        skipped.push_back({{"kernel", kernel + (tile ? " (tiles)" : " (layouts)")}, {"why", error.what()}});
      }
    }
  }
  // A file of this module in another split (a run with other --test or --valid) would put one
  // program in two splits: refused, naming it, rather than measured again beside it.
  for (const CollectUnit& unit : units) {
    const std::filesystem::path file(unit.out);
    for (const char* other : {"train", "valid", "test"}) {
      const std::filesystem::path elsewhere = file.parent_path().parent_path() / other / file.filename();
      if (other != split && std::filesystem::exists(elsewhere)) {
        throw InputError(elsewhere.string(), "split", split + " (where this run puts " + stem + ")",
                         std::string(other) + " (an earlier run's: delete its files or give the split it had)");
      }
    }
  }
  log.push_back({{"module", path}, {"split", split}, {"files", units.size()}, {"left_out", skipped}});
  return units;
}

// Measures one unit and writes its file; a line for collect.jsonl.
nlohmann::json collect_unit(const CollectUnit& unit, const CollectOptions& options) {
  ModuleFileFormat format = ModuleFileFormat::HloText;
  HloModule module = read_hlo_module(unit.module_path, nullptr, &format);
  const std::string source = (unit.kernel.empty() ? "the entry of " : "the kernel of " + unit.kernel + " of ") +
                             module_source_text(unit.module_path, format, module);
  HloModule measured = unit.kernel.empty() ? std::move(module) : named_kernel(module, unit.module_path, unit.kernel);
  MeasureTarget target = unit.tile
                             ? tile_target(std::move(measured), unit.module_path, source, options.tile_configs, options.seed)
                             : layout_target(std::move(measured), unit.module_path, format, unit.kernel, options.configs, options.seed);
  MeasureOptions protocol;
  protocol.max_repeats = options.max_repeats;
  apply_config_bounds(options.bounds, protocol);
  protocol.seed = options.seed;
  const std::vector<ConfigMeasurement> results = measure_target(target, protocol, [](int64_t, int64_t) { return interrupted == 0; });
  if (interrupted) return {};
  const std::string runs = measurement_runs_json(target, results, protocol);
  const MeasuredSummary summary = label_measured(target, results, protocol, unit.module_path);
  std::filesystem::create_directories(std::filesystem::path(unit.out).parent_path());
  write_file_atomically(unit.out + ".runs.json", runs);  // before the file: a file present means both are (collect resumes by files)
  save_tpu_graph(target.graph, unit.out);
  return {{"file", unit.out},
          {"configs", summary.measured},
          {"not_measured", summary.not_measured},
          {"config0_ms", summary.config0 * 1e3},
          {"fastest_ms", summary.fastest * 1e3},
          {"slowest_ms", summary.slowest * 1e3}};
}

}  // namespace

int run_collect_command(const CollectOptions& options) {
  if (!std::filesystem::is_directory(options.programs))
    throw InputError(options.programs, "--programs", "a directory of modules", "not one");
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(options.programs)) {
    const std::string extension = entry.path().extension().string();
    if (entry.is_regular_file() && (extension == ".hlo" || extension == ".pb")) paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  for (const std::vector<std::string>* names : {&options.test_programs, &options.valid_programs}) {
    for (const std::string& name : *names) {
      const bool found =
          std::any_of(paths.begin(), paths.end(), [&](const std::string& p) { return std::filesystem::path(p).stem() == name; });
      if (!found)
        throw InputError(options.programs, names == &options.test_programs ? "--test" : "--valid", "a module of the directory", name);
    }
  }
  std::filesystem::create_directories(options.out);
  std::ofstream log((std::filesystem::path(options.out) / "collect.jsonl").string(), std::ios::app);
  nlohmann::json plan = nlohmann::json::array();
  std::vector<CollectUnit> units;
  for (const std::string& path : paths) {
    try {
      const HloModule module = read_hlo_module(path);
      const std::vector<CollectUnit> more = units_of(module, path, options, plan);
      units.insert(units.end(), more.begin(), more.end());
    } catch (const std::exception& error) {
      plan.push_back({{"module", path}, {"files", 0}, {"why", error.what()}});
      if (!options.quiet) std::fprintf(stderr, "collect: %s left out: %s\n", path.c_str(), error.what());
    }
  }
  for (const nlohmann::json& line : plan) log << line.dump() << "\n";
  log.flush();
  std::vector<CollectUnit> to_do;
  for (const CollectUnit& unit : units) {
    if (!std::filesystem::exists(unit.out)) to_do.push_back(unit);
  }
  if (!options.quiet) {
    std::fprintf(stderr, "collect: %zu modules, %zu files planned, %zu already there, %zu to measure\n", paths.size(), units.size(),
                 units.size() - to_do.size(), to_do.size());
  }
  std::signal(SIGINT, on_interrupt);
  const auto started = std::chrono::steady_clock::now();
  size_t written = 0, failed = 0;
  for (size_t k = 0; k < to_do.size() && !interrupted; ++k) {
    const CollectUnit& unit = to_do[k];
    nlohmann::json line;
    try {
      line = collect_unit(unit, options);
      if (line.is_null()) break;  // stopped: the file in hand is not written
      ++written;
    } catch (const std::exception& error) {
      line = {{"file", unit.out}, {"failed", error.what()}};
      ++failed;
    }
    log << line.dump() << "\n";
    log.flush();
    if (!options.quiet) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::fprintf(stderr, "collect: [%zu/%zu] %s%s, %.0f s, about %.0f s left\n", k + 1, to_do.size(), unit.out.c_str(),
                   line.contains("failed") ? " FAILED" : "", elapsed,
                   elapsed / static_cast<double>(k + 1) * static_cast<double>(to_do.size() - k - 1));
    }
  }
  std::signal(SIGINT, SIG_DFL);
  std::printf("%s: %zu files written, %zu failed, %zu were there before%s (collect.jsonl says what and why)\n", options.out.c_str(),
              written, failed, units.size() - to_do.size(), interrupted ? "; stopped: the same command continues" : "");
  return interrupted ? 130 : failed > 0 ? 1 : 0;
}

}  // namespace graphcost
