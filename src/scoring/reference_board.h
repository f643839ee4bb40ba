// A reference board: scores the organiser measured elsewhere, shown beside a competition's
// standings (the demo shows the shipped models' and the baselines' scores on the real labelled
// TpuGraphs files beside a board whose test split is simulated). `graphcost-eval competition
// about --reference FILE.json` stores one; the leaderboard JSON carries it as "reference".
//
//   {"title": "Scores on the real labelled TpuGraphs files",
//    "measures": "what the scores measure and on which data",
//    "columns": [{"name": "unet_3d.4x4.bf16", "metric": "Kendall tau-b", "note": "held out"}, ...],
//    "rows": [{"team": "graphcost-gnn", "scores": [0.146, null, ...], "note": "..."}, ...]}
//
// "note" is optional in columns and rows; a score is a finite number or null (not measured).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace graphcost {

constexpr size_t kReferenceMaxColumns = 32, kReferenceMaxRows = 256, kReferenceMaxText = 600;

// The board, checked: InputError naming `source` and the field (e.g. "rows[2].scores[1]") with
// expected and actual for bad JSON, missing or extra fields, wrong types, texts over
// kReferenceMaxText bytes or with control characters, more than the max columns or rows, a row
// whose scores do not match the columns, non-finite scores, repeated team names.
nlohmann::json parse_reference_board(const std::string& text, const std::string& source);
// A text a board shows (a reference board's fields, the competition's about line): at most
// kReferenceMaxText bytes, no control characters; InputError naming `source` and `field`.
void check_board_text(const std::string& text, const std::string& source, const std::string& field);

}  // namespace graphcost
