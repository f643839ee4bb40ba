#include "nn/tape.h"

#include <cassert>

namespace graphcost::nn {

const Matrix& Var::value() const { return tape->value(id); }
Matrix& Var::grad() const { return tape->grad(id); }

Var Tape::constant(Matrix value) {
  Node node;
  node.value = std::move(value);
  nodes_.push_back(std::move(node));
  return {this, static_cast<int>(nodes_.size()) - 1};
}

Var Tape::parameter(Parameter& parameter) {
  Node node;
  node.value = parameter.value;
  node.parameter = &parameter;
  node.needs_grad = true;
  nodes_.push_back(std::move(node));
  return {this, static_cast<int>(nodes_.size()) - 1};
}

Var Tape::record(Matrix value, std::vector<Var> inputs, std::function<void(Tape&, int)> backward) {
  Node node;
  node.value = std::move(value);
  for (const Var& input : inputs) {
    assert(input.tape == this);
    node.needs_grad = node.needs_grad || needs_grad(input.id);
  }
  if (node.needs_grad) node.backward = std::move(backward);
  nodes_.push_back(std::move(node));
  return {this, static_cast<int>(nodes_.size()) - 1};
}

Matrix& Tape::grad(int id) {
  Node& node = nodes_[static_cast<size_t>(id)];
  if (node.grad.size() == 0 && node.value.size() != 0) node.grad = Matrix::Zero(node.value.rows(), node.value.cols());
  return node.grad;
}

void Tape::backward(Var loss) {
  assert(loss.tape == this && loss.rows() == 1 && loss.cols() == 1);
  grad(loss.id)(0, 0) += 1.0f;
  for (int id = loss.id; id >= 0; --id) {
    Node& node = nodes_[static_cast<size_t>(id)];
    if (!node.needs_grad || node.grad.size() == 0) continue;
    if (node.backward) node.backward(*this, id);
    if (node.parameter != nullptr) node.parameter->grad += node.grad;
  }
}

}  // namespace graphcost::nn
