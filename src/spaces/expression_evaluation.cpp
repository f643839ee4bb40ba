// RestrictionExpression's evaluation with Python's meaning (spaces/restriction_expression.h): the
// parser is in restriction_expression.cpp, the node type in expression_node.h.
#include <cmath>
#include <limits>

#include "common/input_error.h"
#include "spaces/expression_node.h"
#include "spaces/restriction_expression.h"

namespace graphcost {
namespace {

using Kind = ExpressionValue::Kind;
using Op = ExpressionNode::Op;
constexpr size_t kMaxListLength = 1000000;  // a list (range(), a literal, a sum of lists): a file cannot ask for more
constexpr uint64_t kMaxSteps = 10000000;    // nodes visited and list items made in one evaluation

class Evaluator {
 public:
  Evaluator(const std::string& text, const std::string& where, const std::vector<ExpressionValue>& values)
      : text_(text), where_(where), values_(values) {}
  uint64_t steps() const { return steps_; }

  ExpressionValue eval(const ExpressionNode& node) {
    spend(node, 1);
    switch (node.op) {
      case Op::Literal:
        return node.literal;
      case Op::Name:
        return values_[static_cast<size_t>(node.name)];
      case Op::List: {
        ExpressionValue list;
        list.kind = Kind::List;
        for (const auto& item : node.operands) list.items.push_back(eval(*item));
        check_length(node, list.items.size());
        return list;
      }
      case Op::Call:
        return call(node);
      case Op::Neg: {
        const ExpressionValue v = number(eval(*node.operands[0]), node, "-");
        if (v.kind == Kind::Float) return ExpressionValue::of_float(-v.real);
        if (v.integer == std::numeric_limits<int64_t>::min()) fail(node, "an integer out of 64-bit range");
        return ExpressionValue::of_int(-v.integer);
      }
      case Op::Not:
        return ExpressionValue::of_int(eval(*node.operands[0]).truthy() ? 0 : 1);
      case Op::And: {
        ExpressionValue left = eval(*node.operands[0]);
        return left.truthy() ? eval(*node.operands[1]) : left;
      }
      case Op::Or: {
        ExpressionValue left = eval(*node.operands[0]);
        return left.truthy() ? left : eval(*node.operands[1]);
      }
      case Op::Compare:
        return compare(node);
      default:
        return arithmetic(node, eval(*node.operands[0]), eval(*node.operands[1]));
    }
  }

