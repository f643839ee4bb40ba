// The Tune panel (docs/browser-app.md): on a file with measured runtimes, graphcost tune's replay
// rounds in the page (src/sessions/tune_session.h): the model learns the program from the configs it
// "measures" (their recorded runtimes revealed one at a time), and the panel plots its Kendall tau
// on the configs not measured yet and the best runtime measured so far against the file's best,
// both against the measurements made. One round per slice of work between frames; Stop ends it at
// the next round. The measured configs are marked in the predicted-vs-measured plot.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "common/error_exit.h"
#include "viewer.h"

namespace graphcost::app {

void Viewer::start_tune(int budget, int per_round, LearnerKind learner) {
  const TpuGraph* graph = tune_graph();
  if (graph == nullptr || graph->runtimes_hidden) return;
  TuneOptions options;
  options.budget = budget;
  options.per_round = per_round;
  options.learner.kind = learner;
  try {
    tune_ = space_ ? std::make_unique<TuneSession>(*space_, options) : std::make_unique<TuneSession>(*graph, nullptr, options);
  } catch (const std::exception& e) {
    error_ = error_message(e);
  }
}

void Viewer::stop_tune() {
  if (tune_) tune_->stop();
}

void Viewer::panel_tune() {
  const TpuGraph* graph = tune_graph();
  if (graph == nullptr || graph->runtimes_hidden) return;
  if (!begin_docked("Tune", true, 0.76f, 0.24f)) return;
  if (!tune_) {
    ImGui::TextWrapped(
        "Replay this file's measurements: the model learns the program from %d of its configs, %d a round, "
        "measured in the order tune would ask for them.",
        tune_budget_, tune_per_round_);
    ImGui::SetNextItemWidth(120);
    ImGui::SliderInt("budget", &tune_budget_, 10, std::min(300, graph->config_count - 1));
    // auto: xgboost or ridge, whichever cross-validates better on the measurements (docs/tuning.md);
    // weighed and gnn show the GNN fine-tuning in the page.
    ImGui::SetNextItemWidth(120);
    if (ImGui::BeginCombo("learner", name_of(learner_names(), tune_learner_).c_str())) {
      for (const auto& [name, learner] : learner_names()) {
        if (learner == LearnerKind::Python) continue;  // a Python object's, from the Python package only
        if (ImGui::Selectable(name.c_str(), learner == tune_learner_)) tune_learner_ = learner;
      }
      ImGui::EndCombo();
    }
    if (ImGui::Button("Tune")) start_tune(tune_budget_, tune_per_round_, tune_learner_);
    ImGui::End();
    return;
  }
  const std::vector<RoundReport>& curve = tune_->rounds();
  const int measured = curve.empty() ? 0 : curve.back().measured;
  const Learner* learner = tune_->tuner().learner();
  std::string learner_name = name_of(learner_names(), tune_->tuner().options().learner.kind);
  if (learner != nullptr && learner->fitted()) {
    const nlohmann::json now = learner->describe();
    if (now.contains("chosen")) learner_name += " (" + now["chosen"].get<std::string>() + " now)";
  }
  ImGui::Text("%s: %d of %d measured, learner %s", tune_->running() ? "tuning" : "done", measured, tune_->tuner().options().budget,
              learner_name.c_str());
  ImGui::SameLine();
  if (tune_->running() ? ImGui::SmallButton("Stop") : ImGui::SmallButton("Again")) {
    if (tune_->running()) {
      stop_tune();
    } else {
      tune_.reset();
      ImGui::End();
      return;
    }
  }
  if (!curve.empty()) {
    std::vector<float> tau, best;
    for (const RoundReport& p : curve) {
      tau.push_back(std::isfinite(p.unmeasured_tau) ? static_cast<float>(p.unmeasured_tau) : 0.0f);
      best.push_back(static_cast<float>(p.best_over_pool_best));
    }
    const float width = ImGui::GetContentRegionAvail().x;
    const std::string tau_label = "tau on the unmeasured " + std::to_string(curve.back().unmeasured_tau).substr(0, 5);
    ImGui::PlotLines("##tau", tau.data(), static_cast<int>(tau.size()), 0, tau_label.c_str(), -0.2f, 1.0f,
                     ImVec2(width, 3 * ImGui::GetTextLineHeight()));
    char best_label[64];
    std::snprintf(best_label, sizeof best_label, "best measured / file's best %.4f", curve.back().best_over_pool_best);
    ImGui::PlotLines("##best", best.data(), static_cast<int>(best.size()), 0, best_label, 1.0f, std::max(1.01f, best.front()),
                     ImVec2(width, 3 * ImGui::GetTextLineHeight()));
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped(graph_ ? "x: rounds of %d measurements; the configs measured are ringed in the plot of predicted vs measured"
                              : "x: rounds of %d measurements; the configs measured are listed above, fastest first",
                       tune_->tuner().options().per_round);
    ImGui::PopStyleColor();
  }
  ImGui::End();
}

}  // namespace graphcost::app
