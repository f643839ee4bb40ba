#include "scoring/submission.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <unordered_map>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "data/dataset_path.h"
#include "io/byte_source.h"

namespace graphcost {
namespace {

// A token as shown in messages: printable ASCII kept, everything else escaped, long ones cut.
std::string show(const char* data, size_t size) {
  constexpr size_t kShown = 100;
  std::string out = "'";
  for (size_t i = 0; i < size && i < kShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(data[i]);
    if (c >= 0x20 && c < 0x7f && c != '\'') {
      out += static_cast<char>(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    }
  }
  out += "'";
  if (size > kShown) out += " (" + std::to_string(size) + " bytes)";
  return out;
}

// Length of the valid UTF-8 sequence at `p` (1-4), or 0 if invalid.
size_t utf8_sequence(const unsigned char* p, size_t left) {
  const unsigned char c = p[0];
  size_t length;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) length = 2;
  else if (c >= 0xe0 && c <= 0xef) length = 3;
  else if (c >= 0xf0 && c <= 0xf4) length = 4;
  else return 0;
  if (length > left) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((p[i] & 0xc0) != 0x80) return 0;
  }
  if (c == 0xe0 && p[1] < 0xa0) return 0;  // overlong
  if (c == 0xed && p[1] > 0x9f) return 0;  // surrogates
  if (c == 0xf0 && p[1] < 0x90) return 0;  // overlong
  if (c == 0xf4 && p[1] > 0x8f) return 0;  // beyond U+10FFFF
  return length;
}

class Checker {
 public:
  Checker(const Solution& solution) : solution_(solution) {
    check_.predicted_order.resize(solution.entries.size());
    first_line_.assign(solution.entries.size(), 0);
  }

  void error(size_t line, size_t column, std::string message) {
    ++check_.error_count;
    if (check_.errors.size() < SubmissionCheck::kMaxListedErrors) {
      check_.errors.push_back({line, column, std::move(message)});
    }
  }

  // Rejects NUL bytes and invalid UTF-8 anywhere in the line; returns false if any was found.
  bool check_bytes(const char* line, size_t size, size_t number) {
    const auto* p = reinterpret_cast<const unsigned char*>(line);
    for (size_t i = 0; i < size;) {
      if (p[i] == 0) {
        error(number, i + 1, "NUL byte in the line");
        return false;
      }
      const size_t length = utf8_sequence(p + i, size - i);
      if (length == 0) {
        char byte[8];
        std::snprintf(byte, sizeof byte, "0x%02x", p[i]);
        error(number, i + 1, std::string("invalid UTF-8 byte ") + byte);
        return false;
      }
      i += length;
    }
    return true;
  }

  void header(const char* line, size_t size) {
    const std::string expected = "ID,TopConfigs";
    if (!check_bytes(line, size, 1)) return;
    if (std::string(line, size) != expected && std::string(line, size) != "\"ID\",\"TopConfigs\"") {
      error(1, 1, "expected the header 'ID,TopConfigs', got " + show(line, size));
    }
  }

  void row(const char* line, size_t size, size_t number) {
    ++check_.rows;
    if (size == 0) {
      error(number, 1, "empty line (expected 'ID,TopConfigs')");
      return;
    }
    if (!check_bytes(line, size, number)) return;
    const char* comma = static_cast<const char*>(std::memchr(line, ',', size));
    if (comma == nullptr) {
      error(number, size + 1, "expected 2 fields 'ID,TopConfigs', found no ',' in " + show(line, size));
      return;
    }
    const char* extra = static_cast<const char*>(std::memchr(comma + 1, ',', size - (comma + 1 - line)));
    if (extra != nullptr) {
      error(number, static_cast<size_t>(extra - line) + 1, "expected 2 fields 'ID,TopConfigs', found a third after ','");
      return;
    }
    size_t id_start = 0, id_size = static_cast<size_t>(comma - line);
    size_t configs_start = id_size + 1, configs_size = size - configs_start;
    unquote(line, id_start, id_size);
    unquote(line, configs_start, configs_size);
    const std::string id(line + id_start, id_size);
    const auto found = solution_.index_by_id.find(id);
    if (found == solution_.index_by_id.end()) {
      error(number, id_start + 1, "unknown ID " + show(line + id_start, id_size));
      return;
    }
    const size_t entry_index = found->second;
    if (first_line_[entry_index] != 0) {
      error(number, id_start + 1,
            "duplicate ID " + show(line + id_start, id_size) + " (first on line " + std::to_string(first_line_[entry_index]) + ")");
      return;
    }
    first_line_[entry_index] = number;
    const SolutionEntry& entry = solution_.entries[entry_index];
    std::vector<int32_t> order;
    if (parse_configs(line, configs_start, configs_size, number, entry, order)) {
      check_.predicted_order[entry_index] = std::move(order);
    }
  }

