// CompetitionServer's routes for teams (competition_server_internal.h): uploads, the team's own
// submissions and its final picks, each request authenticated by its token (team_of).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "scoring/submission.h"
#include "server/api_responses.h"
#include "server/competition_server_internal.h"

namespace graphcost {
namespace {

nlohmann::json submission_json(const StoredSubmission& s, bool final_board, const std::vector<int64_t>& picks) {
  nlohmann::json item = {{"id", s.id},
                         {"submitted_at", s.submitted_at},
                         {"status", submission_status_name(s.status)},
                         {"picked", std::count(picks.begin(), picks.end(), s.id) > 0}};
  if (s.status == SubmissionStatus::Scored) {
    item["public"] = s.public_score ? nlohmann::json(*s.public_score) : nlohmann::json(nullptr);
    if (final_board) item["private"] = s.private_score ? nlohmann::json(*s.private_score) : nlohmann::json(nullptr);
  }
  if (s.status == SubmissionStatus::Failed) item["error"] = s.error;
  return item;
}

}  // namespace

// A team's uploads, its submissions and its final picks: each request authenticated by token.
void CompetitionServer::route_submissions() {
  // The body is read here rather than by cpp-httplib: `curl --data-binary` labels it a form
  // (application/x-www-form-urlencoded), which cpp-httplib would cap at 8 KiB and parse.
  server_.Post("/api/submissions", [this](const httplib::Request& request, httplib::Response& response,
                                          const httplib::ContentReader& read_content) { upload(request, response, read_content); });
  server_.Get("/api/submissions",
              [this](const httplib::Request& request, httplib::Response& response) { list_submissions(request, response); });
  server_.Get(R"(/api/submissions/(\d{1,18}))",
              [this](const httplib::Request& request, httplib::Response& response) { show_submission(request, response); });
  server_.Put("/api/finals", [this](const httplib::Request& request, httplib::Response& response) { pick_finals(request, response); });
}

void CompetitionServer::upload(const httplib::Request& request, httplib::Response& response, const httplib::ContentReader& read_content) {
  const std::optional<int64_t> team = team_of(request, response);
  if (!team) return;
  if (closed()) {
    send_error(response, 403, "the competition closed at " + settings_.deadline + ": no more submissions");
    return;
  }
  std::string body;
  bool too_large = request.get_header_value<uint64_t>("Content-Length") > options_.max_upload_bytes;
  const bool whole = !too_large && read_content([&](const char* data, size_t length) {
    too_large = body.size() + length > options_.max_upload_bytes;
    if (!too_large) body.append(data, length);
    return !too_large;
  });
  if (too_large) {
    send_error(response, 413, "upload too large: at most " + std::to_string(options_.max_upload_bytes >> 20) + " MiB");
    return;
  }
  if (!whole) {
    send_error(response, 400, "the upload did not arrive whole (connection closed or timed out): nothing was stored");
    return;
  }
  const SubmissionCheck check = check_submission_text(body, solution_);
  const std::string now = utc_now();  // the time stored: on time by its own stamp, or refused
  if (closed(now)) {
    send_error(response, 403, "the competition closed at " + settings_.deadline + ": no more submissions");
    return;
  }
  if (!check.valid()) {
    nlohmann::json errors = nlohmann::json::array();
    for (const SubmissionError& error : check.errors) {
      errors.push_back({{"line", error.line}, {"column", error.column}, {"message", error.message}});
    }
    send_json(response, 400,
              {{"error", "invalid submission: nothing was stored and it does not count toward the daily cap"},
               {"errors", errors},
               {"error_count", check.error_count},
               {"text", check.format_errors("submission")}});
    return;
  }
  const std::optional<int64_t> id = stores_.get().accept_submission(*team, body, now);
  if (!id) {
    response.set_header("Retry-After", "3600");
    send_error(response, 429,
               "daily cap reached: " + std::to_string(settings_.daily_cap) + " submissions per UTC day (failed ones do not count)");
    return;
  }
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    ++uploads_waiting_;
  }
  queue_changed_.notify_one();
  send_json(response, 202, {{"id", *id}, {"status", "queued"}, {"rows", check.rows}});
}

void CompetitionServer::list_submissions(const httplib::Request& request, httplib::Response& response) {
  const std::optional<int64_t> team = team_of(request, response);
  if (!team) return;
  nlohmann::json list = nlohmann::json::array();
  CompetitionStore& store = stores_.get();
  const std::string name = store.team_name(*team);
  const std::vector<int64_t> picks = store.finals(*team);
  const bool final_board = closed();
  for (const StoredSubmission& s : store.submissions(false, *team)) list.push_back(submission_json(s, final_board, picks));
  send_json(response, 200, {{"team", name}, {"finals_allowed", settings_.finals}, {"submissions", list}});
}

void CompetitionServer::show_submission(const httplib::Request& request, httplib::Response& response) {
  const std::optional<int64_t> team = team_of(request, response);
  if (!team) return;
  const int64_t id = std::stoll(request.matches[1]);
  CompetitionStore& store = stores_.get();
  const std::optional<StoredSubmission> s = store.submission(id);
  if (!s || s->team_id != *team) {  // another team's submission is as absent as a missing one
    send_error(response, 404, "your team has no submission " + std::to_string(id));
    return;
  }
  send_json(response, 200, submission_json(*s, closed(), store.finals(*team)));
}

void CompetitionServer::pick_finals(const httplib::Request& request, httplib::Response& response) {
  const std::optional<int64_t> team = team_of(request, response);
  if (!team) return;
  if (closed()) {
    send_error(response, 403, "the competition closed at " + settings_.deadline + ": final picks are fixed");
    return;
  }
  if (request.body.size() > kMaxFinalsBody) {
    send_error(response, 413, "final picks: a body of at most " + std::to_string(kMaxFinalsBody) + " bytes");
    return;
  }
  std::vector<int64_t> ids;
  const nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object() || !body.contains("submissions") || !body["submissions"].is_array()) {
    send_error(response, 400, "expected a JSON body {\"submissions\": [ids]}");
    return;
  }
  for (const nlohmann::json& id : body["submissions"]) {
    if (!id.is_number_integer()) {
      send_error(response, 400, std::string("final picks: expected submission ids (integers), got a JSON ") + id.type_name());
      return;
    }
    if (id.is_number_unsigned() && id.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      send_error(response, 400, "final picks: no submission has the id " + id.dump());
      return;
    }
    ids.push_back(id.get<int64_t>());
  }
  if (closed()) {
    send_error(response, 403, "the competition closed at " + settings_.deadline + ": final picks are fixed");
    return;
  }
  try {
    stores_.get().set_finals(*team, ids);
  } catch (const InputError& error) {
    send_error(response, 400, error.what());
    return;
  }
  send_json(response, 200, {{"finals", ids}});
}

}  // namespace graphcost
