#include "sessions/session_search.h"

#include <cstdio>

namespace graphcost {
namespace {

constexpr size_t kSearchChunk = 2;  // configs per search unit

}  // namespace

void SessionSearch::start(const LayoutInference& inference, const TpuGraph& graph, int32_t start, float best_listed_cost) {
  best_listed_cost_ = best_listed_cost;
  search_ = std::make_unique<GreedyLayoutSearch>(inference, graph, layout_config_values(graph, start));
}

void SessionSearch::step() { search_->step(kSearchChunk); }

bool SessionSearch::found_better() const { return search_ && search_->done() && search_->best_cost() < best_listed_cost_; }

std::string SessionSearch::summary() const {
  if (!search_ || !search_->done()) return "";
  char text[256];
  std::snprintf(text, sizeof text, "%s: predicted %.4f vs best listed %.4f (%d nodes changed, %d rounds)",
                found_better() ? "found a config the model rates better than every listed one" : "no better config found",
                search_->best_cost(), best_listed_cost_, search_->changed_nodes(), search_->rounds());
  return text;
}

}  // namespace graphcost
