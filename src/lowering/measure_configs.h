// Real runtimes of a module's layout configs on this CPU (`graphcost measure`, docs/lowering.md,
// "Measuring"): each config lowered with its layouts (hlo_to_halide.h's LayoutSchedule), compiled
// outside the timed region, run once to warm up, then timed until its minimum is stable; configs
// in a shuffled order, in batches that each start by re-measuring config 0 (so every runtime is
// also known against the module's own layouts at nearly the same moment); every raw time kept.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hlo/hlo_import.h"
#include "lowering/hlo_to_halide.h"
#include "lowering/isolated_call.h"

namespace graphcost {

struct MeasureOptions {
  int min_repeats = 3;   // timed runs of a config at least ...
  int max_repeats = 30;  // ... and at most, once min_seconds are timed; it stops earlier once 3 runs in a row leave the minimum within 1%
  double min_seconds = 0.1;  // timed seconds of one config at least: a kernel of a millisecond runs about 100 times
  double max_seconds = 2.0;  // timed seconds of one config at most (past min_repeats)
  int batch = 10;            // configs between two measurements of config 0
  int passes = 1;            // passes over all configs (2: the noise, the tau between passes)
  uint64_t seed = 0;         // the inputs' values and the order
  // The cores a measurement uses: the process pinned to that many CPUs, Halide's runtime given as
  // many threads, and each stored Func's outermost loop run in parallel (parallel_schedule.h).
  int threads = 1;
  // Each config measured in a process of its own (isolated_call.h), bounded: a config that runs past
  // timeout_seconds (compiling included), allocates past memory_bytes or crashes is a failure, kept.
  bool isolate = true;
  // Each config's timed runs alternated with config 0's, compiled beside it in the same process:
  // its batch_reference is then config 0's minimum over those very moments, and its label its
  // minimum relative to that (ConfigMeasurement::paired_best). Costs a second compile and twice the
  // timed runs a config; takes out the machine's speed moving between configs.
  bool paired = false;
  double timeout_seconds = 120;
  uint64_t memory_bytes = default_memory_bound();
};

// Pins the calling thread to `count` CPUs (the highest it may run on: CPU 0 takes most interrupts),
// so a measurement is not moved between cores midway; returns how many it got (fewer when it may
// run on fewer), or -1 when the system refused.
int pin_to_cpus(int count);

struct ConfigMeasurement {
  std::vector<double> seconds;       // every timed run, in every pass
  std::vector<double> pass_minimum;  // each measurement's minimum (config 0: one per batch)
  // Config 0's minimum in the batch of each of pass_minimum (measure_configs: the machine's speed
  // at nearly the same moment), or with MeasureOptions::paired its minimum over the runs alternated
  // with this config's; empty when measured outside batches (tune's oracle).
  std::vector<double> batch_reference;
  std::string failure;  // why it could not be measured ("" when it was)
  double compile_seconds = 0;
  // The earlier config whose lowered program this config's is, statement for statement
  // (lowered_statement): not measured again, its minima and failure copied from that one's (config
  // 0's: its best(), once a pass); -1 when it was measured itself.
  int64_t same_program_as = -1;
  // How many of its minima come from its batch measured again, config 0 having run more than kSlowBatch
  // slower than its best the first time (measure_configs: a slow spell of the machine).
  int remeasured = 0;
  // The runtime: the median of its measurements' minima (one per pass; config 0 one per batch),
  // so config 0, measured more often, is not labelled by a luckier minimum. 0 when it failed.
  double best() const;
  // Paired (MeasureOptions::paired): the median of its minima relative to config 0's in the same
  // moments, times `config0` (config 0's best()); best() when it has no reference for each.
  double paired_best(double config0) const;
};

// Each config's minimum in pass `pass` (0, 1, ...) relative to config 0's in the same batch, times
// config 0's best(): its runtime with slow drift of the machine's speed taken out (NaN where a
// config has no measurement in that pass). Reported beside the raw noise, not used as labels: on
// the VMs measured so far it was not steadier (docs/lowering.md, "Noise").
std::vector<double> drift_corrected_pass(const std::vector<ConfigMeasurement>& results, size_t pass);

// "AMD EPYC family 26 model 2 (AVX-512)": the CPU as /proc/cpuinfo names it (some VMs give only
// the vendor's name: the family and model tell the core), for a measured file's provenance.
std::string cpu_description();

// A module and its layout graph (import_hlo_layout's, or a tuning target's): what a config is measured on.
struct ModuleLayouts {
  const HloModule& module;
  const std::vector<int32_t>& computation_first;  // the graph's node offset of each computation (hlo_graph.h)
  const TpuGraph& graph;                          // its configurable nodes and config rows
};

// How config `config` of a target is lowered and scheduled: its layouts as a LayoutSchedule, or its
// tiles (tile_schedule.h), parallel with options.threads.
using LowerConfig = std::function<LoweredComputation(int64_t config)>;

// A module's layout configs as a LowerConfig (`program` must outlive it).
LowerConfig layout_lowering(const ModuleLayouts& program, const MeasureOptions& options);

// What config `config`'s program is: its lowered statement's length and hash (lowered_statement),
// made in a child process bounded as a measurement is; two configs with one key run the same
// machine code. "" when it could not be made (the config fails when measured, and says why).
std::string program_key(const LowerConfig& lower, int64_t config, const MeasureOptions& options);

// One config of `program` measured by the protocol on the module's entry computation, its times
// appended to `result` (a failure to compile or run is result.failure; an InputError, the module
// itself not lowering, is thrown). Its outputs must equal `reference`, or become it when empty:
// a layout changes where values are stored, never what they are.
void measure_layout_config(const ModuleLayouts& program, int64_t config, const MeasureOptions& options, ConfigMeasurement& result,
                           std::vector<uint8_t>& reference);

// One config measured by the protocol: `lower` gives the computation scheduled as the config asks
// (timed apart as compile_seconds); the rest as measure_layout_config. With options.paired and a
// `lower_reference` (config 0's), the two are compiled together and timed alternately.
void measure_lowered(const std::function<LoweredComputation()>& lower, const MeasureOptions& options, ConfigMeasurement& result,
                     std::vector<uint8_t>& reference, const std::function<LoweredComputation()>& lower_reference = {});

// Config `config`'s tile sizes (the first `rank` columns of its tile config features, tile_configs.h).
std::vector<int64_t> config_tile(const TpuGraph& kernel, int64_t config, size_t rank);

// A batch whose config 0 ran more than this share slower than config 0's best minimum was timed in
// a slow spell of the machine: measure_configs measures it again, at most kSlowBatchRetries times.
inline constexpr double kSlowBatch = 0.05;
inline constexpr int kSlowBatchRetries = 2;

// The protocol over configs 0..configs-1, each lowered by `lower`: first each config's lowered
// statement made (in a child process of its own), so a config whose program equals an earlier
// one's is measured once (ConfigMeasurement::same_program_as); then shuffled batches of the distinct
// programs each led by config 0, `passes` passes, each config measured by measure_lowered; a batch
// whose config 0 ran more than kSlowBatch slower than its best is measured again (kSlowBatchRetries times at most), and its
// configs keep the minima of the calmer time (ConfigMeasurement::remeasured).
// `progress(done, total)` after each statement and each measurement; returning false stops
// (the configs not measured are failures "stopped"). Config 0 failing is an InputError naming
// `source` at once: nothing else can be compared with it.
std::vector<ConfigMeasurement> measure_configs(int64_t configs, const LowerConfig& lower, const MeasureOptions& options,
                                               const std::function<bool(int64_t, int64_t)>& progress, const std::string& source);

// Measures every tile config of `graph` (a Tile graph of `kernel`, config 0 its whole output as one
// tile) on `kernel`'s entry, each scheduled by tile_schedule.h.
std::vector<ConfigMeasurement> measure_tile_configs(const HloModule& kernel, const TpuGraph& graph, const MeasureOptions& options,
                                                    const std::function<bool(int64_t, int64_t)>& progress);

}  // namespace graphcost
