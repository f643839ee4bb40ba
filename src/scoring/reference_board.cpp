#include "scoring/reference_board.h"

#include <cmath>
#include <set>

#include "common/input_error.h"

namespace graphcost {
namespace {

std::string kind_of(const nlohmann::json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "an array";
  return "an object";
}

void check_fields(const nlohmann::json& object, const std::string& where, const std::set<std::string>& required,
                  const std::set<std::string>& optional, const std::string& source) {
  if (!object.is_object()) throw InputError(source, where.empty() ? "reference board" : where, "an object", kind_of(object));
  for (const std::string& name : required) {
    if (!object.contains(name)) throw InputError(source, where + (where.empty() ? "" : ".") + name, "present", "missing");
  }
  for (const auto& [name, value] : object.items()) {
    if (!required.count(name) && !optional.count(name)) {
      throw InputError(source, where + (where.empty() ? "" : ".") + printable(name), "no such field (a typo?)", "present");
    }
  }
}

std::string text_field(const nlohmann::json& value, const std::string& where, const std::string& source) {
  if (!value.is_string()) throw InputError(source, where, "a string", kind_of(value));
  const std::string& text = value.get_ref<const std::string&>();
  check_board_text(text, source, where);
  return text;
}

}  // namespace

void check_board_text(const std::string& text, const std::string& source, const std::string& field) {
  if (text.size() > kReferenceMaxText) {
    throw InputError(source, field, "at most " + std::to_string(kReferenceMaxText) + " bytes", std::to_string(text.size()) + " bytes");
  }
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) throw InputError(source, field, "text without control characters", "'" + printable(text) + "'");
  }
}

nlohmann::json parse_reference_board(const std::string& text, const std::string& source) {
  nlohmann::json board;
  try {
    board = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw InputError(source, "reference board", "JSON", std::string("a parse error at byte ") + std::to_string(error.byte));
  }
  check_fields(board, "", {"title", "measures", "columns", "rows"}, {}, source);
  text_field(board["title"], "title", source);
  text_field(board["measures"], "measures", source);
  const nlohmann::json& columns = board["columns"];
  if (!columns.is_array() || columns.empty() || columns.size() > kReferenceMaxColumns) {
    throw InputError(source, "columns", "an array of 1 to " + std::to_string(kReferenceMaxColumns) + " columns",
                     columns.is_array() ? std::to_string(columns.size()) + " columns" : kind_of(columns));
  }
  for (size_t c = 0; c < columns.size(); ++c) {
    const std::string where = "columns[" + std::to_string(c) + "]";
    check_fields(columns[c], where, {"name", "metric"}, {"note"}, source);
    text_field(columns[c]["name"], where + ".name", source);
    text_field(columns[c]["metric"], where + ".metric", source);
    if (columns[c].contains("note")) text_field(columns[c]["note"], where + ".note", source);
  }
  const nlohmann::json& rows = board["rows"];
  if (!rows.is_array() || rows.size() > kReferenceMaxRows) {
    throw InputError(source, "rows", "an array of at most " + std::to_string(kReferenceMaxRows) + " rows",
                     rows.is_array() ? std::to_string(rows.size()) + " rows" : kind_of(rows));
  }
  std::set<std::string> teams;
  for (size_t r = 0; r < rows.size(); ++r) {
    const std::string where = "rows[" + std::to_string(r) + "]";
    check_fields(rows[r], where, {"team", "scores"}, {"note"}, source);
    const std::string team = text_field(rows[r]["team"], where + ".team", source);
    if (!teams.insert(team).second) throw InputError(source, where + ".team", "a team named once", "'" + printable(team) + "' again");
    if (rows[r].contains("note")) text_field(rows[r]["note"], where + ".note", source);
    const nlohmann::json& scores = rows[r]["scores"];
    if (!scores.is_array() || scores.size() != columns.size()) {
      throw InputError(source, where + ".scores", "an array of " + std::to_string(columns.size()) + " scores (one per column)",
                       scores.is_array() ? std::to_string(scores.size()) + " scores" : kind_of(scores));
    }
    for (size_t c = 0; c < scores.size(); ++c) {
      const nlohmann::json& score = scores[c];
      if (score.is_null()) continue;
      if (!score.is_number() || !std::isfinite(score.get<double>())) {
        throw InputError(source, where + ".scores[" + std::to_string(c) + "]", "a finite number or null", kind_of(score));
      }
    }
  }
  return board;
}

}  // namespace graphcost
