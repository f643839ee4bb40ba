#include "learners/weighed_learner.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "learners/learner_file.h"
#include "learners/learner_support.h"

namespace graphcost {

WeighedLearner::WeighedLearner(const TpuGraph& graph, const CostModel* given, const LearnerOptions& options)
    : graph_(graph),
      given_(given),
      options_(options),
      kind_(options.kind == LearnerKind::Blend ? LearnerKind::Blend : LearnerKind::Weighed),
      gnn_(std::make_unique<GnnLearner>(graph, given, options)),
      ridge_(std::make_unique<RidgeLearner>(graph)) {}

WeighedLearner::WeighedLearner(const TpuGraph& graph, LearnerKind kind) : graph_(graph), kind_(kind) {}

std::unique_ptr<Learner> WeighedLearner::fresh() const {
  check_invariant(gnn_ != nullptr && ridge_ != nullptr && fixed_weight_ < 0, "WeighedLearner::fresh of a learner read from a file");
  return std::make_unique<WeighedLearner>(graph_, given_, options_);
}

void WeighedLearner::fit(const Observations& observed) {
  gnn_->fit(observed);
  ridge_->fit(observed);
  std::vector<int32_t> all(static_cast<size_t>(graph_.config_count));
  std::iota(all.begin(), all.end(), 0);
  gnn_costs_ = gnn_->predict(all);
  ridge_costs_ = ridge_->predict(all);
}

double WeighedLearner::gnn_weight() const {
  if (fixed_weight_ >= 0) return fixed_weight_;
  if (kind_ == LearnerKind::Blend) return 0.5;
  const auto mean = [](const std::vector<double>& taus) {
    double sum = 0;
    int n = 0;
    for (const double tau : taus) {
      if (std::isfinite(tau)) sum += tau, ++n;
    }
    return n > 0 ? sum / n : NAN;
  };
  const double gnn = mean(gnn_round_taus_), ridge = mean(ridge_round_taus_);
  if (!std::isfinite(gnn) || !std::isfinite(ridge)) return 0.5;
  return std::clamp(0.5 + 2.5 * (gnn - ridge), 0.0, 1.0);  // a lead of 0.2 in tau takes all the weight
}

std::vector<float> WeighedLearner::predict(const std::vector<int32_t>& configs) const {
  check_invariant(fitted(), "WeighedLearner::predict before fit");
  std::vector<float> sum(gnn_costs_.size(), 0.0f);
  const double weight = gnn_weight();
  add_standardised(gnn_costs_, weight, sum);
  add_standardised(ridge_costs_, 1.0 - weight, sum);
  std::vector<float> costs;
  costs.reserve(configs.size());
  for (const int32_t c : configs) costs.push_back(sum[static_cast<size_t>(c)]);
  return costs;
}

std::map<std::string, std::vector<float>> WeighedLearner::member_costs() const {
  if (!fitted()) return {};
  return {{"gnn", gnn_costs_}, {"ridge", ridge_costs_}};
}

void WeighedLearner::set_record(const std::vector<MemberRecord>& record) {
  gnn_round_taus_.clear();
  ridge_round_taus_.clear();
  int last_round = -1;
  for (const MemberRecord& r : record) last_round = std::max(last_round, r.round);
  for (int round = 0; round <= last_round; ++round) {
    std::vector<float> gnn, ridge;
    std::vector<double> measured;
    for (const MemberRecord& r : record) {
      const auto g = r.predicted.find("gnn"), k = r.predicted.find("ridge");
      if (r.round != round || g == r.predicted.end() || k == r.predicted.end() || !std::isfinite(g->second) || !std::isfinite(k->second))
        continue;
      gnn.push_back(g->second);
      ridge.push_back(k->second);
      measured.push_back(r.seconds);
    }
    if (measured.size() < 2) continue;
    gnn_round_taus_.push_back(tau_of(gnn, measured));
    ridge_round_taus_.push_back(tau_of(ridge, measured));
  }
}

nlohmann::json WeighedLearner::describe() const {
  nlohmann::json json = Learner::describe();
  json["gnn_weight"] = gnn_weight();
  return json;
}

void WeighedLearner::save(const std::string& path, const std::vector<std::string>& inputs) const {
  check_invariant(fitted() && gnn_ != nullptr, "WeighedLearner::save before fit");
  const std::string gnn_path = path + ".gnn.npz";
  check_output_path(gnn_path, inputs);
  gnn_->save(gnn_path, inputs);
  nlohmann::json json = learner_file_header(kind_, graph_);
  json["gnn_weight"] = gnn_weight();
  json["gnn_model"] = std::filesystem::path(gnn_path).filename().string();
  const std::string ridge_path = path + ".ridge.json";  // the ridge member, as RidgeLearner writes it
  ridge_->save(ridge_path, inputs);
  json["ridge_learner"] = std::filesystem::path(ridge_path).filename().string();
  write_learner_file(path, json, inputs);
}

std::unique_ptr<WeighedLearner> WeighedLearner::from_json(const TpuGraph& graph, const nlohmann::json& json, const std::string& where) {
  const LearnerKind kind = value_named(learner_names(), json.value("learner", std::string()), where + ": learner");
  auto learner = std::unique_ptr<WeighedLearner>(new WeighedLearner(graph, kind));
  const double weight = json.value("gnn_weight", -1.0);
  if (!(weight >= 0 && weight <= 1))
    throw InputError(where, "gnn_weight", "a share in [0, 1]", json.value("gnn_weight", nlohmann::json()).dump());
  learner->fixed_weight_ = weight;
  const std::filesystem::path folder = std::filesystem::path(where).parent_path();
  const std::string gnn_path = (folder / json.value("gnn_model", std::string())).string();
  const std::string ridge_path = (folder / json.value("ridge_learner", std::string())).string();
  std::vector<int32_t> all(static_cast<size_t>(graph.config_count));
  std::iota(all.begin(), all.end(), 0);
  CostModel model = CostModel::load(gnn_path);
  PreparedGraph prepared = model.prepare(graph);
  learner->gnn_costs_ = model.predict(prepared, 64, 1);
  learner->ridge_costs_ = load_learner_file(ridge_path, graph)->predict(all);
  return learner;
}

}  // namespace graphcost