 private:
  [[noreturn]] void fail(const ExpressionNode& node, const std::string& why) const {
    throw InputError(where_, "expression", "an expression Python evaluates",
                     why + " at column " + std::to_string(node.column) + " of " + excerpt(text_));
  }
  void spend(const ExpressionNode& node, uint64_t steps) {
    steps_ += steps;
    if (steps_ > kMaxSteps) fail(node, "more than " + std::to_string(kMaxSteps) + " steps of work");
  }
  void check_length(const ExpressionNode& node, size_t length) {
    if (length > kMaxListLength) fail(node, "a list of more than " + std::to_string(kMaxListLength) + " values");
    spend(node, length);
  }
  ExpressionValue number(ExpressionValue v, const ExpressionNode& node, const char* op) const {
    if (v.kind != Kind::Int && v.kind != Kind::Float) fail(node, std::string("'") + op + "' of a " + kind_name(v));
    return v;
  }
  static const char* kind_name(const ExpressionValue& v) {
    switch (v.kind) {
      case Kind::Int:
        return "number";
      case Kind::Float:
        return "number";
      case Kind::String:
        return "string";
      case Kind::List:
        return "list";
    }
    return "value";
  }
  static bool equal(const ExpressionValue& a, const ExpressionValue& b) {
    const bool a_number = a.kind == Kind::Int || a.kind == Kind::Float, b_number = b.kind == Kind::Int || b.kind == Kind::Float;
    if (a_number || b_number) {
      if (!(a_number && b_number)) return false;
      if (a.kind == Kind::Int && b.kind == Kind::Int) return a.integer == b.integer;
      return a.number() == b.number();
    }
    if (a.kind != b.kind) return false;
    if (a.kind == Kind::String) return a.text == b.text;
    if (a.items.size() != b.items.size()) return false;
    for (size_t i = 0; i < a.items.size(); ++i) {
      if (!equal(a.items[i], b.items[i])) return false;
    }
    return true;
  }
  // a < b for two numbers or two strings (Python refuses to order other pairs).
  bool less(const ExpressionValue& a, const ExpressionValue& b, const ExpressionNode& node) {
    if (a.kind == Kind::String && b.kind == Kind::String) return a.text < b.text;
    if (a.kind == Kind::Int && b.kind == Kind::Int) return a.integer < b.integer;
    return number(a, node, "<").number() < number(b, node, "<").number();
  }
  bool holds(const std::string& op, const ExpressionValue& a, const ExpressionValue& b, const ExpressionNode& node) {
    if (op == "==") return equal(a, b);
    if (op == "!=") return !equal(a, b);
    if (op == "<") return less(a, b, node);
    if (op == ">") return less(b, a, node);
    if (op == "<=") return !less(b, a, node);
    if (op == ">=") return !less(a, b, node);
    bool found = false;
    if (b.kind == Kind::List) {
      spend(node, b.items.size());
      for (const ExpressionValue& item : b.items) found = found || equal(a, item);
    } else if (b.kind == Kind::String && a.kind == Kind::String) {
      found = b.text.find(a.text) != std::string::npos;
    } else {
      fail(node, "'in' of a " + std::string(kind_name(b)));
    }
    return op == "in" ? found : !found;
  }
  ExpressionValue compare(const ExpressionNode& node) {
    ExpressionValue left = eval(*node.operands[0]);
    for (size_t i = 0; i < node.comparisons.size(); ++i) {  // chained: a < b < c is a < b and b < c
      ExpressionValue right = eval(*node.operands[i + 1]);
      if (!holds(node.comparisons[i], left, right, node)) return ExpressionValue::of_int(0);
      left = std::move(right);
    }
    return ExpressionValue::of_int(1);
  }
  // An exact 64-bit result, or the expression refused (Python's integers have no bound; these do).
  ExpressionValue checked(bool overflowed, int64_t value, const ExpressionNode& node) const {
    if (overflowed) fail(node, "an integer out of 64-bit range");
    return ExpressionValue::of_int(value);
  }
  ExpressionValue arithmetic(const ExpressionNode& node, const ExpressionValue& a, const ExpressionValue& b) {
    if (node.op == Op::Add && a.kind == b.kind && (a.kind == Kind::String || a.kind == Kind::List)) {
      check_length(node, a.items.size() + b.items.size() + (a.text.size() + b.text.size()) / 64);
      ExpressionValue sum = a;
      sum.text += b.text;
      sum.items.insert(sum.items.end(), b.items.begin(), b.items.end());
      return sum;
    }
    static const char* const kSymbols[] = {"", "", "", "", "", "", "", "", "", "+", "-", "*", "/", "//", "%", "**"};
    const char* symbol = kSymbols[static_cast<int>(node.op)];
    number(a, node, symbol), number(b, node, symbol);
    const bool integers = a.kind == Kind::Int && b.kind == Kind::Int;
    const double x = a.number(), y = b.number();
    const bool by_zero = (node.op == Op::Div || node.op == Op::FloorDiv || node.op == Op::Mod) && y == 0;
    if (by_zero) fail(node, "a division by zero");
    switch (node.op) {
      case Op::Add: {
        if (!integers) return ExpressionValue::of_float(x + y);
        int64_t r = 0;
        const bool overflowed = __builtin_add_overflow(a.integer, b.integer, &r);
        return checked(overflowed, r, node);
      }
      case Op::Sub: {
        if (!integers) return ExpressionValue::of_float(x - y);
        int64_t r = 0;
        const bool overflowed = __builtin_sub_overflow(a.integer, b.integer, &r);
        return checked(overflowed, r, node);
      }
      case Op::Mul: {
        if (!integers) return ExpressionValue::of_float(x * y);
        int64_t r = 0;
        const bool overflowed = __builtin_mul_overflow(a.integer, b.integer, &r);
        return checked(overflowed, r, node);
      }
      case Op::Div:
        return ExpressionValue::of_float(x / y);
      case Op::FloorDiv:
      case Op::Mod: {
        if (integers) {
          if (b.integer == -1) {  // INT64_MIN / -1 traps: Python's answers, or out of range
            if (node.op == Op::Mod) return ExpressionValue::of_int(0);
            if (a.integer == std::numeric_limits<int64_t>::min()) fail(node, "an integer out of 64-bit range");
            return ExpressionValue::of_int(-a.integer);
          }
          int64_t q = a.integer / b.integer, r = a.integer % b.integer;
          if (r != 0 && ((r < 0) != (b.integer < 0))) --q, r += b.integer;  // floor, as Python
          return ExpressionValue::of_int(node.op == Op::Mod ? r : q);
        }
        // CPython's float_divmod: the remainder takes the divisor's sign, the quotient is floored.
        double mod = std::fmod(x, y), div = (x - mod) / y;
        if (mod != 0) {
          if ((y < 0) != (mod < 0)) mod += y, div -= 1.0;
        } else {
          mod = std::copysign(0.0, y);
        }
        double floored = std::copysign(0.0, x / y);
        if (div != 0) {
          floored = std::floor(div);
          if (div - floored > 0.5) floored += 1.0;
        }
        return ExpressionValue::of_float(node.op == Op::Mod ? mod : floored);
      }
      case Op::Pow:
        if (integers && b.integer >= 0) {
          if (a.integer == 0 || a.integer == 1) return ExpressionValue::of_int(b.integer == 0 ? 1 : a.integer);
          if (a.integer == -1) return ExpressionValue::of_int(b.integer % 2 == 0 ? 1 : -1);
          int64_t result = 1;  // |a| >= 2: overflows within 63 steps
          for (int64_t k = 0; k < b.integer; ++k) {
            if (__builtin_mul_overflow(result, a.integer, &result)) fail(node, "an integer out of 64-bit range");
          }
          return ExpressionValue::of_int(result);
        }
        return ExpressionValue::of_float(std::pow(x, y));
      default:
        fail(node, "an operator graphcost does not evaluate");
    }
  }
  ExpressionValue call(const ExpressionNode& node);

