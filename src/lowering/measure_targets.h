// What `graphcost measure` and `graphcost collect` measure, and the labelled file a measurement
// becomes (docs/lowering.md, "Measuring"): a module's layout configs (its entry), a kernel's layout
// configs (one instruction made a module of its own: hlo/fusion_kernels.h, kernel_module), or a
// kernel's tile configs (its output's tile sizes: tile_schedule.h; config 0 the kernel untiled).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "data/tpu_graph.h"
#include "hlo/hlo_import.h"
#include "lowering/measure_configs.h"

namespace graphcost {

struct MeasureTarget {
  TpuGraph graph;                          // Layout (configs over its configurable nodes) or Tile (config 0 untiled), runtimes hidden
  HloModule module;                        // what runs: the module, or the kernel's own module
  std::vector<int32_t> computation_first;  // layout: the graph's node offsets (hlo_graph.h)
};

// The layout target of `module` (a whole module or a kernel: `kernel` names it in the provenance,
// "" for a whole module): config 0 its own layouts, `configs` random ones. InputError when it has
// no configurable node.
MeasureTarget layout_target(HloModule module, const std::string& path, ModuleFileFormat format, const std::string& kernel, int configs,
                            uint64_t seed);

// The tile target of `kernel` (its first output's tile sizes): config 0 the whole output as one
// tile, then up to `configs` others drawn as `graphcost import` draws them (hlo/module_configs.h).
// `source` says where the kernel comes from (module_source_text). InputError for a scalar or
// dynamic output.
MeasureTarget tile_target(HloModule kernel, const std::string& path, const std::string& source, int configs, uint64_t seed);

// Every config of `target` measured by the protocol (measure_configs.h).
std::vector<ConfigMeasurement> measure_target(const MeasureTarget& target, const MeasureOptions& options,
                                              const std::function<bool(int64_t, int64_t)>& progress);

// What a measurement saw, for the report.
struct MeasuredSummary {
  std::vector<std::string> not_measured;  // "config 3: why"
  int64_t measured = 0, configs = 0;
  int64_t programs = 0;    // distinct lowered programs among the configs (the rest measured as the same program)
  int64_t remeasured = 0;  // configs with a minimum from their batch measured again (a slow spell: ConfigMeasurement::remeasured)
  double config0 = 0, fastest = 0, slowest = 0;  // seconds
  std::vector<double> config0_batches;           // config 0's minimum in each batch
  double raw_pass_tau = NAN;                     // between the first two passes' minima (NaN: one pass)
  double pass_tau = NAN;                         // the same, each minimum relative to config 0's in its batch (drift_corrected)
  int64_t pass_tau_configs = 0;
};

// Every timed run and every failure of a measurement, as the JSON that `measure` and `collect` write
// beside the labelled file (FILE.npz.runs.json): the CPU and the protocol, then per drawn config
// (config 0 first) its index in the file (null when it failed), the config whose program it is
// (null when measured itself), how many of its minima come from its batch measured again, its failure, compile seconds,
// each measurement's minimum, config 0's minimum in the same batch, every timed run in seconds,
// and a failed config's features (the file keeps only the measured ones). Call it before
// label_measured, which drops the failed configs' features.
std::string measurement_runs_json(const MeasureTarget& target, const std::vector<ConfigMeasurement>& results,
                                  const MeasureOptions& options);

// Labels `target.graph` with the measured runtimes (ConfigMeasurement::best; the failed and stopped configs left out;
// tile: each runtime's normalizer config 0's) and names the CPU and protocol in its provenance.
// InputError naming `path` when config 0 was not measured.
MeasuredSummary label_measured(MeasureTarget& target, const std::vector<ConfigMeasurement>& results, const MeasureOptions& options,
                               const std::string& path);

}  // namespace graphcost
