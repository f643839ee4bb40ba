// Elementwise ops, constants, reduce and dot as Halide (lowering_ops.h). Semantics are XLA's
// (xla/hlo/evaluator): integer divide and remainder round toward zero, abs keeps the type,
// round-nearest-afz rounds half away from zero; 16-bit floats compute in f32 and round back.
#include "lowering/lowering_ops.h"

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <map>

#include "common/input_error.h"
#include "lowering/hlo_to_halide.h"

namespace graphcost::lowering {

using Halide::Expr;
using Halide::Func;
using Halide::Var;

Expr OpContext::at(size_t operand, const std::vector<Expr>& index) const {
  return operand_shapes[operand]->dims.empty() ? operands[operand]() : operands[operand](index);
}

std::vector<Var> index_vars(size_t rank) {
  std::vector<Var> vars;
  for (size_t d = 0; d < rank; ++d) vars.emplace_back("d" + std::to_string(d));
  return vars;
}

std::vector<Expr> as_exprs(const std::vector<Var>& vars) { return std::vector<Expr>(vars.begin(), vars.end()); }

std::string func_name(std::string_view instruction_name) {
  static std::atomic<int64_t> counter{0};
  std::string name = "h_";
  for (const char c : instruction_name) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name + "_" + std::to_string(counter++);
}

namespace {

const std::map<std::string_view, int, std::less<>>& unary_ops() {
  static const std::map<std::string_view, int, std::less<>> ops = {{"negate", 0},
                                                                   {"abs", 1},
                                                                   {"exponential", 2},
                                                                   {"log", 3},
                                                                   {"sqrt", 4},
                                                                   {"rsqrt", 5},
                                                                   {"tanh", 6},
                                                                   {"sine", 7},
                                                                   {"cosine", 8},
                                                                   {"tan", 9},
                                                                   {"exponential-minus-one", 10},
                                                                   {"log-plus-one", 11},
                                                                   {"logistic", 12},
                                                                   {"floor", 13},
                                                                   {"ceil", 14},
                                                                   {"round-nearest-even", 15},
                                                                   {"round-nearest-afz", 16},
                                                                   {"sign", 17},
                                                                   {"not", 18},
                                                                   {"copy", 19},
                                                                   {"is-finite", 20},
                                                                   {"cbrt", 21}};
  return ops;
}

const std::map<std::string_view, int, std::less<>>& binary_ops() {
  static const std::map<std::string_view, int, std::less<>> ops = {
      {"add", 0},   {"subtract", 1}, {"multiply", 2}, {"divide", 3}, {"remainder", 4}, {"maximum", 5}, {"minimum", 6},
      {"power", 7}, {"and", 8},      {"or", 9},       {"xor", 10},   {"atan2", 11},    {"compare", 12}};
  return ops;
}

bool is_small_float(const Halide::Type& t) { return t.is_float() && t.bits() < 32; }

// A float function of x in the type's own precision (f16/bf16 through f32).
template <typename F>
Expr float_math(const Expr& x, F f) {
  if (is_small_float(x.type())) return Halide::cast(x.type(), f(Halide::cast(Halide::Float(32), x)));
  return f(x);
}

Expr unary(std::string_view opcode, const Expr& x) {
  const Halide::Type t = x.type();
  switch (unary_ops().find(opcode)->second) {
    case 0:
      return t.is_bool() ? x : -x;
    case 1:
      return t.is_uint() || t.is_bool() ? x : Halide::cast(t, Halide::abs(x));
    case 2:
      return float_math(x, [](const Expr& v) { return Halide::exp(v); });
    case 3:
      return float_math(x, [](const Expr& v) { return Halide::log(v); });
    case 4:
      return float_math(x, [](const Expr& v) { return Halide::sqrt(v); });
    case 5:
      return float_math(x, [](const Expr& v) { return 1 / Halide::sqrt(v); });
    case 6:
      return float_math(x, [](const Expr& v) { return Halide::tanh(v); });
    case 7:
      return float_math(x, [](const Expr& v) { return Halide::sin(v); });
    case 8:
      return float_math(x, [](const Expr& v) { return Halide::cos(v); });
    case 9:
      return float_math(x, [](const Expr& v) { return Halide::tan(v); });
    case 10:
      return float_math(x, [](const Expr& v) { return Halide::exp(v) - 1; });
    case 11:
      return float_math(x, [](const Expr& v) { return Halide::log(1 + v); });
    case 12:
      return float_math(x, [](const Expr& v) { return 1 / (1 + Halide::exp(-v)); });
    case 13:
      return t.is_float() ? float_math(x, [](const Expr& v) { return Halide::floor(v); }) : x;
    case 14:
      return t.is_float() ? float_math(x, [](const Expr& v) { return Halide::ceil(v); }) : x;
    case 15:
      return t.is_float() ? float_math(x, [](const Expr& v) { return Halide::round(v); }) : x;
    case 16:
      return t.is_float() ? float_math(x,
                                       [](const Expr& v) {
                                         const Expr t = Halide::trunc(v);  // exact; floor(v + 0.5) is not near halves and past 2^23
                                         return Halide::select(Halide::abs(v - t) >= 0.5f, t + Halide::select(v < 0, -1.0f, 1.0f), t);
                                       })
                          : x;
    case 17: {
      const Expr zero = Halide::Internal::make_zero(t), one = Halide::Internal::make_one(t);
      if (t.is_uint()) return Halide::select(x > zero, one, zero);
      return Halide::select(x > zero, one, x < zero, -one, x);  // x itself keeps 0 and NaN
    }
    case 18:
      return t.is_bool() ? !x : ~x;
    case 19:
      return x;
    case 20:
      return Halide::is_finite(x);
    default:
      return float_math(x, [](const Expr& v) { return Halide::select(v < 0, -Halide::pow(-v, 1.0f / 3), Halide::pow(v, 1.0f / 3)); });
  }
}

Expr compare(std::string_view direction, const Expr& a, const Expr& b) {
  if (direction == "EQ") return a == b;
  if (direction == "NE") return a != b;
  if (direction == "LT") return a < b;
  if (direction == "LE") return a <= b;
  if (direction == "GT") return a > b;
  return a >= b;  // GE (lowering_refusal refuses any other)
}

// Integer divide (or remainder) as XLA's evaluator defines every case, without a machine
// divide that traps: x / 0 is all ones (-1 signed), x % 0 is x, INT_MIN / -1 is INT_MIN and
// INT_MIN % -1 is 0; otherwise rounded toward zero.
Expr integer_division(const Expr& a, const Expr& b, bool remainder) {
  const Halide::Type t = a.type();
  const Expr zero = Halide::Internal::make_zero(t), one = Halide::Internal::make_one(t);
  const Expr overflow = t.is_int() ? (a == t.min() && b == -one) : Halide::Internal::const_false();
  const Expr safe = Halide::select(b == zero || overflow, one, b);
  if (remainder) {
    const Expr r = t.is_int() ? Halide::mod_round_to_zero(a, safe) : a % safe;
    return Halide::select(b == zero, a, overflow, zero, r);
  }
  const Expr q = t.is_int() ? Halide::div_round_to_zero(a, safe) : a / safe;
  return Halide::select(b == zero, Halide::cast(t, t.max()) | Halide::cast(t, t.min()), overflow, a, q);
}

Expr binary(std::string_view opcode, const Expr& a, const Expr& b, std::string_view direction) {
  const Halide::Type t = a.type();
  switch (binary_ops().find(opcode)->second) {
    case 0:
      return t.is_bool() ? (a || b) : a + b;
    case 1:
      return a - b;
    case 2:
      return t.is_bool() ? (a && b) : a * b;
    case 3:
      return t.is_float() ? a / b : integer_division(a, b, false);
    case 4:
      if (!t.is_float()) return integer_division(a, b, true);
      return float_math(a, [&](const Expr& x) { return x - Halide::cast(x.type(), b) * Halide::trunc(x / Halide::cast(x.type(), b)); });
    case 5:  // XLA's maximum and minimum propagate NaN; Halide's do not
      if (t.is_bool()) return a || b;
      return t.is_float() ? Halide::select(Halide::is_nan(a) || Halide::is_nan(b), a + b, Halide::max(a, b)) : Halide::max(a, b);
    case 6:
      if (t.is_bool()) return a && b;
      return t.is_float() ? Halide::select(Halide::is_nan(a) || Halide::is_nan(b), a + b, Halide::min(a, b)) : Halide::min(a, b);
    case 7:
      return float_math(a, [&](const Expr& x) { return Halide::pow(x, Halide::cast(x.type(), b)); });
    case 8:
      return t.is_bool() ? (a && b) : (a & b);
    case 9:
      return t.is_bool() ? (a || b) : (a | b);
    case 10:
      return t.is_bool() ? (a != b) : (a ^ b);
    case 11:
      return float_math(a, [&](const Expr& y) { return Halide::atan2(y, Halide::cast(y.type(), b)); });
    default:
      return compare(direction, a, b);
  }
}

Expr convert(const Expr& x, const Halide::Type& to) {
  if (to.is_bool()) return x != Halide::Internal::make_zero(x.type());
  if (x.type().is_bool()) return Halide::select(x, Halide::Internal::make_one(to), Halide::Internal::make_zero(to));
  if (x.type().is_float() && !to.is_float()) {  // XLA: NaN -> 0, out of range saturates
    const Expr wide = Halide::cast(Halide::Float(64), x);
    return Halide::select(Halide::is_nan(wide), Halide::Internal::make_zero(to), Halide::saturating_cast(to, wide));
  }
  return Halide::cast(to, x);
}

}  // namespace

Expr combine(std::string_view reducer, const Expr& a, const Expr& b) { return binary(reducer, a, b, {}); }

Halide::Type accumulator_type(const Halide::Type& result) { return is_small_float(result) ? Halide::Float(32) : result; }

bool is_unary_opcode(std::string_view opcode) { return unary_ops().count(opcode) > 0; }

bool is_elementwise_opcode(std::string_view opcode) {
  return unary_ops().count(opcode) || binary_ops().count(opcode) || opcode == "select" || opcode == "clamp" || opcode == "convert";
}

Func lower_elementwise(const OpContext& op) {
  const HloInstruction& in = op.instruction;
  const std::vector<Var> v = index_vars(in.shape.dims.size());
  const std::vector<Expr> index = as_exprs(v);
  Func f(func_name(in.name));
  Expr value;
  if (in.opcode == "select") {
    value = Halide::select(op.at(0, index), op.at(1, index), op.at(2, index));
  } else if (in.opcode == "clamp") {                                                      // clamp(min, x, max)
    value = Halide::min(Halide::max(op.at(1, index), op.at(0, index)), op.at(2, index));  // XLA's order, also when min > max
  } else if (in.opcode == "convert") {
    value = convert(op.at(0, index), halide_type(in.shape.element_type, op.where));
  } else if (unary_ops().count(in.opcode)) {
    value = unary(in.opcode, op.at(0, index));
  } else {
    value = binary(in.opcode, op.at(0, index), op.at(1, index), in.op_attributes().text_of("direction"));
  }
  f(v) = value;
  return f;
}

std::vector<int64_t> integer_list_text(std::string_view text, const std::string& where, const std::string& attribute) {
  std::vector<int64_t> values;
  std::string digits;
  const auto flush = [&] {
    if (digits.empty()) return;
    char* end = nullptr;
    values.push_back(std::strtoll(digits.c_str(), &end, 10));
    if (*end != '\0') throw InputError(where, attribute, "a list of integers such as {0,1}", std::string(text));
    digits.clear();
  };
  for (const char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '-') {
      digits += c;
    } else if (c == ',' || c == '{' || c == '}' || c == ' ') {
      flush();
    } else {
      throw InputError(where, attribute, "a list of integers such as {0,1}", std::string(text));
    }
  }
  flush();
  return values;
}

