// Walks an HLO computation in order and gives each live instruction its Func (hlo_to_halide.h);
// calls and fusions are lowered in place with their operands as the callee's parameters.
#include "lowering/hlo_to_halide.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "lowering/lowering_ops.h"

namespace graphcost {

Halide::Type halide_type(std::string_view element_type, const std::string& where) {
  static const std::map<std::string_view, Halide::Type, std::less<>> types = {
      {"pred", Halide::Bool()},  {"s8", Halide::Int(8)},     {"s16", Halide::Int(16)},     {"s32", Halide::Int(32)},
      {"s64", Halide::Int(64)},  {"u8", Halide::UInt(8)},    {"u16", Halide::UInt(16)},    {"u32", Halide::UInt(32)},
      {"u64", Halide::UInt(64)}, {"f16", Halide::Float(16)}, {"bf16", Halide::BFloat(16)}, {"f32", Halide::Float(32)},
      {"f64", Halide::Float(64)}};
  const auto found = types.find(element_type);
  if (found == types.end()) {
    throw InputError(where, "element type", "pred, s8-s64, u8-u64, f16, bf16, f32 or f64", std::string(element_type));
  }
  return found->second;
}

namespace {

constexpr int kMaxCallDepth = 64;  // calls nested deeper are refused (the lowering recurses per call)
// Instructions lowered with every call and fusion inlined at each call site: past this a module's
// calls fan out (a computation calling another twice, 40 deep, is 2^40 instructions).
constexpr int64_t kMaxLoweredInstructions = 100'000;

std::string place(const HloModule& module, const HloInstruction& instruction) {
  return module.source + ":" + std::to_string(instruction.line) + " " + std::string(instruction.name);
}

// Why a shape cannot be a Halide buffer ("" when it can).
std::string shape_refusal(const HloShape& shape) {
  if (shape.is_tuple()) {
    for (const HloShape& element : shape.elements) {
      const std::string why = shape_refusal(element);
      if (!why.empty()) return why;
    }
    return {};
  }
  static const std::set<std::string_view, std::less<>> types = {"pred", "s8",  "s16", "s32",  "s64", "u8", "u16",
                                                                "u32",  "u64", "f16", "bf16", "f32", "f64"};
  if (!types.count(shape.element_type)) return "element type " + std::string(shape.element_type) + " (Halide has no equal)";
  int64_t count = 1;
  for (const int64_t d : shape.dims) {
    if (d <= 0) return "a dynamic or empty dimension";
    count *= d;
  }
  if (count > (int64_t{1} << 31) - 1) return "more than 2^31-1 elements (Halide indexes with 32 bits)";
  return {};
}

std::string opcode_refusal(const HloModule& module, const HloInstruction& in) {
  const std::string_view opcode = in.opcode;
  const HloOpAttributes& attributes = in.op_attributes();
  if (!module.from_text && (opcode == "constant" || opcode == "dot" || opcode == "compare" || opcode == "get-tuple-element")) {
    return std::string(opcode) + " read from a proto (the lowering reads its attributes from HLO text only, for now)";
  }
  if (opcode == "parameter" || opcode == "tuple" || opcode == "get-tuple-element" || opcode == "call" || opcode == "fusion") {
    return opcode == "get-tuple-element" && attributes.text_of("index").empty() ? "get-tuple-element without index=" : "";
  }
  if (opcode == "constant") {
    std::string why;
    const std::vector<std::string_view> tokens = lowering::literal_tokens(attributes.text_of("literal"), &why);
    return tokens.empty() && why.empty() ? "a constant without a literal" : why;
  }
  if (opcode == "reduce") {
    if (in.operands.size() != 2) return "a reduce of several operands (variadic: argmax and the like)";
    if (in.called_computations.empty()) return "a reduce without to_apply";
    const HloComputation& to_apply = module.computations[static_cast<size_t>(in.called_computations[0])];
    return lowering::reducer_opcode(to_apply).empty() ? "a reduce whose to_apply is not one add, multiply, maximum, minimum, and or or"
                                                      : "";
  }
  if (opcode == "dot") return "";  // dimension numbers XLA leaves out are empty lists
  if (opcode == "convolution") return attributes.has_convolution_dims ? "" : "a convolution without dim_labels=";
  if (opcode == "reduce-window") {
    if (in.operands.size() != 2) return "a reduce-window of several operands (variadic)";
    if (in.called_computations.empty()) return "a reduce-window without to_apply";
    const HloComputation& to_apply = module.computations[static_cast<size_t>(in.called_computations[0])];
    return lowering::reducer_opcode(to_apply).empty()
               ? "a reduce-window whose to_apply is not one add, multiply, maximum, minimum, and or or"
               : "";
  }
  if (opcode == "compare") {
    static const std::set<std::string_view, std::less<>> directions = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    return directions.count(attributes.text_of("direction")) ? "" : "a compare without direction=EQ|NE|LT|LE|GT|GE";
  }
  if (opcode == "power" && in.shape.element_type.front() != 'f' && in.shape.element_type != "bf16") return "power of integers";
  if (lowering::is_elementwise_opcode(opcode) || lowering::is_data_movement_opcode(opcode)) {
    return (opcode == "broadcast" || opcode == "transpose" || opcode == "concatenate" || opcode == "iota") && in.dimensions.empty() &&
                   !(opcode == "broadcast" && in.operands.size() == 1)
               ? std::string(opcode) + " without dimensions="
               : "";
  }
  if (opcode == "while" || opcode == "conditional") return "control flow (" + std::string(opcode) + ") is not lowered";
  if (opcode == "custom-call") return "a custom call (code outside HLO)";
  if (opcode.find("all-") == 0 || opcode.find("collective") != std::string_view::npos || opcode == "reduce-scatter" ||
      opcode == "partition-id" || opcode == "replica-id") {
    return "a collective or device query (" + std::string(opcode) + "): one CPU has no peers";
  }
  return std::string(opcode) + " is not lowered yet";
}

// Stores `func` whole in the order `minor_to_major` gives (innermost first), when that is a
// permutation of its `rank` dimensions; false (nothing done) otherwise.
bool store_in_layout(Halide::Func& func, size_t rank, const std::vector<int>& minor_to_major) {
  std::vector<int> sorted = minor_to_major;
  std::sort(sorted.begin(), sorted.end());
  for (size_t d = 0; d < sorted.size(); ++d) {
    if (sorted[d] != static_cast<int>(d)) return false;
  }
  if (sorted.size() != rank || rank == 0) return false;
  func.compute_root();
  if (rank < 2) return true;
  const std::vector<Halide::Var> v = lowering::index_vars(rank);
  std::vector<Halide::Var> innermost_first;
  for (const int d : minor_to_major) innermost_first.push_back(v[static_cast<size_t>(d)]);
  func.reorder_storage(innermost_first);
  return true;
}

class Lowerer {
 public:
  Lowerer(const HloModule& module, const LayoutSchedule* layouts, int64_t parameter_count, Scheduling scheduling)
      : module_(module), layouts_(layouts), parameter_count_(parameter_count), scheduled_(scheduling == Scheduling::Default) {}

