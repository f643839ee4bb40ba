// scoring/reference_board: a reference board's JSON is checked field by field; every refusal
// names the source, the field path, what was expected and what came.
#include <catch2/catch.hpp>

#include <string>

#include "common/input_error.h"
#include "scoring/reference_board.h"

using namespace graphcost;

namespace {

std::string refusal(const std::string& text) {
  try {
    parse_reference_board(text, "ref.json");
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

const char* kColumns = R"("columns": [{"name": "a", "metric": "tau"}, {"name": "b", "metric": "tau", "note": "held out"}])";

std::string board(const std::string& rows, const std::string& columns = kColumns) {
  return std::string(R"({"title": "Real", "measures": "tau-b", )") + columns + R"(, "rows": )" + rows + "}";
}

}  // namespace

TEST_CASE("a reference board is parsed whole when it keeps the format", "[leaderboard]") {
  const nlohmann::json parsed =
      parse_reference_board(board(R"([{"team": "x", "scores": [0.5, null]}, {"team": "y", "scores": [-1, 1], "note": "n"}])"), "ref.json");
  CHECK(parsed["rows"].size() == 2);
  CHECK(parsed["columns"][1]["note"] == "held out");
  CHECK(parse_reference_board(board("[]"), "ref.json")["rows"].empty());  // columns, no rows yet
}

TEST_CASE("a reference board that breaks the format is refused naming the field", "[leaderboard]") {
  CHECK_THAT(refusal("{"), Catch::Contains("ref.json") && Catch::Contains("expected JSON"));
  CHECK_THAT(refusal("[1]"), Catch::Contains("expected an object, got an array"));
  CHECK_THAT(refusal(R"({"title": "t", "measures": "m", "rows": []})"), Catch::Contains("columns: expected present, got missing"));
  CHECK_THAT(refusal(R"({"title": "t", "measures": "m", "colums": [], "columns": [], "rows": []})"), Catch::Contains("colums"));
  CHECK_THAT(refusal(board(R"([{"team": "x", "scores": [0.5]}])")),
             Catch::Contains("rows[0].scores: expected an array of 2 scores (one per column), got 1 scores"));
  CHECK_THAT(refusal(board(R"([{"team": "x", "scores": [0.5, "high"]}])")),
             Catch::Contains("rows[0].scores[1]: expected a finite number or null, got a string"));
  CHECK_THAT(refusal(board(R"([{"team": "x", "scores": [1, 2]}, {"team": "x", "scores": [1, 2]}])")),
             Catch::Contains("rows[1].team: expected a team named once"));
  CHECK_THAT(refusal(board(R"([{"team": "x\u0007", "scores": [1, 2]}])")),
             Catch::Contains("rows[0].team: expected text without control characters"));
  CHECK_THAT(refusal(board(R"([{"team": ")" + std::string(700, 'a') + R"(", "scores": [1, 2]}])")), Catch::Contains("at most 600 bytes"));
  CHECK_THAT(refusal(board("[]", R"("columns": [{"name": "a"}])")), Catch::Contains("columns[0].metric: expected present"));
  std::string many = R"("columns": [)";
  for (int i = 0; i < 33; ++i) many += std::string(i ? "," : "") + R"({"name": "c", "metric": "m"})";
  CHECK_THAT(refusal(board("[]", many + "]")), Catch::Contains("an array of 1 to 32 columns, got 33 columns"));
}
