#include "tune/tune_report.h"

#include <cmath>

namespace graphcost {
namespace {

nlohmann::json finite_or_null(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr); }

}  // namespace

nlohmann::json round_report_json(const RoundReport& r) {
  return {{"round", r.round},
          {"measured", r.measured},
          {"ok", r.ok},
          {"failed", r.failed},
          {"best_seconds", finite_or_null(r.best_seconds)},
          {"config0_seconds", finite_or_null(r.config0_seconds)},
          {"out_of_sample_tau", finite_or_null(r.out_of_sample_tau)},
          {"unmeasured_tau", finite_or_null(r.unmeasured_tau)},
          {"unmeasured_slowdown_at_5", finite_or_null(r.unmeasured_slowdown_at_5)},
          {"best_over_pool_best", finite_or_null(r.best_over_pool_best)},
          {"learner", r.learner},
          {"seconds", r.seconds},
          {"measure_seconds", r.measure_seconds},
          {"learn_seconds", r.learn_seconds}};
}

nlohmann::json tune_summary_json(const Tuner& tuner, const std::string& oracle, const std::vector<RoundReport>& rounds, bool interrupted) {
  nlohmann::json json_rounds = nlohmann::json::array();
  for (const RoundReport& r : rounds) json_rounds.push_back(round_report_json(r));
  nlohmann::json best = nullptr;
  for (const Measurement& m : tuner.measurements()) {
    if (m.ok() && (best.is_null() || m.seconds < best["seconds"].get<double>())) best = {{"config", m.config}, {"seconds", m.seconds}};
  }
  return {{"target", tuner.target().path},
          {"candidates", tuner.target().graph.config_count},
          {"oracle", oracle},
          {"options", tuner.options().to_json()},
          {"best", best},
          {"learner", tuner.learner() != nullptr && tuner.learner()->fitted() ? tuner.learner()->describe() : nlohmann::json(nullptr)},
          {"rounds", json_rounds},
          {"interrupted", interrupted}};
}

}  // namespace graphcost
