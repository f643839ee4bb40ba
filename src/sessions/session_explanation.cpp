#include "sessions/session_explanation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace graphcost {
namespace {

constexpr size_t kExplainChunk = 2;  // configs per explanation unit

}  // namespace

SessionExplanation::~SessionExplanation() = default;

double SessionExplanation::progress() const { return job_ ? job_->progress() : 1.0; }

void SessionExplanation::forget() {
  explained_ = explained_compare_ = false;
  explained_config_ = explained_other_ = -1;
  contributions_ = NodeContributions();
  node_contribution_.clear();
}

void SessionExplanation::explain(const LayoutInference& inference, int32_t config) {
  forget();
  job_compare_ = false;
  job_config_ = config;
  job_other_ = -1;
  job_ = std::make_unique<ContributionJob>(inference, layout_config_values(graph_, config));
}

void SessionExplanation::compare(const LayoutInference& inference, int32_t config, int32_t other) {
  forget();
  job_compare_ = true;
  job_config_ = config;
  job_other_ = other;
  job_ = std::make_unique<ContributionJob>(inference, layout_config_values(graph_, config), layout_config_values(graph_, other));
}

void SessionExplanation::step() {
  job_->step(kExplainChunk);
  if (!job_->done()) return;
  contributions_ = job_->result();
  job_.reset();
  node_contribution_.assign(static_cast<size_t>(graph_.node_count), 0.0f);
  for (size_t i = 0; i < contributions_.slots.size(); ++i) {
    const int32_t node = graph_.configurable_nodes[static_cast<size_t>(contributions_.slots[i])];
    node_contribution_[static_cast<size_t>(node)] = contributions_.contribution[i];
  }
  explained_ = true;
  explained_compare_ = job_compare_;
  explained_config_ = job_config_;
  explained_other_ = job_other_;
}

std::string SessionExplanation::summary() const {
  if (!explained_) return "";
  char text[256];
  if (explained_compare_) {
    std::snprintf(text, sizeof text, "config %d -> %d: predicted %+.4f; %zu nodes differ (red: taking config %d's layout there costs more)",
                  explained_config_, explained_other_, contributions_.other_cost - contributions_.reference_cost,
                  contributions_.slots.size(), explained_other_);
  } else {
    std::snprintf(text, sizeof text,
                  "config %d: %zu nodes differ from the most common layout; red nodes add predicted cost, blue ones save it",
                  explained_config_, contributions_.slots.size());
  }
  return text;
}

std::vector<std::pair<int32_t, float>> SessionExplanation::strongest(size_t count) const {
  std::vector<size_t> index(contributions_.slots.size());
  std::iota(index.begin(), index.end(), 0);
  std::sort(index.begin(), index.end(),
            [&](size_t a, size_t b) { return std::fabs(contributions_.contribution[a]) > std::fabs(contributions_.contribution[b]); });
  std::vector<std::pair<int32_t, float>> strongest;
  for (size_t i = 0; i < std::min(count, index.size()); ++i) {
    strongest.emplace_back(graph_.configurable_nodes[static_cast<size_t>(contributions_.slots[index[i]])],
                           contributions_.contribution[index[i]]);
  }
  return strongest;
}

}  // namespace graphcost
