// The shipped models the app ranks with (models/: tile_xla, layout_xla, layout_nlp), and which one
// ranks a graph.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "data/tpu_graph.h"
#include "model/cost_model.h"

namespace graphcost {

// Which shipped model ranks a graph: tile_xla.npz for tile kernels; for layout graphs
// layout_nlp.npz when the file is an NLP program (its collection in the dataset tree is
// layout:nlp:*, or its name says "nlp" as the dataset's folders and the app's demos do), else
// layout_xla.npz.
enum class ShippedModel { Tile, LayoutXla, LayoutNlp };
ShippedModel shipped_model_for(const TpuGraph& graph, const std::string& file);

// The shipped models (<dir>/tile_xla.npz, layout_xla.npz, layout_nlp.npz), each loaded on first
// use (InputError as CostModel::load).
class ModelShelf {
 public:
  explicit ModelShelf(std::string dir) : dir_(std::move(dir)) {}
  std::string path_for(ShippedModel which) const;
  std::shared_ptr<CostModel> model_for(ShippedModel which);

 private:
  std::string dir_;
  std::shared_ptr<CostModel> loaded_[3];
};

}  // namespace graphcost
