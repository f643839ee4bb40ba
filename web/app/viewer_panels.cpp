// Viewer's ImGui panels: open, view, inspector, ranking, explain/what-if/search, scatter.
#include <emscripten.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/units.h"
#include "data/node_features.h"
#include "data/opcodes.h"
#include "drawing/node_style.h"
#include "imgui.h"
#include "sessions/scatter_axes.h"
#include "viewer.h"

namespace graphcost::app {
namespace {}  // namespace

// Panels are docked in two columns that the graph never goes under (the graph area is what is
// left, Viewer::frame); a hidden column leaves only its edge button. Places in CSS pixels: top and
// height as fractions of the page's height.
bool Viewer::begin_docked(const char* name, bool left, float top, float height) {
  if (!(left ? left_open_ : right_open_)) return false;
  const float ratio = pixel_ratio_, page_height = static_cast<float>(canvas_height_);
  const float x = left ? 0.0f : static_cast<float>(canvas_width_) - kRightColumn * ratio;
  const float width = (left ? kLeftColumn : kRightColumn) * ratio;
  ImGui::SetNextWindowPos(ImVec2(x, top * page_height), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(width, height * page_height), ImGuiCond_Always);
  ImGui::Begin(name, nullptr, ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
  const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  panel_rects_.push_back({{"name", name}, {"x", at.x / ratio}, {"y", at.y / ratio}, {"width", size.x / ratio}, {"height", size.y / ratio}});
  return true;
}

// The buttons on the graph area's edges that hide or show a column (remembered by the page).
void Viewer::panel_edges() {
  const float ratio = pixel_ratio_;
  auto edge = [&](const char* id, bool left) {
    bool& open = left ? left_open_ : right_open_;
    const float x = left ? static_cast<float>(area_x_) : static_cast<float>(area_x_ + width_) - 26 * ratio;
    ImGui::SetNextWindowPos(ImVec2(x, static_cast<float>(canvas_height_) / 2), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.0f);
    ImGui::Begin(
        id, nullptr,
        ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings);
    if (ImGui::SmallButton(open == left ? "<" : ">")) {
      open = !open;
      EM_ASM(
          {
            try {
              localStorage.setItem("graphcost.panels", String($0));
            } catch (e) {
            }
          },
          (left_open_ ? 1 : 0) | (right_open_ ? 2 : 0));
      fit_view_pending_ = true;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip(open ? "hide these panels" : "show the panels");
    ImGui::End();
  };
  edge("##left-edge", true);
  edge("##right-edge", false);
}

void Viewer::banner_error() {
  if (error_.empty()) return;
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(viewport->Size.x / 2, 12 * pixel_ratio_), ImGuiCond_Always, ImVec2(0.5f, 0));
  ImGui::SetNextWindowSize(ImVec2(std::min(viewport->Size.x * 0.8f, 900 * pixel_ratio_), 0), ImGuiCond_Always);
  ImGui::PushStyleColor(ImGuiCol_WindowBg, IM_COL32(255, 232, 228, 250));
  ImGui::Begin("Could not open the file", nullptr, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove);
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(error_.c_str());
  ImGui::PopTextWrapPos();
  if (ImGui::Button("Dismiss")) error_.clear();
  ImGui::End();
  ImGui::PopStyleColor();
}

void Viewer::window_drawing_progress() {
  if (!pending_) return;
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(viewport->Size.x / 2, viewport->Size.y / 2), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(420 * pixel_ratio_, 0), ImGuiCond_Always);
  ImGui::Begin("Laying out", nullptr, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize);
  ImGui::Text("%s: %d nodes, %zu edges", pending_->file().c_str(), pending_->graph().node_count, pending_->graph().edges.size());
  const nlohmann::json loading = pending_->loading_state();
  const std::string stage = loading["stage"].get<std::string>() + (drawing_held_ ? " (held)" : "");
  ImGui::ProgressBar(loading["progress"].get<float>(), ImVec2(-1, 0), stage.c_str());
  if (ImGui::Button("Show it now")) {
    stop_drawing(true);
  } else {
    ImGui::SameLine();
    if (ImGui::Button("Cancel (Esc)")) stop_drawing(false);
  }
  ImGui::TextDisabled(graph_ ? "Cancel keeps the current graph; Show it now skips the remaining refinement."
                             : "Show it now skips the remaining refinement.");
  ImGui::End();
}

void Viewer::panel_open() {
  if (!begin_docked("Open", true, 0, 0.17f)) return;
  if (ImGui::Button("Open .npz or HLO text...")) {
    EM_ASM({
      if (Module.graphcostPickFile) Module.graphcostPickFile();
    });
  }
  ImGui::SameLine();
  ImGui::TextDisabled("or drop one on the page");
  if (!demos_.empty()) {
    ImGui::Text("Demo graphs (graphcost gen):");
    for (const auto& demo : demos_) {
      const std::string name = demo.value("name", "demo"), url = demo.value("url", "");
      if (ImGui::Selectable(name.c_str(), session_ && session_->file() == name)) {
        EM_ASM(
            {
              if (Module.graphcostFetch) Module.graphcostFetch(UTF8ToString($0), UTF8ToString($1));
            },
            url.c_str(), name.c_str());
      }
    }
  }
  if (graph_) {
    ImGui::Separator();
    ImGui::TextWrapped("%s", session_->file().c_str());
    ImGui::Text("%s graph: %d nodes, %zu edges, %d configs", graph_->kind == GraphKind::Tile ? "tile" : "layout", graph_->node_count,
                graph_->edges.size(), graph_->config_count);
    ImGui::Text("load %.0f ms, drawing %.0f ms (%d layers)", session_->load_ms(), session_->drawing().ms(), drawing().layer_count);
  }
  ImGui::End();
}

void Viewer::panel_view() {
  if (!begin_docked("View", true, 0.17f, 0.31f)) return;
  if (ImGui::Button("Fit (F)")) fit_view();
  ImGui::SameLine();
  ImGui::Checkbox("labels (L)", &show_labels_);
  ImGui::SameLine();
  ImGui::Checkbox("minimap (M)", &show_minimap_);
  bool all_nodes = !grouped_;
  if (ImGui::Checkbox("every node (S)", &all_nodes)) set_grouped(!all_nodes);
  ImGui::SameLine();
  ImGui::TextDisabled(grouped_ ? "boxes: click to open or close" : "the layered drawing of all nodes");
  if (grouped_ && box_edges_.size() < box_edges_total_) {
    ImGui::TextDisabled("edges: the %zu heaviest of %zu drawn", box_edges_.size(), box_edges_total_);
  }
  if (grouped_ && ImGui::Button("Close all boxes")) {
    const GraphHierarchy& boxes = session_->drawing().hierarchy();
    const std::vector<int32_t> open = boxes.frames();
    for (const int32_t frame : open) {
      if (boxes.cluster(frame).parent == 0) toggle_box(frame);
    }
    fit_view();
  }
  const char* names[] = {"opcode", "configurable nodes (C)", "section (node_splits)", "contribution (explain)", "compare two configs"};
  int colouring = static_cast<int>(colouring_);
  if (ImGui::Combo("colour by", &colouring, names, IM_ARRAYSIZE(names))) {
    colouring_ = static_cast<Colouring>(colouring);
    recolour();
  }
  if (colouring_ == Colouring::Section && graph_->node_splits.size() > 1) {
    ImGui::Text("%zu sections", graph_->node_splits.size() - 1);
    if (ImGui::BeginListBox("##sections", ImVec2(-1, 90 * pixel_ratio_))) {
      for (size_t s = 0; s + 1 < graph_->node_splits.size(); ++s) {
        const std::string label = "section " + std::to_string(s) + ": nodes " + std::to_string(graph_->node_splits[s]) + ".." +
                                  std::to_string(graph_->node_splits[s + 1] - 1);
        if (ImGui::Selectable(label.c_str()))
          camera_ = Camera::framing(session_->drawing().section_box(s), width_, height_, 0.9f, 2, camera_);
      }
      ImGui::EndListBox();
    }
  }
  if (ImGui::SliderInt("k-hop view", &k_hops_, 0, 6, k_hops_ == 0 ? "off" : "%d hops")) {
    update_neighbourhood();
    recolour();
  }
  if (focus_search_) {
    ImGui::SetKeyboardFocusHere();
    focus_search_ = false;
  }
  if (ImGui::InputTextWithHint("search (/)", graph_->names.empty() ? "node id or opcode" : "id, name, op_name prefix, opcode", search_text_,
                               sizeof search_text_, ImGuiInputTextFlags_EnterReturnsTrue) ||
      ImGui::IsItemEdited()) {
    search_results_ = session_->find_nodes(search_text_, 500);
  }
  if (!search_results_.empty()) {
    ImGui::Text("%zu match%s%s", search_results_.size(), search_results_.size() == 1 ? "" : "es",
                search_results_.size() == 500 ? " (first 500)" : "");
    if (ImGui::BeginListBox("##results", ImVec2(-1, 100 * pixel_ratio_))) {
      for (int32_t v : search_results_) {
        std::string label = std::to_string(v) + "  " + opcode_name(graph_->node_opcodes[static_cast<size_t>(v)]);
        if (!graph_->names.empty()) label += "  " + graph_->names.instructions[static_cast<size_t>(v)];
        if (ImGui::Selectable(label.c_str(), v == selected_node_)) {
          centre_on(v);
          camera_.scale = std::max(camera_.scale, 60.0f * pixel_ratio_);
        }
      }
      ImGui::EndListBox();
    }
  }
  ImGui::TextDisabled("drag: pan, wheel: zoom, click: inspect, Esc: clear");
  if (grouped_) cost_legend();
  ImGui::End();
}

// The colour key of the nested view, in the View panel (nothing floats over the graph): what the
// boxes' colours and percentages mean, or why there are none yet.
void Viewer::cost_legend() {
  ImGui::Separator();
  if (box_cost_.empty()) {
    ImGui::TextWrapped("%s",
                       session_->explainable()
                           ? (session_->explanation().running() ? "Explaining the model's pick: the boxes take its cost colours when done."
                                                                : "Boxes are coloured by cost once a config is explained (E).")
                           : "This graph's model has no per-node explanation: the boxes are not coloured by cost.");
    return;
  }
  if (explained_other_ >= 0) {
    ImGui::TextWrapped(
        "Colour and %%: each box's share of the predicted difference between configs %d and %d (each node "
        "switched alone); red: config %d slower there, blue: faster.",
        explained_config_, explained_other_, explained_config_);
  } else {
    ImGui::TextWrapped(
        "Colour and %%: each box's share of config %d's predicted cost, by occlusion (each node's layout reset "
        "to the most common one); red: slower, blue: faster.",
        explained_config_);
  }
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float bar_width = ImGui::GetContentRegionAvail().x, bar_height = ImGui::GetTextLineHeight() * 0.7f;
  const int steps = 40;
  for (int i = 0; i < steps; ++i) {
    uint8_t r, g, b;
    diverging_colour(-1 + 2 * (static_cast<float>(i) + 0.5f) / steps, r, g, b);
    const float x0 = at.x + bar_width * static_cast<float>(i) / steps, x1 = at.x + bar_width * static_cast<float>(i + 1) / steps;
    draw->AddRectFilled(ImVec2(x0, at.y), ImVec2(x1 + 0.5f, at.y + bar_height), IM_COL32(r, g, b, 255));
  }
  ImGui::Dummy(ImVec2(bar_width, bar_height));
  ImGui::TextUnformatted("-100%");
  ImGui::SameLine(bar_width / 2);
  ImGui::TextUnformatted("0");
  ImGui::SameLine(bar_width - ImGui::CalcTextSize("+100%").x);
  ImGui::TextUnformatted("+100%");
}

void Viewer::panel_inspector() {
  const bool tunable = !graph_->runtimes_hidden;  // the Tune panel takes the column's foot
  if (!begin_docked("Inspector", true, 0.48f, tunable ? 0.28f : 0.52f)) return;
  if (selected_node_ < 0 && grouped_ && selected_box_ > 0) {  // a box: what it holds and where its cost sits
    const HierarchyCluster& box = session_->drawing().hierarchy().cluster(selected_box_);
    ImGui::TextWrapped("%s: %d nodes%s", box.title.c_str(), box.node_count,
                       box_cost_text(selected_box_).empty() ? "" : (", " + box_cost_text(selected_box_)).c_str());
    const std::string& contents = session_->drawing().cluster_contents(selected_box_);
    if (!contents.empty()) ImGui::TextWrapped("most common: %s", contents.c_str());
    const std::vector<std::pair<int32_t, float>> costliest = costliest_in_box(selected_box_, 8);
    if (costliest.empty()) {
      ImGui::TextDisabled(box_cost_.empty() ? "Its costliest nodes show once a config is explained (E)."
                                            : "No node in it changes the explained config's cost.");
    } else {
      ImGui::TextWrapped("costliest nodes (%s):", explained_configs().c_str());
      for (const auto& [node, contribution] : costliest) {
        const std::string name = graph_->names.empty() ? opcode_name(graph_->node_opcodes[static_cast<size_t>(node)])
                                                       : graph_->names.instructions[static_cast<size_t>(node)];
        char label[200];
        std::snprintf(label, sizeof label, "%+.1f%%  %s (node %d)", 100 * contribution / std::max(1e-12, box_cost_total_), name.c_str(),
                      node);
        if (ImGui::Selectable(label)) centre_on(node);
      }
    }
    ImGui::TextDisabled("Click a node to see its features.");
    ImGui::End();
    return;
  }
  if (selected_node_ < 0) {
    ImGui::TextDisabled("Click a node or a box to see what it holds.");
    ImGui::End();
    return;
  }
  const size_t v = static_cast<size_t>(selected_node_);
  ImGui::Text("node %d: %s", selected_node_, opcode_name(graph_->node_opcodes[v]).c_str());
  if (!graph_->names.empty()) {  // imported HLO: where the node comes from
    ImGui::TextWrapped("%s in %s", graph_->names.instructions[v].c_str(), graph_->names.computation_of(selected_node_).c_str());
    if (!graph_->names.op_names[v].empty()) ImGui::TextWrapped("op_name %s", graph_->names.op_names[v].c_str());
  }
  const int32_t slot_index = session_->configurable_slot(selected_node_);
  const bool configurable = slot_index >= 0;
  if (configurable && selected_config_ >= 0 && !what_if_.empty()) {
    ImGui::Text("configurable: config %d's layout (edit = what-if)", selected_config_);
    bool edited = false;
    for (int k = 0; k < kLayoutConfigFeatureCount; ++k) {
      int value = what_if_[static_cast<size_t>(slot_index) * kLayoutConfigFeatureCount + static_cast<size_t>(k)];
      ImGui::PushID(k);
      ImGui::SetNextItemWidth(120 * pixel_ratio_);
      if (ImGui::SliderInt(layout_config_feature_name(k).c_str(), &value, -1, 5)) {
        what_if_[static_cast<size_t>(slot_index) * kLayoutConfigFeatureCount + static_cast<size_t>(k)] = static_cast<int8_t>(value);
        edited = true;
      }
      ImGui::PopID();
    }
    if (edited) update_what_if();
    const std::vector<float>& costs = session_->ranking().costs();
    ImGui::Text("what-if cost %.4f (config %d: %.4f), would rank %d of %zu", what_if_result_.cost, selected_config_,
                costs.empty() ? 0.0f : costs[static_cast<size_t>(selected_config_)], what_if_result_.rank + 1, costs.size() + 1);
    if (ImGui::Button("reset edits")) select_config(selected_config_);
  } else if (configurable) {
    ImGui::TextDisabled("configurable (rank the configs to edit its layout)");
  }
  if (ImGui::BeginTable("features", 2, ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders, ImVec2(0, 0))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("feature");
    ImGui::TableSetupColumn("value");
    ImGui::TableHeadersRow();
    for (int k = 0; k < kNodeFeatureCount; ++k) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(node_feature_name(k).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%g", graph_->node_feature(selected_node_, k));
    }
    if (graph_->kind == GraphKind::Tile && selected_config_ >= 0) {
      for (int k = 0; k < kTileConfigFeatureCount; ++k) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("config %d: %s", selected_config_, tile_config_feature_name(k).c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%g",
                    graph_->tile_config_features[static_cast<size_t>(selected_config_) * kTileConfigFeatureCount + static_cast<size_t>(k)]);
      }
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

void Viewer::panel_ranking() {
  if (!begin_docked("Ranking", false, 0, 0.42f)) return;
  ImGui::TextDisabled("model %s", session_->model_source().c_str());
  if (!session_->ranking().done()) {
    ImGui::ProgressBar(static_cast<float>(session_->ranking().progress()), ImVec2(-1, 0), "ranking configs...");
    ImGui::End();
    return;
  }
  const std::vector<float>& costs = session_->ranking().costs();
  const std::vector<int32_t>& order = session_->ranking().order();
  const RankingMetrics& metrics = session_->ranking().metrics();
  ImGui::Text("%zu configs ranked in %.0f ms", costs.size(), session_->ranking().ms());
  if (metrics.labelled) {
    if (graph_->kind == GraphKind::Tile) {
      ImGui::Text("tile score %.3f   top-5 slowdown %.3f", metrics.tile_score, metrics.top5_slowdown);
    } else {
      ImGui::Text("Kendall tau %.3f   top-5 slowdown %.3f", metrics.kendall_tau, metrics.top5_slowdown);
    }
    ImGui::Text("model's pick vs config 0: %.3fx faster (measured)", metrics.measured_speedup);
  }
  const RuntimeCalibration& calibration = session_->model().calibration();
  const SpeedupEstimate speedup = session_->ranking().predicted_speedup();
  if (speedup.supported) {
    ImGui::Text("model's pick vs config 0: %.3fx faster (predicted, 95%% interval %.3fx to %.3fx)", speedup.value, speedup.low,
                speedup.high);
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "exp(%.4g x cost difference): log runtime fitted on the predicted cost within %lld labelled graphs\n"
          "(%lld configs of %lld to %lld nodes, R^2 %.3f, residual sd %.3g); the interval is the residuals' spread",
          calibration.log_runtime_per_score, static_cast<long long>(calibration.graphs), static_cast<long long>(calibration.configs),
          static_cast<long long>(calibration.nodes_min), static_cast<long long>(calibration.nodes_max), calibration.r2,
          calibration.residual_sd);
    }
  } else {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("predicted speedup: none, because %s", speedup.reason.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::Checkbox("details: the model's raw costs", &show_raw_costs_);
  if (show_raw_costs_) {
    ImGui::TextDisabled("raw cost (model units, lower is faster): best %.4f, config 0 %.4f", costs[static_cast<size_t>(order.front())],
                        costs.front());
  }
  if (speedup.supported || metrics.labelled) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s%s", speedup.supported ? "predicted: runtime change from config 0, by the model. " : "",
                        metrics.labelled ? "measured: on a TPU; vs fastest: from the fastest measured config." : "");
    ImGui::PopTextWrapPos();
  }
  const std::vector<std::string> columns = ranking_columns();
  if (ImGui::BeginTable("configs", static_cast<int>(columns.size()),
                        ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders, ImVec2(0, 0))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const std::string& column : columns) {
      const bool narrow = column == "rank" || column == "config" || column == "true rank";
      ImGui::TableSetupColumn(column.c_str(), narrow ? ImGuiTableColumnFlags_WidthFixed : ImGuiTableColumnFlags_WidthStretch);
    }
    ImGui::TableHeadersRow();
    const bool predicted_change = speedup.supported;
    const double best_measured =
        metrics.labelled ? static_cast<double>(*std::min_element(graph_->config_runtime_ns.begin(), graph_->config_runtime_ns.end())) : 0;
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(order.size()));
    while (clipper.Step()) {
      for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
        const int32_t c = order[static_cast<size_t>(r)];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        const std::string label = std::to_string(r + 1);
        if (ImGui::Selectable(label.c_str(), c == selected_config_, ImGuiSelectableFlags_SpanAllColumns)) select_config(c);
        if (ImGui::BeginPopupContextItem()) {
          if (ImGui::MenuItem("compare with the selected config")) {
            compare_config_ = c;
            explain_selected(true);
          }
          ImGui::EndPopup();
        }
        ImGui::TableNextColumn();
        ImGui::Text("%d%s", c, c == compare_config_ ? " (compare)" : "");
        if (predicted_change) {
          ImGui::TableNextColumn();
          // Only where the calibration holds for this pair; "-" where it would extrapolate.
          const SpeedupEstimate row = calibration.estimate_speedup(costs.front(), costs[static_cast<size_t>(c)], graph_->node_count);
          ImGui::TextUnformatted(c == 0 ? "config 0" : row.supported ? format_change(1.0 / row.value).c_str() : "-");
          if (!row.supported && c != 0 && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", row.reason.c_str());
        }
        if (show_raw_costs_) {
          ImGui::TableNextColumn();
          ImGui::Text("%.4f", costs[static_cast<size_t>(c)]);
        }
        if (metrics.labelled) {
          const double runtime = static_cast<double>(graph_->config_runtime_ns[static_cast<size_t>(c)]);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(format_duration(runtime * 1e-9).c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(runtime == best_measured ? "fastest" : format_change(runtime / best_measured).c_str());
          ImGui::TableNextColumn();
          ImGui::Text("%d", session_->ranking().true_rank()[static_cast<size_t>(c)] + 1);
        }
      }
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

std::vector<std::string> Viewer::ranking_columns() const {
  std::vector<std::string> columns = {"rank", "config"};
  if (session_->ranking().predicted_speedup().supported) columns.push_back("predicted");
  if (show_raw_costs_) columns.push_back("raw cost");
  if (session_->ranking().metrics().labelled) {
    columns.push_back("measured");
    columns.push_back("vs fastest");
    columns.push_back("true rank");
  }
  return columns;
}

void Viewer::panel_explain() {
  const bool scatter_below = session_->ranking().done() && session_->ranking().metrics().labelled;
  if (!begin_docked("Explain and search", false, 0.42f, scatter_below ? 0.26f : 0.58f)) return;
  if (graph_->kind == GraphKind::Tile || (session_->ranking().done() && !session_->explainable())) {
    ImGui::TextWrapped("Explanations and search work on layout graphs (a tile config applies to the whole kernel).");
    ImGui::End();
    return;
  }
  if (!session_->ranking().done()) {
    ImGui::TextDisabled("waiting for the ranking...");
    ImGui::End();
    return;
  }
  ImGui::Text("selected config %d; compare with %d (right-click a row)", selected_config_, compare_config_);
  if (ImGui::Button("Explain selected (E)")) explain_selected();
  ImGui::SameLine();
  if (ImGui::Button("Compare")) explain_selected(true);
  if (session_->explanation().running())
    ImGui::ProgressBar(static_cast<float>(session_->progress().fraction), ImVec2(-1, 0), "occluding nodes...");
  if (explanation_shown_) {
    ImGui::TextWrapped("%s", session_->explanation().summary().c_str());
    for (const auto& [node, contribution] : session_->explanation().strongest(5)) {
      const std::string label = "node " + std::to_string(node) + " (" + opcode_name(graph_->node_opcodes[static_cast<size_t>(node)]) +
                                "): " + std::to_string(contribution);
      if (ImGui::Selectable(label.c_str())) centre_on(node);
    }
  }
  ImGui::Separator();
  if (ImGui::Button("Search for a better config (greedy)")) session_->start_search();
  if (const GreedyLayoutSearch* search = session_->search().current()) {
    if (!search->done()) {
      ImGui::ProgressBar(static_cast<float>(search->round_progress()), ImVec2(-1, 0),
                         ("round " + std::to_string(search->rounds() + 1)).c_str());
      if (ImGui::Button("stop")) session_->stop_search();
    } else {
      ImGui::TextWrapped("%s", session_->search().summary().c_str());
      if (session_->search().found_better() && ImGui::Button("load it into what-if")) {
        what_if_ = search->best();
        update_what_if();
      }
    }
  }
  ImGui::End();
}

ScatterAxes Viewer::scatter() const {
  return scatter_axes(session_->ranking().costs(), graph_->config_runtime_ns, session_->ranking().order(), session_->model().calibration(),
                      graph_->node_count, session_->ranking().metrics().kendall_tau, session_->ranking().metrics().top5_slowdown);
}

// Predicted against measured, with axes a person reads: the predicted runtime change from config 0
// (or the predicted rank, when the calibration cannot support runtimes) against the measured
// runtime on a log scale, round ticks with units, the ranking metrics as the title.
void Viewer::panel_scatter() {
  if (!session_->ranking().done() || !session_->ranking().metrics().labelled) return;
  if (!begin_docked("Predicted vs measured", false, 0.68f, 0.32f)) return;
  const ScatterAxes axes = scatter();
  ImGui::TextUnformatted(axes.title.c_str());
  const float line = ImGui::GetTextLineHeight();
  const ImVec2 top_left = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float y_label_width = ImGui::CalcTextSize("000.0 ms ").x;
  const float bottom_room = 2 * line + (axes.x_note.empty() ? 0 : line) + 4;
  const ImVec2 origin(top_left.x + y_label_width, top_left.y + 4);
  const ImVec2 size(std::max(40.0f, avail.x - y_label_width - 8), std::max(40.0f, avail.y - bottom_room - 4));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text), faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  draw->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), IM_COL32(255, 255, 255, 255));
  auto at = [&](float x, float y) { return ImVec2(origin.x + 4 + (size.x - 8) * x, origin.y + size.y - 4 - (size.y - 8) * y); };
  for (const AxisTick& tick : axes.y_ticks) {
    const ImVec2 p = at(0, tick.at);
    draw->AddLine(ImVec2(origin.x, p.y), ImVec2(origin.x + size.x, p.y), IM_COL32(225, 228, 235, 255));
    const ImVec2 text = ImGui::CalcTextSize(tick.label.c_str());
    draw->AddText(ImVec2(origin.x - text.x - 4, p.y - text.y / 2), ink, tick.label.c_str());
  }
  for (const AxisTick& tick : axes.x_ticks) {
    const ImVec2 p = at(tick.at, 0);
    draw->AddLine(ImVec2(p.x, origin.y), ImVec2(p.x, origin.y + size.y), IM_COL32(225, 228, 235, 255));
    const ImVec2 text = ImGui::CalcTextSize(tick.label.c_str());
    draw->AddText(ImVec2(p.x - text.x / 2, origin.y + size.y + 2), ink, tick.label.c_str());
  }
  const std::vector<bool> tuned = tune_ ? tune_->measured_configs() : std::vector<bool>();
  for (size_t c = 0; c < axes.x.size(); ++c) {
    draw->AddCircleFilled(at(axes.x[c], axes.y[c]), 2.0f * pixel_ratio_,
                          static_cast<int32_t>(c) == selected_config_ ? IM_COL32(220, 40, 30, 255) : IM_COL32(40, 90, 180, 150));
    if (c < tuned.size() && tuned[c])
      draw->AddCircle(at(axes.x[c], axes.y[c]), 4.0f * pixel_ratio_, IM_COL32(230, 140, 20, 255));  // measured by Tune
  }
  draw->AddRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), faint);
  ImGui::Dummy(ImVec2(size.x + y_label_width, size.y + line + 6));
  ImGui::TextDisabled("x: %s; y: %s", axes.x_label.c_str(), axes.y_label.c_str());
  if (!axes.x_note.empty()) ImGui::TextDisabled("%s", axes.x_note.c_str());
  ImGui::End();
}

}  // namespace graphcost::app
