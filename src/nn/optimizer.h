// Adam / AdamW with global gradient-norm clipping and a warmup + cosine learning-rate schedule.
// step() reads every parameter's accumulated grad, updates its value, and zeroes the grad.
#pragma once

#include <vector>

#include "nn/tape.h"

namespace graphcost::nn {

struct AdamOptions {
  float learning_rate = 1e-3f;
  float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;
  float weight_decay = 0.0f;  // decoupled (AdamW); 0 gives plain Adam
  float clip_norm = 1.0f;     // global L2 norm of all gradients; <= 0 disables clipping
};

// Learning-rate multiplier at `step` of `total_steps`: linear warmup over `warmup_steps`, then a
// cosine decay to `floor` (a fraction of the base rate).
float cosine_schedule(int step, int total_steps, int warmup_steps, float floor = 0.0f);

class Adam {
 public:
  Adam(std::vector<Parameter*> parameters, AdamOptions options);

  // One update with the base learning rate times `rate_multiplier`. Returns the gradient norm
  // before clipping.
  float step(float rate_multiplier = 1.0f);
  int steps_taken() const { return steps_; }
  const AdamOptions& options() const { return options_; }

  // The optimizer state (moments, step count), for checkpoints: first and second moments in
  // parameter order.
  std::vector<Matrix>& first_moments() { return m_; }
  std::vector<Matrix>& second_moments() { return v_; }
  void set_steps_taken(int steps) { steps_ = steps; }

 private:
  std::vector<Parameter*> parameters_;
  AdamOptions options_;
  std::vector<Matrix> m_, v_;
  int steps_ = 0;
};

}  // namespace graphcost::nn
