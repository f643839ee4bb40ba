#include "lowering/parallel_schedule.h"

#include <set>

namespace graphcost {
namespace {

// The outermost loop of a stage (its dims: innermost first, Halide's __outermost last), when it is
// a pure dimension still run serially; "" otherwise.
std::string outermost_pure(const std::vector<Halide::Internal::Dim>& dims) {
  for (auto dim = dims.rbegin(); dim != dims.rend(); ++dim) {
    if (dim->var == Halide::Var::outermost().name()) continue;
    const bool serial = dim->for_type == Halide::Internal::ForType::Serial;
    if (dim->dim_type != Halide::Internal::DimType::PureVar || !serial) return "";
    return dim->var.substr(dim->var.rfind('.') + 1);  // a split's loop is named "d0.d0_tile": Var takes the last part
  }
  return "";
}

// An output, or computed at the root (the schedule is final here: its loop levels may be locked,
// as Halide locks them when it compiles).
bool stored(const Halide::Func& func, const std::set<std::string>& outputs) {
  if (outputs.count(func.name()) > 0) return true;
  Halide::LoopLevel level = func.function().schedule().compute_level();
  return level.lock().is_root();
}

}  // namespace

void parallelize_stored(LoweredComputation& lowered) {
  std::set<std::string> outputs, done;
  for (const Halide::Func& output : lowered.outputs) outputs.insert(output.name());
  std::vector<Halide::Func> funcs = lowered.outputs;
  funcs.insert(funcs.end(), lowered.funcs.begin(), lowered.funcs.end());
  for (Halide::Func& func : funcs) {
    if (!func.defined() || !done.insert(func.name()).second || !stored(func, outputs)) continue;
    const Halide::Internal::Function function = func.function();
    const std::string pure = outermost_pure(function.definition().schedule().dims());
    if (!pure.empty()) func.parallel(Halide::Var(pure));
    for (size_t stage = 0; stage < function.updates().size(); ++stage) {
      const std::string update = outermost_pure(function.updates()[stage].schedule().dims());
      if (!update.empty()) func.update(static_cast<int>(stage)).parallel(Halide::Var(update));
    }
  }
}

}  // namespace graphcost
