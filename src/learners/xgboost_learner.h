// XgboostLearner: gradient-boosted trees (learners/boosted_trees.h) on a program's measured
// configs: the config values that vary among the candidates (layout: each configurable node's 18
// values; tile: the 24 config features), as numbers, no one-hot, no graph; the target is log
// runtime in nanoseconds. AutoTVM's cost model, and on the real TPU files of ../shared the best
// single learner from a few dozen measurements (docs/tuning.md, "Which learner"). Trees predict
// in steps: configs the measurements cannot tell apart get the same cost.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "learners/learner.h"

namespace graphcost {

class XgboostLearner final : public Learner {
 public:
  XgboostLearner(const TpuGraph& graph, BoostedTreesOptions options);
  LearnerKind kind() const override { return LearnerKind::Xgboost; }
  void fit(const Observations& observed) override;
  bool fitted() const override { return trees_.fitted(); }
  std::vector<float> predict(const std::vector<int32_t>& configs) const override;
  std::unique_ptr<Learner> fresh() const override;
  bool costs_are_log_runtimes() const override { return true; }  // log nanoseconds
  void save(const std::string& path, const std::vector<std::string>& inputs) const override;
  // A fitted learner read from a learner file's JSON (learners/learner_file.h); InputError naming
  // `where` when its columns do not fit `graph`.
  static std::unique_ptr<XgboostLearner> from_json(const TpuGraph& graph, const nlohmann::json& json, const std::string& where);

  // The feature columns: (configurable slot, layout column) for layout, (-1, config_feat column) for tile.
  using Column = std::pair<int32_t, int32_t>;
  const std::vector<Column>& columns() const { return *columns_; }

 private:
  XgboostLearner(const TpuGraph& graph, BoostedTreesOptions options, std::shared_ptr<const std::vector<Column>> columns);
  std::vector<float> features(const int32_t* configs, size_t count) const;

  const TpuGraph& graph_;
  BoostedTreesOptions options_;
  std::shared_ptr<const std::vector<Column>> columns_;  // shared by fresh() copies: found once per target
  BoostedTrees trees_;
};

// The columns whose value differs between some two of `graph`'s candidates, and a config's value in
// one: the numbers XGBoost learns from (and a Python learner, python/src/python_learner.h).
std::vector<XgboostLearner::Column> varying_columns(const TpuGraph& graph);
float config_value_at(const TpuGraph& graph, int32_t config, const XgboostLearner::Column& column);

}  // namespace graphcost
