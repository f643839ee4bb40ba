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

namespace graphcost {

struct MeasureOptions {
  int min_repeats = 3;       // timed runs of a config at least ...
  int max_repeats = 30;      // ... and at most; it stops earlier once 3 runs in a row leave the minimum within 1%
  double max_seconds = 2.0;  // timed seconds of one config at most (past min_repeats)
  int batch = 10;            // configs between two measurements of config 0
  int passes = 1;            // passes over all configs (2: the noise, the tau between passes)
  uint64_t seed = 0;         // the inputs' values and the order
};

struct ConfigMeasurement {
  std::vector<double> seconds;       // every timed run, in every pass
  std::vector<double> pass_minimum;  // each measurement's minimum (config 0: one per batch)
  std::string failure;               // why it could not be measured ("" when it was)
  double compile_seconds = 0;
  // The runtime: the median of its measurements' minima (one per pass; config 0 one per batch),
  // so config 0, measured more often, is not labelled by a luckier minimum. 0 when it failed.
  double best() const;
};

// "AMD EPYC family 26 model 2 (AVX-512)": the CPU as /proc/cpuinfo names it (some VMs give only
// the vendor's name: the family and model tell the core), for a measured file's provenance.
std::string cpu_description();

// Measures every layout config of `imported` (import_hlo_layout's graph: its configurable nodes and
// config rows) on the module's entry computation, which must lower whole. `progress(done, total)`
// after each measurement; returning false stops (the configs not measured are failures "stopped").
// Config 0 failing is an InputError at once: nothing else can be compared with it.
std::vector<ConfigMeasurement> measure_layout_configs(const HloLayoutImport& imported, const MeasureOptions& options,
                                                      const std::function<bool(int64_t, int64_t)>& progress);

}  // namespace graphcost
