#include "sessions/tune_session.h"

#include "common/input_error.h"
#include "tune/tune_report.h"

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

TuneSession::TuneSession(TuningTarget target, TuneOptions options) : target_(std::move(target)) {
  if (!target_.recorded()) {
    throw InputError(target_.path, "runtimes", "recorded runtimes to replay (a measured space)", "none (a definition: nothing measured)");
  }
  tuner_ = std::make_unique<Tuner>(target_, replay_oracle(target_), nullptr, options);
}

bool TuneSession::step() {
  if (!running()) return false;
  const RoundReport report = tuner_->run_round({});
  rounds_.push_back(report);
  return running();
}

std::vector<bool> TuneSession::measured_configs() const {
  std::vector<bool> measured(static_cast<size_t>(target_.graph.config_count), false);
  for (const Measurement& m : tuner_->measurements()) measured[static_cast<size_t>(m.config)] = true;
  return measured;
}

nlohmann::json TuneSession::state() const {
  nlohmann::json state = tune_summary_json(*tuner_, "replay", rounds_, stopped_);
  nlohmann::json measured = nlohmann::json::array();
  for (const Measurement& m : tuner_->measurements()) measured.push_back(m.config);
  double learn = 0;
  for (const RoundReport& r : rounds_) learn += r.learn_seconds;
  state["running"] = running();
  state["budget"] = tuner_->options().budget;
  state["measured"] = measured;
  state["learn_ms_per_round"] =
      rounds_.empty() ? nlohmann::json(nullptr) : nlohmann::json(learn * 1e3 / static_cast<double>(rounds_.size()));
  return state;
}

}  // namespace graphcost
