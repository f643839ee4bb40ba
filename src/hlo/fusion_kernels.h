// The tile-collection graphs of a post-optimization module: one kernel per fusion instruction, as
// the dataset builds its tile files (hlo.md): the fused computation and the computations it calls,
// then an entry of one parameter per fusion operand and the fusion itself as ROOT. Each kernel is
// a TpuGraph of kind Tile, without configs (hlo/module_configs.h adds them).
#pragma once

#include <string>
#include <vector>

#include "hlo/hlo_graph.h"

namespace graphcost {

struct FusionKernel {
  std::string fusion;       // the fusion instruction's name
  std::string computation;  // the computation it sits in
  HloGraph hlo;             // hlo.graph: kind Tile, names kept
  HloShape output;          // the fusion's result (a multi-output fusion: its first array element)
};

std::vector<FusionKernel> fusion_kernels(const HloModule& module);

}  // namespace graphcost
