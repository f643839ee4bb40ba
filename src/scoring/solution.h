// Solution: the hidden truth a submission is scored against. One entry per graph: its Kaggle ID,
// measured runtimes in config order, and whether it counts for the Public or the Private board.
//
// Solution file (CSV, written by `graphcost-eval make-solution`):
//   ID,Usage,Runtimes,Normalizers
//   tile:xla:<stem>,Public,5578;6788,6788;6788
//   layout:xla:default:<stem>,Private,23270598358;...,
// Runtimes and normalizers are integer nanoseconds joined by ';'; Normalizers is empty for layout
// rows. Tile metrics use runtime / normalizer.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "data/dataset_path.h"

namespace graphcost {

enum class Usage { Public, Private };
const char* usage_name(Usage usage);

struct SolutionEntry {
  std::string id;          // "tile:xla:<stem>" or "layout:<source>:<search>:<stem>"
  std::string collection;  // "tile:xla", "layout:xla:default", ...
  Usage usage = Usage::Public;
  std::vector<int64_t> runtime_ns;
  std::vector<int64_t> normalizer_ns;  // tile only

  bool is_tile() const { return collection_kind(collection) == GraphKind::Tile; }
  int32_t config_count() const { return static_cast<int32_t>(runtime_ns.size()); }
  // What the metrics rank: runtime / normalizer for tile, runtime for layout.
  std::vector<double> target_runtimes() const;
};

struct Solution {
  std::vector<SolutionEntry> entries;  // sorted by ID
  std::map<std::string, size_t> index_by_id;

  const SolutionEntry* find(const std::string& id) const;
  void rebuild_index();
};

// Builds a solution from the labelled files of `split` below `data_dir` (an npz tree; `split` may
// list several, "train,valid"). Usage comes
// from a seeded split stratified per collection: round(public_fraction * n) graphs of each
// collection are Public (at least one of each kind when n >= 2). Files with hidden runtimes are
// refused (InputError): a solution needs labels.
Solution solution_from_tree(const std::string& data_dir, const std::string& split, uint64_t seed, double public_fraction);

// Sets every entry's usage: a seeded split stratified per collection (see solution_from_tree).
void assign_usage(Solution& solution, uint64_t seed, double public_fraction);

void write_solution(const Solution& solution, const std::string& path);
std::string solution_csv(const Solution& solution);  // the file's text
// Throws InputError naming the line and field for a malformed solution file.
Solution read_solution(const std::string& path);
Solution parse_solution(const std::string& text, const std::string& name);  // `name` in errors

// The public ID list: "ID,Configs" rows, each graph's Kaggle ID and config count, no runtime and no
// Usage (the test files hold exactly this). What a submission is validated against in the browser.
std::string id_list_csv(const Solution& solution);
// A solution for validation only: the list's IDs and config counts, every runtime 0 and every
// graph Public. check_submission_text gives it the same errors as the real solution. Throws
// InputError naming the line and field; config counts above kMaxIdListConfigs are refused.
constexpr int64_t kMaxIdListConfigs = 10'000'000;
Solution parse_id_list(const std::string& text, const std::string& name);

}  // namespace graphcost