std::vector<std::string_view> literal_tokens(std::string_view text, std::string* why) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '(' || c == ')' || c == '{' || c == '}' || c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (text.substr(i, 3) == "...") {
      *why = "the literal is elided ({...}: XLA prints large constants so; dump with print_large_constants)";
      return {};
    }
    const size_t start = i;
    while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '.' || text[i] == '-' || text[i] == '+'))
      ++i;
    if (i == start) {
      *why = "a literal of numbers, true and false (found '" + std::string(1, c) + "')";
      return {};
    }
    tokens.push_back(text.substr(start, i - start));
  }
  return tokens;
}

Func lower_constant(const OpContext& op) {
  const HloShape& shape = op.instruction.shape;
  const Halide::Type type = halide_type(shape.element_type, op.where);
  std::string why;
  const std::vector<std::string_view> tokens = literal_tokens(op.instruction.op_attributes().text_of("literal"), &why);
  int64_t count = 1;
  for (const int64_t d : shape.dims) count *= d;
  if (static_cast<int64_t>(tokens.size()) != count) {
    throw InputError(op.where, "constant", std::to_string(count) + " literal values", why.empty() ? std::to_string(tokens.size()) : why);
  }
  // The values in a buffer whose first dimension is the shape's last (row-major, as printed).
  std::vector<int> extents(shape.dims.rbegin(), shape.dims.rend());
  Halide::Buffer<> values(type, extents);
  std::vector<int> position(extents.size(), 0);
  for (const std::string_view token : tokens) {
    const std::string text(token);
    char* end = nullptr;
    double real = 0;
    int64_t integer = 0;
    if (text == "true" || text == "false") {
      integer = text == "true";
      real = static_cast<double>(integer);
    } else if (type.is_float()) {
      real = std::strtod(text.c_str(), &end);
    } else {
      integer = type.is_uint() ? static_cast<int64_t>(std::strtoull(text.c_str(), &end, 10)) : std::strtoll(text.c_str(), &end, 10);
      real = static_cast<double>(integer);
    }
    if (end != nullptr && *end != '\0') throw InputError(op.where, "constant", "a number of type " + std::string(shape.element_type), text);
    void* at = values.raw_buffer()->address_of(position.data());
    if (type.is_float()) {
      if (type.bits() == 64) *static_cast<double*>(at) = real;
      else if (type.bits() == 32) *static_cast<float*>(at) = static_cast<float>(real);
      else if (type == Halide::Float(16)) *static_cast<Halide::float16_t*>(at) = Halide::float16_t(real);
      else *static_cast<Halide::bfloat16_t*>(at) = Halide::bfloat16_t(real);
    } else if (type.bytes() == 1) {
      *static_cast<uint8_t*>(at) = static_cast<uint8_t>(integer);
    } else if (type.bytes() == 2) {
      *static_cast<uint16_t*>(at) = static_cast<uint16_t>(integer);
    } else if (type.bytes() == 4) {
      *static_cast<uint32_t*>(at) = static_cast<uint32_t>(integer);
    } else {
      *static_cast<uint64_t*>(at) = static_cast<uint64_t>(integer);
    }
    for (size_t d = 0; d < position.size() && ++position[d] == extents[d]; ++d) position[d] = 0;
  }
  const std::vector<Var> v = index_vars(shape.dims.size());
  std::vector<Expr> reversed(v.rbegin(), v.rend());
  Func f(func_name(op.instruction.name));
  f(v) = values(reversed);
  return f;
}

