// The bounds of one measured config that `graphcost measure` and `graphcost collect` share
// (graphcost-cpu, lowering/measure_configs.h): the cores it uses, its timeout and its memory, and
// whether its runs alternate with config 0's, how long it is timed at least.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>

#include "lowering/measure_configs.h"

namespace graphcost {

struct ConfigBounds {
  int threads = 1;            // the cores a measurement uses (parallel_schedule.h)
  double timeout = 120;       // seconds a config may take, compiling included, before it is killed (a failure)
  int64_t max_memory_mb = 0;  // a config's memory at most; 0: half of this machine's
  bool paired = false;        // each config's runs alternated with config 0's (MeasureOptions::paired)
  double min_seconds = 0.1;   // timed seconds of one config at least (MeasureOptions::min_seconds)
};

// --threads, --timeout, --max-memory-mb, --paired and --min-seconds on `command`.
void add_config_bounds(CLI::App* command, ConfigBounds& bounds);
// The bounds into a measurement's protocol.
void apply_config_bounds(const ConfigBounds& bounds, MeasureOptions& protocol);

}  // namespace graphcost
