// A kernel's parameter space in the app (docs/browser-app.md): a T4 file, a Kernel Tuner cache or a
// T1 definition dropped or picked has no graph to draw; the left column shows its parameters and
// values, how its measured configs ended and its best, the Tune panel replays its measurements
// (tune/space_target.h: XGBoost or ridge on the parameters), and as the run goes on the table lists
// the configs measured so far, fastest first, with each parameter's value.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "common/error_exit.h"
#include "common/units.h"
#include "viewer.h"

namespace graphcost::app {

bool Viewer::open_space(const std::string& path, const std::string& display_name) {
  try {
    auto target = std::make_unique<TuningTarget>(load_tuning_target(path, 1, 0));
    pending_.reset();
    session_.reset();
    graph_ = nullptr;
    tune_.reset();
    space_ = std::move(target);
    space_name_ = display_name.empty() ? path : display_name;
    space_summary_ = summarize_parameter_space(*space_->space);
    space_value_texts_.clear();
    for (const SpaceParameter& p : space_->space->parameters) {
      std::string values;
      for (size_t v = 0; v < p.values.size() && values.size() < 400; ++v) values += (v ? ", " : "") + p.values[v].dump();
      if (values.size() >= 400) values = values.substr(0, 400) + "... (" + std::to_string(p.values.size()) + " values)";
      space_value_texts_.push_back(values);
    }
  } catch (const std::exception& e) {
    error_ = error_message(e);
    for (size_t at; !display_name.empty() && path != display_name && (at = error_.find(path)) != std::string::npos;) {
      error_.replace(at, path.size(), display_name);
    }
    constexpr size_t kMaxShown = 4000;  // as Viewer::open: messages quote bounded excerpts; this bounds the rest
    if (error_.size() > kMaxShown) error_ = error_.substr(0, kMaxShown) + "... (" + std::to_string(error_.size()) + " bytes)";
    return false;
  }
  error_.clear();
  return true;
}

nlohmann::json Viewer::space_state() const {
  nlohmann::json summary = space_summary_;
  summary["file"] = space_name_;
  return summary;
}

void Viewer::panel_space() {
  if (!begin_docked("Parameter space", true, 0.17f, 0.59f)) return;  // above the Tune panel (0.76)
  const ParameterSpace& space = *space_->space;
  const nlohmann::json& summary = space_summary_;
  ImGui::TextWrapped("%s: %zu configs of %zu parameters (%s)", space_name_.c_str(), space.configs.size(), space.parameters.size(),
                     space.format.c_str());
  std::string outcomes;
  for (const auto& [outcome, count] : summary["outcomes"].items()) outcomes += outcome + " " + std::to_string(count.get<int64_t>()) + "  ";
  ImGui::TextWrapped("%s", outcomes.c_str());
  if (summary.contains("seconds")) {
    ImGui::TextWrapped("measured: best %s, median %s (the spread a search has to cross)",
                       format_duration(summary["seconds"]["best"].get<double>()).c_str(),
                       format_duration(summary["seconds"]["median"].get<double>()).c_str());
  }
  if (ImGui::BeginTable("parameters", 2, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("parameter");
    ImGui::TableSetupColumn("values");
    ImGui::TableHeadersRow();
    for (size_t p = 0; p < space.parameters.size(); ++p) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(space.parameters[p].name.c_str());
      ImGui::TableNextColumn();
      ImGui::TextWrapped("%s", space_value_texts_[p].c_str());
    }
    ImGui::EndTable();
  }
  if (tune_ && !tune_->tuner().measurements().empty()) {
    // The configs measured so far, fastest first (failed ones last), each parameter a column.
    std::vector<const Measurement*> measured;
    for (const Measurement& m : tune_->tuner().measurements()) measured.push_back(&m);
    std::stable_sort(measured.begin(), measured.end(), [](const Measurement* a, const Measurement* b) {
      return a->ok() != b->ok() ? a->ok() : a->ok() && a->seconds < b->seconds;
    });
    ImGui::Text("measured so far (%zu), fastest first", measured.size());
    const size_t shown = std::min<size_t>(space.parameters.size(), 60);  // ImGui tables hold 64 columns
    const int columns = static_cast<int>(shown) + 2;
    if (ImGui::BeginTable("measured", columns,
                          ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY,
                          ImVec2(0, 14 * ImGui::GetTextLineHeightWithSpacing()))) {
      ImGui::TableSetupColumn("config");
      ImGui::TableSetupColumn("runtime");
      for (size_t p = 0; p < shown; ++p) ImGui::TableSetupColumn(space.parameters[p].name.c_str());
      ImGui::TableSetupScrollFreeze(2, 1);
      ImGui::TableHeadersRow();
      for (const Measurement* m : measured) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%d", m->config);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(m->ok() ? format_duration(m->seconds).c_str() : "failed");
        const SpaceConfig& config = space.configs[static_cast<size_t>(m->config)];
        for (size_t p = 0; p < shown; ++p) {
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(space.parameters[p].values[static_cast<size_t>(config.value_index[p])].dump().c_str());
        }
      }
      ImGui::EndTable();
    }
  }
  ImGui::End();
}

}  // namespace graphcost::app
