// Reverse-mode automatic differentiation over row-major Eigen float matrices.
//
// A Tape records every operation of one forward pass as a node holding its value, its gradient and
// a backward function that adds its contribution to its inputs' gradients. backward(loss) seeds the
// scalar loss with 1 and runs the nodes in reverse order. Parameters live outside tapes (they keep
// their values across steps) and receive accumulated gradients. All tensors are 2-D; a batch of
// configurations is folded into rows (row = config * nodes + node) and ops say how to group them.
// Ops are in nn/ops.h; each is checked against finite differences in tests/test_nn_ops.cpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace graphcost::nn {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A trainable tensor: its value, and the gradient accumulated by backward passes.
struct Parameter {
  std::string name;
  Matrix value;
  Matrix grad;

  Parameter() = default;
  Parameter(std::string parameter_name, Matrix initial)
      : name(std::move(parameter_name)), value(std::move(initial)), grad(Matrix::Zero(value.rows(), value.cols())) {}
  void zero_grad() { grad.setZero(value.rows(), value.cols()); }
};

class Tape;

// A handle to a tape node. Cheap to copy; valid while its tape lives.
struct Var {
  Tape* tape = nullptr;
  int id = -1;

  const Matrix& value() const;
  Matrix& grad() const;
  Eigen::Index rows() const { return value().rows(); }
  Eigen::Index cols() const { return value().cols(); }
};

class Tape {
 public:
  // A value that needs no gradient (inputs, features).
  Var constant(Matrix value);
  // A leaf bound to `parameter`: backward adds its gradient to parameter.grad.
  Var parameter(Parameter& parameter);
  // A node computed from `inputs`; `backward` receives (this tape, the node's id) and must add
  // d(loss)/d(input) to each input's grad(), reading the node's grad().
  Var record(Matrix value, std::vector<Var> inputs, std::function<void(Tape&, int)> backward);

  // Runs the backward pass from a 1 x 1 `loss`.
  void backward(Var loss);

  const Matrix& value(int id) const { return nodes_[static_cast<size_t>(id)].value; }
  Matrix& grad(int id);
  // grad(id) += contribution, where a gradient not yet written is assigned (no zero fill and no
  // read of zeros: the first contribution to a configs x nodes matrix is most of its cost).
  template <typename Expression>
  void add_to_grad(int id, const Expression& contribution) {
    Matrix& grad = nodes_[static_cast<size_t>(id)].grad;
    if (grad.size() == 0) {
      grad = contribution;
    } else {
      grad += contribution;
    }
  }
  bool needs_grad(int id) const { return nodes_[static_cast<size_t>(id)].needs_grad; }
  size_t size() const { return nodes_.size(); }

 private:
  struct Node {
    Matrix value;
    Matrix grad;  // allocated lazily, zero until written
    std::function<void(Tape&, int)> backward;
    Parameter* parameter = nullptr;
    bool needs_grad = false;
  };
  std::vector<Node> nodes_;
};

}  // namespace graphcost::nn
