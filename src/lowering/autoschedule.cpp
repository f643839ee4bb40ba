#include "lowering/autoschedule.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <mutex>
#include <set>

#include "common/input_error.h"
#include "lowering/run_lowered.h"

namespace graphcost {
namespace {

// Each autoscheduler's plugin (CMake's Halide::<name> targets, src/CMakeLists.txt).
struct Plugin {
  const char* name;
  const char* path;
};
constexpr Plugin kPlugins[] = {
#ifdef GRAPHCOST_ADAMS2019_PLUGIN
    {"Adams2019", GRAPHCOST_ADAMS2019_PLUGIN},
#endif
#ifdef GRAPHCOST_MULLAPUDI2016_PLUGIN
    {"Mullapudi2016", GRAPHCOST_MULLAPUDI2016_PLUGIN},
#endif
#ifdef GRAPHCOST_LI2018_PLUGIN
    {"Li2018", GRAPHCOST_LI2018_PLUGIN},
#endif
};

// Loads `plugin` once per process (a plugin registers its autoscheduler by name when loaded).
void load_once(const Plugin& plugin) {
  static std::mutex mutex;
  static std::set<std::string> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded.insert(plugin.name).second) Halide::load_plugin(plugin.path);
}

// This CPU's last-level cache in bytes (sysfs: the highest cache index of CPU 0), or 16 MiB
// (Halide's generic machine) when the system does not say.
uint64_t last_level_cache_bytes() {
  uint64_t bytes = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    uint64_t size = 0;
    char unit = 0;
    if (!(file >> size)) break;
    if (file >> unit) size *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
    bytes = size;
  }
  return bytes > 0 ? bytes : 16ull << 20;
}

// Sends stderr to /dev/null while alive: Adams2019 prints its search's statistics there (its
// refusals come back as exceptions, not there).
class QuietStderr {
 public:
  QuietStderr() : saved_(dup(STDERR_FILENO)) {
    std::fflush(stderr);
    const int null = open("/dev/null", O_WRONLY);
    if (saved_ >= 0 && null >= 0) dup2(null, STDERR_FILENO);
    if (null >= 0) close(null);
  }
  ~QuietStderr() {
    std::fflush(stderr);
    if (saved_ >= 0) dup2(saved_, STDERR_FILENO), close(saved_);
  }
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

 private:
  int saved_;
};

Halide::Region estimate_of(const HloShape& shape) {
  Halide::Region region;
  for (const int64_t extent : shape.dims) region.emplace_back(0, static_cast<int32_t>(extent));
  return region;
}

}  // namespace

std::vector<std::string> autoscheduler_names() {
  std::vector<std::string> names;
  for (const Plugin& plugin : kPlugins) names.emplace_back(plugin.name);
  return names;
}

std::string autoschedule(LoweredComputation& lowered, const std::string& name, int threads) {
  const Plugin* plugin = nullptr;
  for (const Plugin& candidate : kPlugins) {
    if (name == candidate.name) plugin = &candidate;
  }
  if (plugin == nullptr) {
    std::string known;
    for (const std::string& n : autoscheduler_names()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("autoscheduler", name, known.empty() ? "none: this Halide package ships no autoscheduler" : known, name);
  }
  load_once(*plugin);
  for (size_t k = 0; k < lowered.parameters.size(); ++k) {
    Halide::ImageParam& parameter = lowered.parameters[k];
    parameter.set_estimates(estimate_of(lowered.parameter_shapes[k]));
    if (parameter.dimensions() > 0) parameter.dim(parameter.dimensions() - 1).set_stride(1);  // C order (run_lowered.h)
  }
  std::vector<Halide::Func> outputs;
  std::set<std::string> seen;  // a Func that is several outputs (tuple(x, x)) is one output of the pipeline
  for (size_t k = 0; k < lowered.outputs.size(); ++k) {
    Halide::Func& output = lowered.outputs[k];
    if (!seen.insert(output.name()).second) continue;
    output.set_estimates(estimate_of(lowered.output_shapes[k]));
    const int rank = static_cast<int>(lowered.output_shapes[k].dims.size());
    if (rank > 0) output.output_buffer().dim(rank - 1).set_stride(1);
    outputs.push_back(output);
  }
  const Halide::MachineParams machine(threads, last_level_cache_bytes(), 40.0f);  // 40: Halide's generic balance
  Halide::Pipeline pipeline(outputs);
  const QuietStderr quiet;
  return pipeline.auto_schedule(name, lowering_target(), machine).schedule_source;
}

}  // namespace graphcost
