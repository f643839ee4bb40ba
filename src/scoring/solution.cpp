#include "scoring/solution.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "data/dataset_path.h"
#include "data/dataset_survey.h"
#include "data/tpu_graph.h"
#include "io/byte_source.h"

namespace graphcost {
namespace {

std::string join(const std::vector<int64_t>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ';';
    out += std::to_string(values[i]);
  }
  return out;
}

std::vector<int64_t> parse_integers(std::string_view text, const std::string& path, size_t line, const char* field) {
  std::vector<int64_t> values;
  if (text.empty()) return values;
  values.reserve(text.size() / 8 + 1);
  const char* p = text.data();
  const char* end = p + text.size();
  for (;;) {
    const char* token_end = static_cast<const char*>(std::memchr(p, ';', static_cast<size_t>(end - p)));
    if (token_end == nullptr) token_end = end;
    int64_t value = 0;
    const auto [stop, error] = std::from_chars(p, token_end, value);
    if (error != std::errc() || stop != token_end || value <= 0) {
      throw InputError(path, "line " + std::to_string(line) + ", " + field, "positive integers joined by ';'",
                       "'" + std::string(p, static_cast<size_t>(std::min<ptrdiff_t>(token_end - p, 40))) + "'");
    }
    values.push_back(value);
    if (token_end == end) break;
    p = token_end + 1;
  }
  return values;
}

std::string collection_of(const std::string& id) {
  const size_t last = id.rfind(':');
  return last == std::string::npos ? "" : id.substr(0, last);
}

}  // namespace

const char* usage_name(Usage usage) { return usage == Usage::Public ? "Public" : "Private"; }

std::vector<double> SolutionEntry::target_runtimes() const {
  std::vector<double> values(runtime_ns.size());
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<double>(runtime_ns[i]);
    if (is_tile()) values[i] /= static_cast<double>(normalizer_ns[i]);
  }
  return values;
}

const SolutionEntry* Solution::find(const std::string& id) const {
  const auto it = index_by_id.find(id);
  return it == index_by_id.end() ? nullptr : &entries[it->second];
}

void Solution::rebuild_index() {
  std::sort(entries.begin(), entries.end(), [](const SolutionEntry& a, const SolutionEntry& b) { return a.id < b.id; });
  index_by_id.clear();
  for (size_t i = 0; i < entries.size(); ++i) index_by_id[entries[i].id] = i;
}

Solution solution_from_tree(const std::string& data_dir, const std::string& split, uint64_t seed, double public_fraction) {
  Solution solution;
  for (const auto& [path, location] : find_split_files(data_dir, split)) {
    const TpuGraph graph = load_tpu_graph(path);
    if (graph.runtimes_hidden) {
      throw InputError(path, "config_runtime", "measured runtimes (a labelled split)",
                       "hidden runtimes (all zero): use a labelled split such as 'valid'");
    }
    bool scored = false;  // the competition's five collections; a measured one (layout:cpu:random) is not
    for (const char* collection : kCollections) scored = scored || location.collection == collection;
    if (!scored) {
      throw InputError(path, "collection", "one of the 5 TpuGraphs collections a competition scores (tile:xla, layout:xla:random, ...)",
                       location.collection + " (graphcost evaluate-model scores a model on it)");
    }
    SolutionEntry entry;
    entry.id = location.kaggle_id();
    entry.collection = location.collection;
    entry.runtime_ns = graph.config_runtime_ns;
    entry.normalizer_ns = graph.config_runtime_normalizers_ns;
    solution.entries.push_back(std::move(entry));
  }
  solution.rebuild_index();
  if (solution.entries.empty()) {
    throw InputError(data_dir, "split '" + split + "'", "labelled .npz files in the TpuGraphs tree", "none found");
  }
  assign_usage(solution, seed, public_fraction);
  return solution;
}

void assign_usage(Solution& solution, uint64_t seed, double public_fraction) {
  // Stratified, seeded Public/Private assignment. Fisher-Yates with mt19937_64 (whose output the
  // standard fixes), not std::shuffle (implementation-defined), so every platform agrees.
  std::mt19937_64 random(seed);
  for (const char* collection : kCollections) {
    std::vector<size_t> members;
    for (size_t i = 0; i < solution.entries.size(); ++i) {
      if (solution.entries[i].collection == collection) members.push_back(i);
    }
    for (size_t i = members.size(); i > 1; --i) std::swap(members[i - 1], members[random() % i]);
    const size_t n = members.size();
    size_t public_count = static_cast<size_t>(std::llround(public_fraction * static_cast<double>(n)));
    if (n >= 2 && public_fraction > 0 && public_count == 0) public_count = 1;
    if (n >= 2 && public_fraction < 1 && public_count == n) public_count = n - 1;
    for (size_t k = 0; k < n; ++k) solution.entries[members[k]].usage = k < public_count ? Usage::Public : Usage::Private;
  }
}

std::string solution_csv(const Solution& solution) {
  std::string text = "ID,Usage,Runtimes,Normalizers\n";
  for (const SolutionEntry& entry : solution.entries) {
    text += entry.id + ',' + usage_name(entry.usage) + ',' + join(entry.runtime_ns) + ',' + join(entry.normalizer_ns) + '\n';
  }
  return text;
}

void write_solution(const Solution& solution, const std::string& path) { write_file_atomically(path, solution_csv(solution)); }

