// The oracle of `graphcost tune --oracle cpu` (tune/oracles.h): each config of a module target
// lowered to Halide with its layouts and timed on this CPU by `graphcost measure`'s protocol
// (measure_configs.h: compiled outside the timed region, a warm-up, repeats until the minimum is
// stable), every timed run kept in the measurement. Every config's outputs are checked against
// the first measured config's. After the run, `confirm` re-measures the best config found and
// config 0 (the module's own layouts) alternately, apart from the tuning's own measurements, so
// the speed-up it reports is not one lucky run; `against_autoschedulers` adds Halide's
// autoschedulers' schedules of the module's own layouts to that re-measurement (autoschedule.h),
// each measured as often, in the same alternation. docs/lowering.md, "Tuning on this CPU".
#pragma once

#include <functional>

#include "lowering/measure_configs.h"
#include "tune/oracles.h"

namespace graphcost {

// InputError for a target without a module (a .npz or a parameter space: nothing to run).
// `stop` is polled between timed runs' configs: true answers the measurement Stopped.
Oracle cpu_oracle(const TuningTarget& target, const MeasureOptions& protocol, const std::function<bool()>& stop,
                  bool against_autoschedulers = false);

}  // namespace graphcost
