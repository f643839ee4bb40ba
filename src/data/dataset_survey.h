// DatasetSurvey: `graphcost info DIR` — every .npz below a directory loaded and checked, summarised
// as one row per (collection, split). Files that fail the schema are listed with their error.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/dataset_path.h"

namespace graphcost {

struct SurveyRow {
  std::string collection;  // "(outside tree)" for files not in the official layout
  std::string split;
  int64_t files = 0, failed = 0, labelled = 0, hidden = 0;
  int64_t nodes_min = 0, nodes_median = 0, nodes_max = 0;
  int64_t configs_total = 0, configs_max = 0;
};

struct SurveyError {
  std::string file;
  std::string message;
};

struct DatasetSurvey {
  std::string root;
  std::vector<SurveyRow> rows;  // collections in competition order, then splits train/valid/test
  std::vector<SurveyError> errors;
};

// Every *.npz below `root`, sorted. Throws InputError if `root` is not a readable directory.
std::vector<std::string> find_npz_files(const std::string& root);

// The files of the official tree below `root` whose split is in `split_list` ("test",
// "train,valid"), each with its place in the tree. Their Kaggle IDs are checked: usable in CSV
// (check_id_stem) and unique; otherwise InputError names the file.
struct SplitFile {
  std::string path;
  DatasetPath location;
};
std::vector<SplitFile> find_split_files(const std::string& root, const std::string& split_list);

// Called after each file; return false to stop early (the survey then covers the files done).
using SurveyProgress = std::function<bool(size_t done, size_t total, const std::string& file)>;

DatasetSurvey survey_dataset(const std::string& root, const SurveyProgress& progress = nullptr);
std::string format_dataset_survey(const DatasetSurvey& survey);
nlohmann::json dataset_survey_json(const DatasetSurvey& survey);

}  // namespace graphcost
