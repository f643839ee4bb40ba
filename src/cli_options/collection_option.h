// `collection_list_check`: a CLI11 check for --collection options (train, prepare, evaluate-model,
// calibrate): one collection, or a comma list of layout collections (one model for several searches).
#pragma once

#include <algorithm>
#include <string>

#include "data/dataset_path.h"

namespace graphcost {

// "" when `text` names one collection or a comma list of layout collections, else why not.
inline std::string collection_list_check(const std::string& text) {
  std::string kinds;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    bool known = false;
    for (const char* collection : kCollections) known = known || name == collection;
    for (const char* collection : kMeasuredCollections) known = known || name == collection;
    if (!known) {
      return "unknown collection '" + name +
             "' (tile:xla, layout:xla:random, layout:xla:default, layout:nlp:random, layout:nlp:default; measured here: tile:cpu, "
             "layout:cpu:random)";
    }
    kinds += collection_kind(name) == GraphKind::Tile ? "t" : "l";
    start = comma + 1;
  }
  if (kinds.find('t') != std::string::npos && kinds.size() > 1) return "a tile collection cannot be mixed with other collections";
  return "";
}

}  // namespace graphcost