  void missing_ids() {
    size_t missing = 0;
    std::string first;
    for (size_t i = 0; i < solution_.entries.size(); ++i) {
      if (first_line_[i] != 0) continue;
      if (missing < 3) first += (missing ? ", " : "") + show(solution_.entries[i].id.data(), solution_.entries[i].id.size());
      ++missing;
    }
    if (missing > 0) {
      error(0, 0,
            "missing " + std::to_string(missing) + " of " + std::to_string(solution_.entries.size()) + " IDs (no row), e.g. " + first +
                (missing > 3 ? ", ..." : ""));
    }
  }

  SubmissionCheck take() {
    // Rows of a submission with errors are not scored.
    if (check_.error_count > 0) {
      for (auto& order : check_.predicted_order) order.clear();
    }
    return std::move(check_);
  }

 private:
  static void unquote(const char* line, size_t& start, size_t& size) {
    if (size >= 2 && line[start] == '"' && line[start + size - 1] == '"') {
      ++start;
      size -= 2;
    }
  }

  bool parse_configs(const char* line, size_t start, size_t size, size_t number, const SolutionEntry& entry, std::vector<int32_t>& order) {
    const int64_t n = entry.config_count();
    const bool tile = entry.is_tile();
    const size_t errors_before = check_.error_count;
    if (size == 0) {
      error(number, start + 1, "TopConfigs is empty: expected config indices joined by ';'");
      return false;
    }
    std::vector<uint8_t> seen(static_cast<size_t>(n), 0);
    size_t token_start = start;
    const size_t end = start + size;
    int row_errors = 0;
    auto token_error = [&](size_t column, const std::string& message) {
      // At most 3 messages per row: one broken row should not hide the rest of the file.
      if (++row_errors <= 3) error(number, column, message);
      else ++check_.error_count;
    };
    while (token_start <= end) {
      size_t token_end = token_start;
      while (token_end < end && line[token_end] != ';') ++token_end;
      const char* token = line + token_start;
      const size_t token_size = token_end - token_start;
      const size_t column = token_start + 1;
      int64_t value = 0;
      bool numeric = token_size > 0 && token_size <= 18;
      for (size_t i = 0; numeric && i < token_size; ++i) {
        if (token[i] < '0' || token[i] > '9') numeric = false;
        else value = value * 10 + (token[i] - '0');
      }
      if (token_size == 0) {
        token_error(column, "empty config index (expected digits between ';')");
      } else if (!numeric) {
        const bool negative = token[0] == '-';
        token_error(column,
                    (negative ? "negative config index " : "config index is not a non-negative integer: ") + show(token, token_size));
      } else if (value >= n) {
        token_error(column, "config index " + show(token, token_size) + " out of range [0, " + std::to_string(n) + ")");
      } else if (seen[static_cast<size_t>(value)]) {
        token_error(column, "config index " + show(token, token_size) + " listed twice");
      } else {
        seen[static_cast<size_t>(value)] = 1;
        order.push_back(static_cast<int32_t>(value));
      }
      token_start = token_end + 1;
    }
    if (check_.error_count != errors_before) return false;
    if (!tile && static_cast<int64_t>(order.size()) != n) {
      std::string missing;
      int shown = 0;
      for (int64_t i = 0; i < n && shown < 5; ++i) {
        if (!seen[static_cast<size_t>(i)]) missing += (shown++ ? ", " : "") + std::to_string(i);
      }
      error(number, start + 1,
            "layout rows must list every config once: " + std::to_string(order.size()) + " of " + std::to_string(n) + " listed; missing " +
                missing + (n - static_cast<int64_t>(order.size()) > 5 ? ", ..." : ""));
      return false;
    }
    return true;
  }

