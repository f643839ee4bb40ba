// Halide's own autoschedulers on a lowered computation: the anchor a learned search is measured
// against (docs/lowering.md, "Against Halide's autoschedulers"). The three plugins Debian's
// libhalide14-0-dev ships: Adams2019 (beam search guided by a learned cost model: "Learning to
// Optimize Halide with Tree Search and Random Programs", its shipped weights), Mullapudi2016 (an
// analytic model of locality and parallelism) and Li2018 (written for gradient pipelines).
#pragma once

#include <string>
#include <vector>

#include "lowering/hlo_to_halide.h"

namespace graphcost {

// "Adams2019", "Mullapudi2016", "Li2018": the autoschedulers this build found (an empty list when
// the Halide package shipped none).
std::vector<std::string> autoscheduler_names();

// Schedules `lowered` (lowered without a layout schedule: the module's own layouts) by the
// autoscheduler `name` for `threads` cores of this CPU: every parameter's and output's shape as its
// estimate, their C order (the last dimension dense) made known, this CPU's last-level cache as
// the machine's. Returns the schedule as Halide source (what it chose). InputError for a name not
// in autoscheduler_names(); a Halide error (the autoscheduler's refusal) propagates as
// std::exception.
std::string autoschedule(LoweredComputation& lowered, const std::string& name, int threads = 1);

}  // namespace graphcost
