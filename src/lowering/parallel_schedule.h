// Measuring on several cores (`--threads N`, measure_configs.h): the schedule a config chose, with
// the outermost loop of every stored Func (the outputs, what a layout or the default schedule
// stores whole) run in parallel, its initial definition and each update whose outermost loop is a
// pure dimension (a reduction's own loop is never split across threads: the sums keep their
// order). Funcs computed inside another's loops (a tile's reductions) run in their parallel loop.
#pragma once

#include "lowering/hlo_to_halide.h"

namespace graphcost {

// Call it last, once the config's schedule is made: it fixes (locks) the Funcs' compute levels.
void parallelize_stored(LoweredComputation& lowered);

}  // namespace graphcost