  const std::string& text_;
  const std::string& where_;
  const std::vector<ExpressionValue>& values_;
  uint64_t steps_ = 0;
};

ExpressionValue Evaluator::call(const ExpressionNode& node) {
  std::vector<ExpressionValue> args;
  for (const auto& operand : node.operands) args.push_back(eval(*operand));
  const std::string& f = node.function;
  const auto arity = [&](size_t low, size_t high) {
    if (args.size() < low || args.size() > high) fail(node, f + "() with " + std::to_string(args.size()) + " arguments");
  };
  if (f == "range") {
    arity(1, 3);
    for (const ExpressionValue& a : args) {
      if (a.kind != Kind::Int) fail(node, "range() of a " + std::string(a.kind == Kind::Float ? "float" : kind_name(a)));
    }
    const int64_t start = args.size() == 1 ? 0 : args[0].integer, stop = args.size() == 1 ? args[0].integer : args[1].integer;
    const int64_t step = args.size() == 3 ? args[2].integer : 1;
    if (step == 0) fail(node, "range() with step 0");
    // Its length first (as unsigned: stop - start may pass int64's range), then start + i * step.
    uint64_t length = 0;
    if (step > 0 && start < stop)
      length = (static_cast<uint64_t>(stop) - static_cast<uint64_t>(start) - 1) / static_cast<uint64_t>(step) + 1;
    if (step < 0 && start > stop) {
      length = (static_cast<uint64_t>(start) - static_cast<uint64_t>(stop) - 1) / (0 - static_cast<uint64_t>(step)) + 1;
    }
    if (length > kMaxListLength) fail(node, "a range of more than " + std::to_string(kMaxListLength) + " values");
    check_length(node, static_cast<size_t>(length));
    ExpressionValue list;
    list.kind = Kind::List;
    for (uint64_t i = 0; i < length; ++i) {
      list.items.push_back(ExpressionValue::of_int(static_cast<int64_t>(static_cast<uint64_t>(start) + i * static_cast<uint64_t>(step))));
    }
    return list;
  }
  if (f == "list") {
    arity(1, 1);
    if (args[0].kind != Kind::List) fail(node, "list() of a " + std::string(kind_name(args[0])));
    return args[0];
  }
  if (f == "len") {
    arity(1, 1);
    if (args[0].kind == Kind::String) return ExpressionValue::of_int(static_cast<int64_t>(args[0].text.size()));
    if (args[0].kind != Kind::List) fail(node, "len() of a number");
    return ExpressionValue::of_int(static_cast<int64_t>(args[0].items.size()));
  }
  if (f == "min" || f == "max") {
    arity(1, 1000);
    const std::vector<ExpressionValue>& pool = args.size() == 1 && args[0].kind == Kind::List ? args[0].items : args;
    if (pool.empty()) fail(node, f + "() of nothing");
    ExpressionValue best = pool[0];
    for (const ExpressionValue& v : pool) {
      if (f == "min" ? less(v, best, node) : less(best, v, node)) best = v;
    }
    return best;
  }
  arity(1, 1);
  const ExpressionValue v = number(args[0], node, f.c_str());
  if (f == "abs") {
    if (v.kind == Kind::Float) return ExpressionValue::of_float(std::fabs(v.real));
    if (v.integer == std::numeric_limits<int64_t>::min()) fail(node, "an integer out of 64-bit range");
    return ExpressionValue::of_int(v.integer < 0 ? -v.integer : v.integer);
  }
  if (f == "float") return ExpressionValue::of_float(v.number());
  if (v.kind == Kind::Int) return v;  // int()
  if (!std::isfinite(v.real) || std::fabs(v.real) >= 9.2e18) fail(node, "int() of " + std::to_string(v.real));
  return ExpressionValue::of_int(static_cast<int64_t>(std::trunc(v.real)));
}

}  // namespace

ExpressionValue RestrictionExpression::evaluate(const std::vector<ExpressionValue>& values, uint64_t* steps) const {
  Evaluator evaluator(text_, where_, values);
  ExpressionValue value = evaluator.eval(*root_);
  if (steps != nullptr) *steps += evaluator.steps();
  return value;
}

}  // namespace graphcost
