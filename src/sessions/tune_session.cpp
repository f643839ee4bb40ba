#include "sessions/tune_session.h"

#include <cmath>

#include "common/input_error.h"

namespace graphcost {

TuneSession::TuneSession(const TpuGraph& graph, const CostModel* model, TuneOptions options)
    : target_(tuning_target_from_graph(graph, graph.source)) {
  if (!target_.recorded()) {
    throw InputError(graph.source, "runtimes", "recorded runtimes to replay (a labelled file)", "none (hidden)");
  }
  if (options.strategy == TuneStrategy::Online && options.learner.init != GnnInit::Model)
    model = nullptr;  // learns from the measurements alone
  tuner_ = std::make_unique<Tuner>(target_, replay_oracle(target_), model, options);
}

bool TuneSession::step() {
  if (!running()) return false;
  const RoundReport report = tuner_->run_round({});
  rounds_.push_back(report);
  curve_.push_back({report.measured, report.unmeasured_tau, report.best_over_pool_best, report.out_of_sample_tau});
  return running();
}

std::vector<bool> TuneSession::measured_configs() const {
  std::vector<bool> measured(static_cast<size_t>(target_.graph.config_count), false);
  for (const Measurement& m : tuner_->measurements()) measured[static_cast<size_t>(m.config)] = true;
  return measured;
}

nlohmann::json TuneSession::state() const {
  const auto value = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  nlohmann::json curve = nlohmann::json::array();
  for (const Point& p : curve_) {
    curve.push_back({{"measured", p.measured},
                     {"unmeasured_tau", value(p.unmeasured_tau)},
                     {"best_over_file_best", value(p.best_over_file_best)},
                     {"out_of_sample_tau", value(p.out_of_sample_tau)}});
  }
  nlohmann::json measured = nlohmann::json::array();
  for (const Measurement& m : tuner_->measurements()) measured.push_back(m.config);
  double learn = 0;
  for (const RoundReport& r : rounds_) learn += r.learn_seconds;
  return {{"running", running()},
          {"rounds", rounds_.size()},
          {"budget", tuner_->options().budget},
          {"learner", name_of(learner_names(), tuner_->options().learner.kind)},
          {"learner_now",
           tuner_->learner() != nullptr && tuner_->learner()->fitted() ? tuner_->learner()->describe() : nlohmann::json(nullptr)},
          {"measured", measured},
          {"curve", curve},
          {"learn_ms_per_round",
           rounds_.empty() ? nlohmann::json(nullptr) : nlohmann::json(learn * 1e3 / static_cast<double>(rounds_.size()))}};
}

}  // namespace graphcost
