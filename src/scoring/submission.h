// Submission: a Kaggle-format CSV (`ID,TopConfigs`) parsed and validated against a Solution.
//
//   ID,TopConfigs
//   tile:xla:<stem>,3;0;7;1;2          <- 1..n distinct config indices; the first 5 count
//   layout:nlp:default:<stem>,5;2;...  <- a permutation of [0, c): every config exactly once
//
// Tolerated: a UTF-8 BOM, CRLF line ends, a final newline, a field wrapped in double quotes.
// Everything else is an error with its line, column (1-based, in bytes) and the offending token.
// Messages never contain solution values (runtimes); config counts are public (test files hold them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scoring/solution.h"

namespace graphcost {

struct SubmissionError {
  size_t line = 0;    // 0: the file as a whole (missing rows, unreadable file)
  size_t column = 0;  // 0: the whole line
  std::string message;
};

struct SubmissionCheck {
  // predicted_order[i]: the validated TopConfigs of solution.entries[i] (empty if missing/invalid).
  std::vector<std::vector<int32_t>> predicted_order;
  std::vector<SubmissionError> errors;  // the first kMaxListedErrors, in file order
  size_t error_count = 0;               // all errors, listed or not
  size_t rows = 0;                      // data rows read

  static constexpr size_t kMaxListedErrors = 20;
  bool valid() const { return error_count == 0; }
  // "line 3, column 18: ..." lines, then "... and N more errors".
  std::string format_errors(const std::string& file) const;
};

// Files larger than this are refused before reading (a full submission is ~5 MB).
constexpr uint64_t kMaxSubmissionBytes = 512ull << 20;

SubmissionCheck check_submission_text(const std::string& text, const Solution& solution);
SubmissionCheck check_submission_file(const std::string& path, const Solution& solution);

}  // namespace graphcost

namespace graphcost {

struct SubmissionRow {
  std::string id;
  std::vector<int32_t> predicted_order;  // all configs, predicted fastest first
};

// Writes `ID,TopConfigs` rows sorted by ID; tile rows keep their first 5 indices (what Kaggle
// scores), layout rows every index. Atomic: written to "<path>.partial", then renamed.
void write_submission_file(const std::string& path, std::vector<SubmissionRow> rows);

}  // namespace graphcost