  const Solution& solution_;
  SubmissionCheck check_;
  std::vector<size_t> first_line_;
};

}  // namespace

std::string SubmissionCheck::format_errors(const std::string& file) const {
  std::string out;
  for (const SubmissionError& e : errors) {
    out += file;
    if (e.line > 0) out += ":" + std::to_string(e.line);
    if (e.column > 0) out += ":" + std::to_string(e.column);
    out += ": " + e.message + "\n";
  }
  if (error_count > errors.size()) out += "... and " + std::to_string(error_count - errors.size()) + " more errors\n";
  return out;
}

SubmissionCheck check_submission_text(const std::string& text, const Solution& solution) {
  Checker checker(solution);
  size_t position = 0;
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) position = 3;  // UTF-8 BOM
  if (position >= text.size()) {
    checker.error(0, 0, "the file is empty (expected the header 'ID,TopConfigs' and one row per ID)");
    return checker.take();
  }
  // Trailing line ends (one final newline, or a few blank lines) carry nothing: ignore them.
  size_t text_end = text.size();
  while (text_end > position && (text[text_end - 1] == '\n' || text[text_end - 1] == '\r')) --text_end;
  size_t number = 0;
  while (position < text_end) {
    size_t end = text.find('\n', position);
    if (end == std::string::npos || end > text_end) end = text_end;
    size_t size = end - position;
    if (size > 0 && text[position + size - 1] == '\r') --size;
    ++number;
    if (number == 1) checker.header(text.data() + position, size);
    else checker.row(text.data() + position, size, number);
    position = end + 1;
  }
  checker.missing_ids();
  return checker.take();
}

SubmissionCheck check_submission_file(const std::string& path, const Solution& solution) {
  auto refused = [](std::string message) {
    SubmissionCheck check;
    check.errors.push_back({0, 0, std::move(message)});
    check.error_count = 1;
    return check;
  };
  std::string text;
  try {
    // A regular file only: a FIFO would block, a directory has no bytes (common/byte_source.h).
    const ByteSource source = ByteSource::open_file(path);
    if (source.size() > kMaxSubmissionBytes) {
      return refused("file of " + std::to_string(source.size()) + " bytes exceeds the " + std::to_string(kMaxSubmissionBytes >> 20) +
                     " MiB limit");
    }
    text.resize(static_cast<size_t>(source.size()));
    source.read(0, text.size(), reinterpret_cast<uint8_t*>(text.data()), "submission");
  } catch (const InputError& error) {
    return refused("cannot read the file: expected " + error.expected() + ", got " + error.actual());
  }
  return check_submission_text(text, solution);
}

}  // namespace graphcost

namespace graphcost {

void write_submission_file(const std::string& path, std::vector<SubmissionRow> rows) {
  std::sort(rows.begin(), rows.end(), [](const SubmissionRow& a, const SubmissionRow& b) { return a.id < b.id; });
  std::string text = "ID,TopConfigs\n";
  for (const SubmissionRow& row : rows) {
    const bool tile = collection_kind(row.id) == GraphKind::Tile;
    const size_t count = tile ? std::min<size_t>(5, row.predicted_order.size()) : row.predicted_order.size();
    text += row.id + ',';
    for (size_t i = 0; i < count; ++i) {
      if (i > 0) text += ';';
      text += std::to_string(row.predicted_order[i]);
    }
    text += '\n';
  }
  write_file_atomically(path, text);
}

}  // namespace graphcost
