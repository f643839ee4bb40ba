#include "data/dataset_survey.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <system_error>

#include "common/input_error.h"
#include "data/dataset_path.h"
#include "data/graph_summary.h"
#include "data/tpu_graph.h"

namespace graphcost {
namespace {

constexpr const char* kOutsideTree = "(outside tree)";

int collection_rank(const std::string& collection) {
  for (int i = 0; i < 5; ++i) {
    if (collection == kCollections[i]) return i;
  }
  return 5;
}

int split_rank(const std::string& split) { return split == "train" ? 0 : split == "valid" ? 1 : split == "test" ? 2 : 3; }

}  // namespace

std::vector<std::string> find_npz_files(const std::string& root) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    throw InputError(root, "", "a directory of .npz files", error ? error.message() : "not a directory");
  }
  std::vector<std::string> files;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error), end;
  for (; !error && it != end; it.increment(error)) {
    if (it->is_regular_file(error) && it->path().extension() == ".npz") files.push_back(it->path().string());
  }
  if (error) throw InputError(root, "", "a readable directory tree", error.message());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<SplitFile> find_split_files(const std::string& root, const std::string& split_list) {
  std::vector<SplitFile> files;
  std::map<std::string, std::string> path_of_id;
  for (const std::string& path : find_npz_files(root)) {
    const DatasetPath location = parse_dataset_path(path);
    if (!location.in_tree() || !split_in_list(location.split, split_list)) continue;
    check_id_stem(path, location);
    const auto [seen, inserted] = path_of_id.emplace(location.kaggle_id(), path);
    if (!inserted) {
      throw InputError(path, "Kaggle ID", "one file per ID",
                       "a second file for " + location.kaggle_id() + " (first: " + seen->second + ")");
    }
    files.push_back({path, location});
  }
  return files;
}

DatasetSurvey survey_dataset(const std::string& root, const SurveyProgress& progress) {
  DatasetSurvey survey;
  survey.root = root;
  const std::vector<std::string> files = find_npz_files(root);
  struct Group {
    SurveyRow row;
    std::vector<int64_t> nodes;
  };
  std::map<std::pair<std::string, std::string>, Group> groups;
  for (size_t i = 0; i < files.size(); ++i) {
    const DatasetPath location = parse_dataset_path(files[i]);
    const std::string collection = location.in_tree() ? location.collection : kOutsideTree;
    Group& group = groups[{collection, location.split}];
    group.row.collection = collection;
    group.row.split = location.split;
    ++group.row.files;
    try {
      const TpuGraph graph = load_tpu_graph(files[i]);
      group.nodes.push_back(graph.node_count);
      group.row.configs_total += graph.config_count;
      group.row.configs_max = std::max<int64_t>(group.row.configs_max, graph.config_count);
      ++(graph.runtimes_hidden ? group.row.hidden : group.row.labelled);
    } catch (const InputError& error) {
      ++group.row.failed;
      survey.errors.push_back({files[i], error.what()});
    }
    if (progress && !progress(i + 1, files.size(), files[i])) break;
  }
  for (auto& [key, group] : groups) {
    std::sort(group.nodes.begin(), group.nodes.end());
    if (!group.nodes.empty()) {
      group.row.nodes_min = group.nodes.front();
      group.row.nodes_max = group.nodes.back();
      group.row.nodes_median = group.nodes[(group.nodes.size() - 1) / 2];
    }
    survey.rows.push_back(group.row);
  }
  std::stable_sort(survey.rows.begin(), survey.rows.end(), [](const SurveyRow& a, const SurveyRow& b) {
    const int ca = collection_rank(a.collection), cb = collection_rank(b.collection);
    if (ca != cb) return ca < cb;
    return split_rank(a.split) < split_rank(b.split);
  });
  return survey;
}

std::string format_dataset_survey(const DatasetSurvey& survey) {
  std::string out = "dataset " + survey.root + "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-20s %-6s %6s %6s %9s %9s %9s %9s %11s %9s %7s\n", "collection", "split", "files", "failed",
                "labelled", "hidden", "min nodes", "median", "max nodes", "configs", "max cfg");
  out += line;
  for (const SurveyRow& row : survey.rows) {
    std::snprintf(line, sizeof line, "%-20s %-6s %6lld %6lld %9lld %9lld %9lld %9lld %11lld %9lld %7lld\n", row.collection.c_str(),
                  row.split.empty() ? "-" : row.split.c_str(), static_cast<long long>(row.files), static_cast<long long>(row.failed),
                  static_cast<long long>(row.labelled), static_cast<long long>(row.hidden), static_cast<long long>(row.nodes_min),
                  static_cast<long long>(row.nodes_median), static_cast<long long>(row.nodes_max),
                  static_cast<long long>(row.configs_total), static_cast<long long>(row.configs_max));
    out += line;
  }
  if (!survey.errors.empty()) {
    out += std::to_string(survey.errors.size()) + " file(s) failed the schema checks:\n";
    for (const SurveyError& error : survey.errors) out += "  " + printable(error.message) + "\n";
  }
  return out;
}

nlohmann::json dataset_survey_json(const DatasetSurvey& survey) {
  nlohmann::json rows = nlohmann::json::array();
  for (const SurveyRow& row : survey.rows) {
    rows.push_back({{"collection", row.collection},
                    {"split", row.split},
                    {"files", row.files},
                    {"failed", row.failed},
                    {"labelled", row.labelled},
                    {"hidden", row.hidden},
                    {"nodes_min", row.nodes_min},
                    {"nodes_median", row.nodes_median},
                    {"nodes_max", row.nodes_max},
                    {"configs_total", row.configs_total},
                    {"configs_max", row.configs_max}});
  }
  nlohmann::json errors = nlohmann::json::array();
  for (const SurveyError& error : survey.errors) errors.push_back({{"file", error.file}, {"error", error.message}});
  return {{"root", survey.root}, {"rows", rows}, {"errors", errors}};
}

}  // namespace graphcost
