#include "sessions/model_shelf.h"

#include <algorithm>
#include <cctype>

namespace graphcost {

ShippedModel shipped_model_for(const TpuGraph& graph, const std::string& file) {
  if (graph.kind == GraphKind::Tile) return ShippedModel::Tile;
  if (graph.location.collection.rfind("layout:nlp:", 0) == 0) return ShippedModel::LayoutNlp;
  if (!graph.location.collection.empty()) return ShippedModel::LayoutXla;
  std::string name = file.empty() ? graph.source : file;
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (size_t at = name.find("nlp"); at != std::string::npos; at = name.find("nlp", at + 1)) {
    const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(name[at - 1]));
    const bool ends = at + 3 == name.size() || !std::isalnum(static_cast<unsigned char>(name[at + 3]));
    if (starts && ends) return ShippedModel::LayoutNlp;
  }
  return ShippedModel::LayoutXla;
}

std::string ModelShelf::path_for(ShippedModel which) const {
  return dir_ + (which == ShippedModel::Tile ? "/tile_xla.npz" : which == ShippedModel::LayoutNlp ? "/layout_nlp.npz" : "/layout_xla.npz");
}

std::shared_ptr<CostModel> ModelShelf::model_for(ShippedModel which) {
  std::shared_ptr<CostModel>& model = loaded_[static_cast<int>(which)];
  if (!model) model = std::make_shared<CostModel>(CostModel::load(path_for(which)));
  return model;
}

}  // namespace graphcost
