// BoostedTrees: gradient-boosted regression trees on a dense feature matrix, through XGBoost's C
// API (Debian's libxgboost natively; its source package compiled with Emscripten for the browser,
// cmake/GraphcostDependencies.cmake). One thread, the `hist` method, squared error: AutoTVM's cost
// model, the autotuning field's baseline (docs/tuning.md). XGBoost's errors become InternalError
// (the features are ours, so a refusal is a bug here, not the user's input).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace graphcost {

struct BoostedTreesOptions {
  int rounds = 200;
  int max_depth = 4;
  double learning_rate = 0.1;  // XGBoost's eta
  // XGBoost's own starting prediction (0.5 by default in 1.7). Left at it on purpose: the first
  // rounds then only move the prediction to the targets' level, which makes early trees coarse
  // (docs/tuning.md, "The trees").
  double base_score = 0.5;
  uint64_t seed = 0;
};

class BoostedTrees {
 public:
  BoostedTrees() = default;
  ~BoostedTrees();
  BoostedTrees(const BoostedTrees&) = delete;
  BoostedTrees& operator=(const BoostedTrees&) = delete;
  BoostedTrees(BoostedTrees&& other) noexcept;
  BoostedTrees& operator=(BoostedTrees&& other) noexcept;

  // Fits on `rows` x `columns` features (row-major) and their targets. Replaces any earlier fit.
  void fit(const std::vector<float>& features, size_t rows, size_t columns, const std::vector<float>& targets,
           const BoostedTreesOptions& options);
  // Predictions for `rows` x columns() features (row-major).
  std::vector<float> predict(const std::vector<float>& features, size_t rows) const;
  bool fitted() const { return booster_ != nullptr; }
  size_t columns() const { return columns_; }

  // The fitted trees in XGBoost's JSON model format, and back (InputError `where` on a bad one).
  std::string save_json() const;
  static BoostedTrees load_json(const std::string& json, size_t columns, const std::string& where);

 private:
  void* booster_ = nullptr;  // BoosterHandle
  size_t columns_ = 0;
};

}  // namespace graphcost