  // A value: one Func, or a tuple's elements.
  struct Value {
    Halide::Func func;
    std::vector<Value> elements;
    bool tuple = false;
    // The reductions this value reads through inlined Funcs alone, each read once: what a tile
    // schedule may compute per tile of the output (LoweredComputation::per_tile).
    std::vector<Halide::Func> per_tile;
  };

  Value lower(int32_t computation_index, const std::vector<Value>* arguments, int depth, LoweredComputation* result) {
    const HloComputation& computation = module_.computations[static_cast<size_t>(computation_index)];
    if (depth > kMaxCallDepth) {
      throw InputError(module_.source, "computation " + computation.name, "calls nested at most " + std::to_string(kMaxCallDepth) + " deep",
                       "deeper");
    }
    const std::vector<bool> live = live_instructions(computation);
    std::vector<int> uses(computation.instructions.size(), 0);
    for (size_t i = 0; i < computation.instructions.size(); ++i) {
      if (!live[i]) continue;
      for (const int32_t operand : computation.instructions[i].operands) ++uses[static_cast<size_t>(operand)];
    }
    std::vector<Value> values(computation.instructions.size());
    for (size_t i = 0; i < computation.instructions.size(); ++i) {
      if (!live[i]) continue;
      const HloInstruction& in = computation.instructions[i];
      const std::string where = place(module_, in);
      std::string why = shape_refusal(in.shape);
      if (why.empty()) why = opcode_refusal(module_, in);
      if (!why.empty())
        throw InputError(where, std::string(in.opcode), "an instruction the Halide lowering covers (docs/lowering.md)", why);
      if (++lowered_ > kMaxLoweredInstructions) {
        throw InputError(module_.source, "instructions",
                         "at most " + std::to_string(kMaxLoweredInstructions) + " lowered, calls and fusions inlined",
                         "more (computations called from many places)");
      }
      const LayoutChoice* choice = layout_choice(computation_index, i);
      values[i] = lower_instruction(computation, in, values, arguments, depth, where, choice, result);
      if (!values[i].tuple && values[i].func.defined() &&
          values[i].func.output_types().at(0) != halide_type(in.shape.element_type, where)) {
        throw InternalError(where + ": lowered as " + Halide::type_to_c_type(values[i].func.output_types().at(0), false) + ", declared " +
                            std::string(in.shape.element_type));
      }
      // A called computation's parameter read twice is its caller's value: stored, not recomputed
      // per use (nested calls would otherwise grow the expression exponentially).
      if (scheduled_ && in.opcode == "parameter" && arguments != nullptr && uses[i] >= 2 && !values[i].tuple) values[i].func.compute_root();
      // The default schedule: what has an update (a reduction) or feeds two consumers is stored;
      // a layout config stores what it chooses a layout for.
      if (scheduled_ && !values[i].tuple && in.opcode != "parameter" && (values[i].func.has_update_definition() || uses[i] >= 2)) {
        values[i].func.compute_root();
      }
      if (choice != nullptr && !values[i].tuple) store_in_layout(values[i].func, in.shape.dims.size(), (*choice)[0]);
      if (!values[i].tuple) track_per_tile(in, values, i, uses[i], choice != nullptr, arguments != nullptr);
      if (depth == 0 && !values[i].tuple) result->funcs[i] = values[i].func;
    }
    return values[static_cast<size_t>(computation.root)];
  }