std::string_view reducer_opcode(const HloComputation& to_apply) {
  if (to_apply.instructions.size() != 3) return {};
  const HloInstruction& root = to_apply.instructions[static_cast<size_t>(to_apply.root)];
  if (root.operands.size() != 2) return {};
  for (const int32_t operand : root.operands) {
    if (to_apply.instructions[static_cast<size_t>(operand)].opcode != "parameter") return {};
  }
  static const char* const reducers[] = {"add", "multiply", "maximum", "minimum", "and", "or"};
  for (const char* reducer : reducers) {
    if (root.opcode == reducer) return root.opcode;
  }
  return {};
}

Func lower_reduce(const OpContext& op, const HloComputation& to_apply) {
  const HloInstruction& in = op.instruction;
  const HloShape& input = *op.operand_shapes[0];
  const std::vector<Var> v = index_vars(in.shape.dims.size());
  Halide::Region ranges;
  for (const int64_t d : in.dimensions) ranges.emplace_back(0, static_cast<int>(input.dims[static_cast<size_t>(d)]));
  Halide::RDom r(ranges);
  std::vector<Expr> index;
  size_t kept = 0, reduced = 0;
  for (size_t d = 0; d < input.dims.size(); ++d) {
    const bool is_reduced = std::find(in.dimensions.begin(), in.dimensions.end(), static_cast<int64_t>(d)) != in.dimensions.end();
    index.push_back(is_reduced ? Expr(r[static_cast<int>(reduced++)]) : Expr(v[kept++]));
  }
  Func f(func_name(in.name));
  f(v) = op.at(1, {});
  f(v) = combine(reducer_opcode(to_apply), f(v), op.at(0, index));
  return f;
}