Solution read_solution(const std::string& path) {
  // Through ByteSource: a regular file only (a FIFO would block; common/byte_source.h).
  const ByteSource source = ByteSource::open_file(path);
  std::string bytes(static_cast<size_t>(source.size()), '\0');
  source.read(0, bytes.size(), reinterpret_cast<uint8_t*>(bytes.data()), "solution");
  return parse_solution(bytes, path);
}

namespace {

// Checks `text`'s header line, then calls `row(line, number)` for each non-empty line after it
// (1-based numbers, CR of CRLF ends dropped). The solution file and the public ID list share it.
void for_each_csv_row(const std::string& text, const std::string& name, const std::string& header,
                      const std::function<void(const std::string&, size_t)>& row) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || (line != header && line != header + "\r")) {
    throw InputError(name, "line 1", "the header '" + header + "'", "'" + line.substr(0, 60) + "'");
  }
  size_t number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) row(line, number);
  }
}

}  // namespace

Solution parse_solution(const std::string& bytes, const std::string& path) {
  Solution solution;
  for_each_csv_row(bytes, path, "ID,Usage,Runtimes,Normalizers", [&](const std::string& line, size_t number) {
    std::vector<std::string_view> fields;
    size_t field_start = 0;
    for (;;) {
      const size_t comma = line.find(',', field_start);
      fields.emplace_back(line.data() + field_start, (comma == std::string::npos ? line.size() : comma) - field_start);
      if (comma == std::string::npos) break;
      field_start = comma + 1;
    }
    if (fields.size() != 4) {
      throw InputError(path, "line " + std::to_string(number), "4 fields", std::to_string(fields.size()));
    }
    SolutionEntry entry;
    entry.id = std::string(fields[0]);
    entry.collection = collection_of(entry.id);
    if (fields[1] != "Public" && fields[1] != "Private") {
      throw InputError(path, "line " + std::to_string(number) + ", Usage", "Public or Private", "'" + std::string(fields[1]) + "'");
    }
    entry.usage = fields[1] == "Public" ? Usage::Public : Usage::Private;
    entry.runtime_ns = parse_integers(fields[2], path, number, "Runtimes");
    entry.normalizer_ns = parse_integers(fields[3], path, number, "Normalizers");
    bool known = false;
    for (const char* collection : kCollections) known = known || entry.collection == collection;
    if (!known)
      throw InputError(path, "line " + std::to_string(number) + ", ID", "an ID of one of the 5 collections", "'" + entry.id + "'");
    if (entry.runtime_ns.empty()) throw InputError(path, "line " + std::to_string(number) + ", Runtimes", "at least one runtime", "none");
    if (entry.is_tile() != !entry.normalizer_ns.empty() || (entry.is_tile() && entry.normalizer_ns.size() != entry.runtime_ns.size())) {
      throw InputError(path, "line " + std::to_string(number) + ", Normalizers",
                       entry.is_tile() ? "one normalizer per runtime" : "none for a layout row",
                       std::to_string(entry.normalizer_ns.size()) + " values");
    }
    if (solution.index_by_id.count(entry.id))
      throw InputError(path, "line " + std::to_string(number) + ", ID", "unique IDs", "'" + entry.id + "' again");
    solution.index_by_id[entry.id] = solution.entries.size();
    solution.entries.push_back(std::move(entry));
  });
  solution.rebuild_index();
  return solution;
}

std::string id_list_csv(const Solution& solution) {
  std::string text = "ID,Configs\n";
  for (const SolutionEntry& entry : solution.entries) text += entry.id + "," + std::to_string(entry.config_count()) + "\n";
  return text;
}

Solution parse_id_list(const std::string& text, const std::string& name) {
  Solution solution;
  for_each_csv_row(text, name, "ID,Configs", [&](const std::string& line, size_t number) {
    const size_t comma = line.find(',');
    const std::string where = "line " + std::to_string(number);
    if (comma == std::string::npos || line.find(',', comma + 1) != std::string::npos) {
      throw InputError(name, where, "2 fields (ID,Configs)", "'" + line.substr(0, 80) + "'");
    }
    SolutionEntry entry;
    entry.id = line.substr(0, comma);
    entry.collection = collection_of(entry.id);
    bool known = false;
    for (const char* collection : kCollections) known = known || entry.collection == collection;
    if (!known) throw InputError(name, where + ", ID", "an ID of one of the 5 collections", "'" + entry.id.substr(0, 80) + "'");
    const std::string count_text = line.substr(comma + 1);
    int64_t count = 0;
    const bool digits = !count_text.empty() && count_text.size() <= 9 &&
                        std::all_of(count_text.begin(), count_text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits) count = std::stoll(count_text);
    if (!digits || count < 1 || count > kMaxIdListConfigs) {
      throw InputError(name, where + ", Configs", "a config count from 1 to " + std::to_string(kMaxIdListConfigs),
                       "'" + count_text.substr(0, 20) + "'");
    }
    entry.runtime_ns.assign(static_cast<size_t>(count), 0);
    if (entry.is_tile()) entry.normalizer_ns.assign(static_cast<size_t>(count), 1);
    if (solution.index_by_id.count(entry.id)) throw InputError(name, where + ", ID", "unique IDs", "'" + entry.id + "' again");
    solution.index_by_id[entry.id] = solution.entries.size();
    solution.entries.push_back(std::move(entry));
  });
  solution.rebuild_index();
  return solution;
}

}  // namespace graphcost
