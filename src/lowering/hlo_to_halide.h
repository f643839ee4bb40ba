// An XLA HLO computation as a Halide pipeline, one Func per instruction, so that a real compiler
// (Halide's JIT, LLVM) runs the program on this machine's CPU: the ground for real measurements of
// the layouts and tiles graphcost learns to rank (docs/lowering.md).
//
// Index convention: a Func's arguments are the HLO shape's logical dimensions in order (argument 0
// is dimension 0), whatever the layout; where a Func is stored is a schedule decision (its
// storage order is the instruction's minor_to_major). Inputs and outputs are buffers in the same
// convention, with any strides (numpy's C order is minor_to_major {rank-1, ..., 0}).
//
// What lowers (lowering_refusal says why anything else does not): parameter, constant, iota, the
// elementwise unary and binary ops, compare, select, clamp, convert, broadcast, reshape, bitcast,
// copy, transpose, slice, dynamic-slice, concatenate, pad, reduce (one operand, a to_apply that is
// one binary op), dot (any dot_general dimension numbers), tuple and get-tuple-element, call and
// fusion (inlined). Element types: pred, s8/s16/s32/s64, u8/u16/u32/u64, f16, bf16, f32, f64.
#pragma once

#include <Halide.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hlo/hlo_module.h"

namespace graphcost {

// The Halide type of an HLO element type ("f32" -> Float(32), "pred" -> Bool()); throws
// InputError naming `where` for a type Halide has no equal of (c64, f8e4m3fn, token, tuple).
Halide::Type halide_type(std::string_view element_type, const std::string& where);

struct LoweredComputation {
  std::vector<Halide::ImageParam> parameters;  // by parameter number
  std::vector<HloShape> parameter_shapes;
  std::vector<Halide::Func> outputs;  // the root, or a root tuple's elements
  std::vector<HloShape> output_shapes;
  // Every instruction's Func (by index in the lowered computation; undefined for tuples and
  // parameters of called computations, which are their callers' Funcs): the schedule's handles.
  std::vector<Halide::Func> funcs;
  // The reductions (dots, reduces) the first output reads through inlined Funcs alone, each read
  // once: stored whole by the default schedule, computed per tile of the output by a tile schedule
  // (tile_schedule.h).
  std::vector<Halide::Func> per_tile;
};

// A layout config as a schedule (docs/lowering.md, "Configs"): for an instruction (its computation
// and index there), the minor_to_major of its output and of its operands 0 and 1, as TpuGraphs'
// node_config_feat gives them; an empty one, or one that is not a permutation of the shape's
// dimensions, leaves the default schedule. A chosen output layout stores the instruction's Func
// whole in that order (compute_root + reorder_storage); a chosen operand layout stores a copy of
// the operand in that order for it (the transposition XLA would insert), read by this op alone.
using LayoutChoice = std::array<std::vector<int>, 3>;
using LayoutSchedule = std::map<std::pair<int32_t, int32_t>, LayoutChoice>;

// The schedule a lowering starts from: the default one (what has a reduction or two consumers stored
// whole, the rest inlined), or none but the outputs' (what an autoscheduler takes: autoschedule.h).
enum class Scheduling { Default, Unscheduled };

// Lowers one computation of `module` (its entry: module.entry), scheduled by `layouts` where given
// (at every call site of a called computation). Throws InputError naming the module, the
// instruction and its line, and why it does not lower (lowering_refusal's words).
LoweredComputation lower_computation(const HloModule& module, int32_t computation, const LayoutSchedule* layouts = nullptr,
                                     Scheduling scheduling = Scheduling::Default);

// Why `instruction` of `computation` does not lower ("" when it does): the opcode, an attribute
// or an element type the lowering does not cover, named.
std::string lowering_refusal(const HloModule& module, const HloComputation& computation, const HloInstruction& instruction);

}  // namespace graphcost
