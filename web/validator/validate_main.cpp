// graphcost_validate.{js,wasm}: the submission validator of graphcost-eval (scoring/submission.h)
// for the browser. The submission page of `graphcost-eval serve` runs it against the public ID list
// (GET /api/ids: IDs and config counts, no runtime) and shows the same line/column errors as the
// server before anything is uploaded.
//
//   const v = await createGraphcostValidator();
//   pointers from v._malloc, bytes copied into v.HEAPU8, then
//   v.UTF8ToString(v._graphcost_validate(ids, ids_length, submission, submission_length))
//   -> {"valid": true, "rows": 5, "error_count": 0, "errors": []}
//      {"valid": false, ..., "errors": [{"line": 2, "column": 1, "message": "unknown ID 'foo'"}]}
//      {"error": "public ID list: ..."} when the list itself is malformed
#include <emscripten/emscripten.h>

#include <string>

#include <nlohmann/json.hpp>

#include "common/error_exit.h"
#include "scoring/solution.h"
#include "scoring/submission.h"

namespace {

std::string g_ids_text;  // the ID list last parsed, and its solution
graphcost::Solution g_ids;
std::string g_answer;  // what the last call returned; valid until the next call

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE const char* graphcost_validate(const char* ids, size_t ids_length, const char* submission,
                                                               size_t submission_length) {
  try {
    const std::string ids_text(ids, ids_length);
    if (ids_text != g_ids_text) {
      g_ids = graphcost::parse_id_list(ids_text, "public ID list");
      g_ids_text = ids_text;
    }
    const graphcost::SubmissionCheck check = graphcost::check_submission_text(std::string(submission, submission_length), g_ids);
    nlohmann::json errors = nlohmann::json::array();
    for (const graphcost::SubmissionError& error : check.errors) {
      errors.push_back({{"line", error.line}, {"column", error.column}, {"message", error.message}});
    }
    g_answer = nlohmann::json{{"valid", check.valid()}, {"rows", check.rows}, {"error_count", check.error_count}, {"errors", errors}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const std::exception& error) {
    g_ids_text.clear();
    g_answer = nlohmann::json{{"error", graphcost::error_message(error)}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return g_answer.c_str();
}
