// ExpressionNode: a parsed restriction expression (spaces/restriction_expression.h), shared by the
// parser (restriction_expression.cpp) and the evaluator (expression_evaluation.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "spaces/restriction_expression.h"

namespace graphcost {

// An operator (or a literal, a parameter's name, a call) and its operands.
struct ExpressionNode {
  enum class Op { Literal, Name, List, Call, Neg, Not, And, Or, Compare, Add, Sub, Mul, Div, FloorDiv, Mod, Pow } op = Op::Literal;
  ExpressionValue literal;
  int name = -1;                         // Name: the parameter's index
  std::string function;                  // Call
  std::vector<std::string> comparisons;  // Compare: the operators between operands ("<", "in", "not in", ...)
  std::vector<std::unique_ptr<ExpressionNode>> operands;
  int column = 0;
};

}  // namespace graphcost
