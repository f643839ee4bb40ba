// SessionSearch: a RankingSession's model-guided search for a better layout config
// (app/ranking_session.h; model/config_explainer.h's GreedyLayoutSearch, 2 configs a unit). It owns
// the search from the best listed config, and says whether it beat every listed config and how.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "data/tpu_graph.h"
#include "model/config_explainer.h"
#include "model/layout_inference.h"

namespace graphcost {

class SessionSearch {
 public:
  // A new search from config `start` of `graph` (the best listed one, predicted `best_listed_cost`);
  // `inference` and `graph` must outlive it.
  void start(const LayoutInference& inference, const TpuGraph& graph, int32_t start, float best_listed_cost);
  void stop() { search_.reset(); }
  void step();  // one unit of a running search
  bool running() const { return search_ && !search_->done(); }
  const GreedyLayoutSearch* current() const { return search_.get(); }  // null when none was started (or stopped)
  // A finished search: did it beat every listed config, and one sentence on it ("" while it runs).
  bool found_better() const;
  std::string summary() const;

 private:
  std::unique_ptr<GreedyLayoutSearch> search_;
  float best_listed_cost_ = 0;
};

}  // namespace graphcost