Func lower_dot(const OpContext& op) {
  const HloInstruction& in = op.instruction;
  const HloOpAttributes& attributes = in.op_attributes();
  const auto dims = [&](const char* key) { return integer_list_text(attributes.text_of(key), op.where, key); };
  const std::vector<int64_t> lhs_batch = dims("lhs_batch_dims"), rhs_batch = dims("rhs_batch_dims");
  const std::vector<int64_t> lhs_contracting = dims("lhs_contracting_dims"), rhs_contracting = dims("rhs_contracting_dims");
  const HloShape& lhs = *op.operand_shapes[0];
  const HloShape& rhs = *op.operand_shapes[1];
  Halide::Region ranges;
  for (const int64_t d : lhs_contracting) ranges.emplace_back(0, static_cast<int>(lhs.dims[static_cast<size_t>(d)]));
  const std::vector<Var> v = index_vars(in.shape.dims.size());
  Halide::RDom r(ranges);
  // Output dimensions: the batch dimensions, then lhs's free ones, then rhs's, each in order.
  const auto operand_index = [&](const HloShape& shape, const std::vector<int64_t>& batch, const std::vector<int64_t>& contracting,
                                 size_t free_start) {
    std::vector<Expr> index(shape.dims.size());
    for (size_t b = 0; b < batch.size(); ++b) index[static_cast<size_t>(batch[b])] = v[b];
    for (size_t c = 0; c < contracting.size(); ++c) index[static_cast<size_t>(contracting[c])] = r[static_cast<int>(c)];
    size_t next = free_start;
    for (Expr& e : index) {
      if (!e.defined()) e = v[next++];
    }
    return std::make_pair(index, next);
  };
  const auto [lhs_index, rhs_free_start] = operand_index(lhs, lhs_batch, lhs_contracting, lhs_batch.size());
  const auto [rhs_index, end] = operand_index(rhs, rhs_batch, rhs_contracting, rhs_free_start);
  (void)end;
  const Halide::Type type = halide_type(in.shape.element_type, op.where);
  const Halide::Type accumulator = accumulator_type(type);
  Func sum(func_name(std::string(in.name) + "_sum"));
  sum(v) = Halide::Internal::make_zero(accumulator);
  sum(v) += Halide::cast(accumulator, op.at(0, lhs_index)) * Halide::cast(accumulator, op.at(1, rhs_index));
  if (accumulator == type) return sum;
  Func f(func_name(in.name));
  f(v) = Halide::cast(type, sum(v));
  return f;
}

}  // namespace graphcost::lowering
