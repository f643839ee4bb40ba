#include "nn/optimizer.h"

#include <algorithm>
#include <cmath>

namespace graphcost::nn {

float cosine_schedule(int step, int total_steps, int warmup_steps, float floor) {
  if (warmup_steps > 0 && step < warmup_steps) return static_cast<float>(step + 1) / static_cast<float>(warmup_steps);
  const int span = std::max(1, total_steps - warmup_steps);
  const float progress = std::min(1.0f, static_cast<float>(step - warmup_steps) / static_cast<float>(span));
  return floor + (1.0f - floor) * 0.5f * (1.0f + std::cos(3.14159265358979f * progress));
}

Adam::Adam(std::vector<Parameter*> parameters, AdamOptions options) : parameters_(std::move(parameters)), options_(options) {
  for (Parameter* p : parameters_) {
    m_.push_back(Matrix::Zero(p->value.rows(), p->value.cols()));
    v_.push_back(Matrix::Zero(p->value.rows(), p->value.cols()));
  }
}

float Adam::step(float rate_multiplier) {
  double squared = 0;
  for (Parameter* p : parameters_) squared += static_cast<double>(p->grad.squaredNorm());
  const float norm = static_cast<float>(std::sqrt(squared));
  const float clip = options_.clip_norm > 0 && norm > options_.clip_norm ? options_.clip_norm / norm : 1.0f;
  ++steps_;
  const float rate = options_.learning_rate * rate_multiplier;
  const float correction1 = 1.0f - std::pow(options_.beta1, static_cast<float>(steps_));
  const float correction2 = 1.0f - std::pow(options_.beta2, static_cast<float>(steps_));
  for (size_t i = 0; i < parameters_.size(); ++i) {
    Parameter& p = *parameters_[i];
    const Matrix g = p.grad * clip;
    m_[i] = options_.beta1 * m_[i] + (1.0f - options_.beta1) * g;
    v_[i] = options_.beta2 * v_[i] + (1.0f - options_.beta2) * g.cwiseProduct(g);
    if (options_.weight_decay > 0) p.value *= 1.0f - rate * options_.weight_decay;
    p.value.array() -= rate * (m_[i].array() / correction1) / ((v_[i].array() / correction2).sqrt() + options_.epsilon);
    p.zero_grad();
  }
  return norm;
}

}  // namespace graphcost::nn