 private:
  const LayoutChoice* layout_choice(int32_t computation, size_t instruction) const {
    if (layouts_ == nullptr) return nullptr;
    const auto found = layouts_->find({computation, static_cast<int32_t>(instruction)});
    return found == layouts_->end() ? nullptr : &found->second;
  }

  // Value i's per_tile (Value::per_tile): itself when it is a reduction read once (stored only
  // because it has an update), nothing when it is stored for another reason (read twice, a layout,
  // a called computation's parameter read twice), else what its inlined operands carry (a call's,
  // a fusion's or a get-tuple-element's value carries what it carried in the callee).
  void track_per_tile(const HloInstruction& in, std::vector<Value>& values, size_t i, int uses, bool laid_out, bool called) const {
    Value& value = values[i];
    const bool passes_through =
        in.opcode == "call" || in.opcode == "fusion" || in.opcode == "get-tuple-element" || (in.opcode == "parameter" && called);
    if (value.func.has_update_definition()) {
      value.per_tile.clear();
      if (uses == 1 && !laid_out) value.per_tile.push_back(value.func);
    } else if (uses >= 2 || laid_out) {
      value.per_tile.clear();
    } else if (!passes_through) {
      for (const int32_t operand : in.operands) {
        const Value& read = values[static_cast<size_t>(operand)];
        if (!read.tuple) value.per_tile.insert(value.per_tile.end(), read.per_tile.begin(), read.per_tile.end());
      }
    }
  }

