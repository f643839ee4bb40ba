#include "data/collection_files.h"

#include "data/dataset_path.h"
#include "data/dataset_survey.h"

namespace graphcost {

std::vector<std::string> collection_files(const std::string& data, const std::string& collection, const std::string& split) {
  std::vector<std::string> files;
  for (const std::string& path : find_npz_files(data)) {
    const DatasetPath location = parse_dataset_path(path);
    if (split_in_list(location.collection, collection) && split_in_list(location.split, split)) files.push_back(path);
  }
  return files;
}

std::vector<TpuGraph> load_collection(const std::string& data, const std::string& collection, const std::string& split) {
  std::vector<TpuGraph> graphs;
  for (const std::string& path : collection_files(data, collection, split)) graphs.push_back(load_tpu_graph(path));
  return graphs;
}

}  // namespace graphcost
