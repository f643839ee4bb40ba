// RestrictionExpression: the Python expressions a T1 space (and Kernel Tuner's `restrictions`) uses
// for parameter values ("[16, 32, 48]", "list(range(1, 9))") and for the conditions a config must
// meet ("block_size_x*block_size_y<=1024", "use_padding==0 or block_size_x % 32 != 0"), parsed once
// and evaluated per config, with Python's meaning: integers exact (// and % floor toward minus
// infinity), / a float, chained comparisons, and/or/not, `in`, list literals, range(), list(),
// len(), min(), max(), abs(), int(), float(), True/False, strings. Nothing else is Python here: a
// comprehension, attribute or unknown function is refused by name, never run (no eval()).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace graphcost {

struct ExpressionValue {
  enum class Kind { Int, Float, String, List } kind = Kind::Int;
  int64_t integer = 0;
  double real = 0;
  std::string text;
  std::vector<ExpressionValue> items;

  static ExpressionValue of_int(int64_t v);
  static ExpressionValue of_float(double v);
  static ExpressionValue of_string(std::string v);
  bool truthy() const;
  double number() const;  // Int or Float; InternalError otherwise
};

struct ExpressionNode;  // a parsed expression (restriction_expression.cpp)

class RestrictionExpression {
 public:
  // `names`: the parameters an expression may name (index = their position). InputError naming
  // `where` (the file and field) and the column on a syntax error or an unknown name.
  RestrictionExpression(const std::string& text, const std::vector<std::string>& names, const std::string& where);
  ~RestrictionExpression();
  RestrictionExpression(RestrictionExpression&&) noexcept;
  RestrictionExpression& operator=(RestrictionExpression&&) noexcept;

  // The value with each named parameter bound to `values[i]`. InputError naming `where` on a type
  // error or a division by zero, as Python would raise, and on an evaluation past a budget (lists of
  // more than a million values, ten million steps). `steps`, when given, is increased by the work done.
  ExpressionValue evaluate(const std::vector<ExpressionValue>& values, uint64_t* steps = nullptr) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_, where_;
  std::unique_ptr<ExpressionNode> root_;
};

}  // namespace graphcost