  std::vector<bool> live_instructions(const HloComputation& computation) const {
    // The root's operands, and every parameter: the computation's signature stays whole.
    std::vector<bool> live(computation.instructions.size(), false);
    std::vector<int32_t> stack = {computation.root};
    for (size_t i = 0; i < computation.instructions.size(); ++i) {
      if (computation.instructions[i].opcode == "parameter") stack.push_back(static_cast<int32_t>(i));
    }
    while (!stack.empty()) {
      const int32_t index = stack.back();
      stack.pop_back();
      if (live[static_cast<size_t>(index)]) continue;
      live[static_cast<size_t>(index)] = true;
      for (const int32_t operand : computation.instructions[static_cast<size_t>(index)].operands) stack.push_back(operand);
    }
    return live;
  }

  Value lower_instruction(const HloComputation& computation, const HloInstruction& in, const std::vector<Value>& values,
                          const std::vector<Value>* arguments, int depth, const std::string& where, const LayoutChoice* choice,
                          LoweredComputation* result) {
    const std::string_view opcode = in.opcode;
    if (opcode == "parameter") return parameter(in, arguments, where, result);
    if (opcode == "tuple") {
      Value tuple;
      tuple.tuple = true;
      for (const int32_t operand : in.operands) tuple.elements.push_back(values[static_cast<size_t>(operand)]);
      return tuple;
    }
    if (opcode == "get-tuple-element") {
      const Value& tuple = values[static_cast<size_t>(in.operands.at(0))];
      const std::vector<int64_t> indices = lowering::integer_list_text(in.op_attributes().text_of("index"), where, "index");
      const int64_t index = indices.size() == 1 ? indices[0] : -1;
      if (!tuple.tuple || index < 0 || index >= static_cast<int64_t>(tuple.elements.size())) {
        throw InputError(where, "index", "an element of the operand tuple", std::string(in.op_attributes().text_of("index")));
      }
      return tuple.elements[static_cast<size_t>(index)];
    }
    if (opcode == "call" || opcode == "fusion") {
      std::vector<Value> callee_arguments;
      for (const int32_t operand : in.operands) callee_arguments.push_back(values[static_cast<size_t>(operand)]);
      return lower(in.called_computations.at(0), &callee_arguments, depth + 1, result);
    }
    lowering::OpContext op{module_, in, {}, {}, where};
    for (const int32_t operand : in.operands) {
      const Value& value = values[static_cast<size_t>(operand)];
      if (value.tuple) throw InputError(where, "operand", "an array", "a tuple");
      const HloShape& shape = computation.instructions[static_cast<size_t>(operand)].shape;
      const size_t k = op.operands.size();
      Halide::Func read = value.func;
      if (choice != nullptr && k < 2 && !(*choice)[k + 1].empty()) {  // the operand copied into the layout this op asks for
        Halide::Func copy(lowering::func_name(std::string(in.name) + "_operand" + std::to_string(k)));
        const std::vector<Halide::Var> v = lowering::index_vars(shape.dims.size());
        copy(v) = value.func(v);
        if (store_in_layout(copy, shape.dims.size(), (*choice)[k + 1])) read = copy;
      }
      op.operands.push_back(read);
      op.operand_shapes.push_back(&shape);
    }
    lowering::check_shapes(op);
    Value value;
    if (opcode == "constant") {
      value.func = lowering::lower_constant(op);
    } else if (opcode == "reduce") {
      value.func = lowering::lower_reduce(op, module_.computations[static_cast<size_t>(in.called_computations.at(0))]);
    } else if (opcode == "dot") {
      value.func = lowering::lower_dot(op);
    } else if (opcode == "convolution") {
      value.func = lowering::lower_convolution(op);
    } else if (opcode == "reduce-window") {
      value.func = lowering::lower_reduce_window(op, module_.computations[static_cast<size_t>(in.called_computations.at(0))]);
    } else if (lowering::is_elementwise_opcode(opcode)) {
      value.func = lowering::lower_elementwise(op);
    } else {
      value.func = lowering::lower_data_movement(op);
    }
    return value;
  }

