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

// A shape's first array: itself, or a tuple's first element's (nested tuples descended): a
// multi-output kernel's output as the tile configs and the lowering's first output take it.
const HloShape& first_array(const HloShape& shape);

// Where an instruction (a fusion, say) sits: computation and instruction index.
struct FusionSite {
  int32_t computation = 0, instruction = 0;
};

// Every fusion instruction that calls a computation, in module order.
std::vector<FusionSite> fusion_sites(const HloModule& module);
// One instruction as a module of its own (a kernel, as the dataset's tile files hold): the
// computations it calls (a fusion's fused computation and what that calls), then an entry of one
// parameter per operand (named as the operands) and the instruction as ROOT. Its instructions'
// names are views into `module`'s bytes (shared, so `module` may go).
HloModule kernel_module(const HloModule& module, const FusionSite& site);
// The instruction named `name` as a kernel module (kernel_module): what `--kernel NAME` of measure,
// collect and tune means. InputError naming `path` for a name the module lacks, or a parameter or
// constant (nothing to compute).
HloModule named_kernel(const HloModule& module, const std::string& path, const std::string& name);
// The kernel of one fusion, built on its own: a caller that writes each kernel before building the
// next holds one kernel at a time, however many the module has.
FusionKernel fusion_kernel(const HloModule& module, const FusionSite& site);

}  // namespace graphcost