  Value parameter(const HloInstruction& in, const std::vector<Value>* arguments, const std::string& where, LoweredComputation* result) {
    const size_t number = static_cast<size_t>(in.parameter_number);
    if (arguments != nullptr) {
      if (number >= arguments->size())
        throw InputError(where, "parameter", "one of the call's " + std::to_string(arguments->size()) + " operands",
                         std::to_string(number));
      return (*arguments)[number];
    }
    if (in.shape.is_tuple()) throw InputError(where, "parameter", "an array parameter of the lowered computation", "a tuple");
    if (in.parameter_number >= parameter_count_) {
      throw InputError(where, "parameter", "a number below the computation's " + std::to_string(parameter_count_) + " parameters",
                       std::to_string(in.parameter_number));
    }
    if (result->parameters.size() <= number) {
      result->parameters.resize(number + 1);
      result->parameter_shapes.resize(number + 1);
    }
    Halide::ImageParam image(halide_type(in.shape.element_type, where), static_cast<int>(in.shape.dims.size()),
                             lowering::func_name(in.name));
    if (!in.shape.dims.empty())
      image.dim(0).set_stride(Halide::Expr());  // any strides (hlo_to_halide.h's convention), not Halide's dense first
    result->parameters[number] = image;
    result->parameter_shapes[number] = in.shape;
    const std::vector<Halide::Var> v = lowering::index_vars(in.shape.dims.size());
    Value value;
    value.func = Halide::Func(lowering::func_name(std::string(in.name) + "_in"));
    value.func(v) = image(v);
    return value;
  }

  const HloModule& module_;
  const LayoutSchedule* layouts_;
  int64_t parameter_count_;  // of the lowered computation
  bool scheduled_;           // the default schedule (Scheduling::Default), or nothing but the outputs
  int64_t lowered_ = 0;
};

void flatten(const Lowerer::Value& value, const HloShape& shape, Scheduling scheduling, LoweredComputation* result) {
  if (!value.tuple) {
    Halide::Func output = value.func;                              // a handle: the same Func
    if (scheduling == Scheduling::Default) output.compute_root();  // an autoscheduler refuses what is scheduled already
    if (!shape.dims.empty()) output.output_buffer().dim(0).set_stride(Halide::Expr());
    if (result->outputs.empty()) result->per_tile = value.per_tile;
    result->outputs.push_back(output);
    result->output_shapes.push_back(shape);
    return;
  }
  for (size_t k = 0; k < value.elements.size(); ++k) flatten(value.elements[k], shape.elements.at(k), scheduling, result);
}

}  // namespace

std::string lowering_refusal(const HloModule& module, const HloComputation& computation, const HloInstruction& instruction) {
  (void)computation;
  const std::string why = shape_refusal(instruction.shape);
  return why.empty() ? opcode_refusal(module, instruction) : why;
}

LoweredComputation lower_computation(const HloModule& module, int32_t computation, const LayoutSchedule* layouts, Scheduling scheduling) {
  if (computation < 0 || computation >= static_cast<int32_t>(module.computations.size())) {
    throw InputError(module.source, "computation", "a computation of the module", std::to_string(computation));
  }
  LoweredComputation result;
  const HloComputation& lowered = module.computations[static_cast<size_t>(computation)];
  result.funcs.resize(lowered.instructions.size());
  int64_t parameters = 0;
  for (const HloInstruction& instruction : lowered.instructions) parameters += instruction.opcode == "parameter";
  Lowerer lowerer(module, layouts, parameters, scheduling);
  const Lowerer::Value root = lowerer.lower(computation, nullptr, 0, &result);
  flatten(root, lowered.instructions[static_cast<size_t>(lowered.root)].shape, scheduling, &result);
  for (size_t k = 0; k < result.parameters.size(); ++k) {
    if (!result.parameters[k].defined()) {
      throw InputError(module.source, "parameter(" + std::to_string(k) + ")", "every parameter number up to the highest used",
                       "missing or dead");
    }
  }
  return result;
}

}  // namespace graphcost
