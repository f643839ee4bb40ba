#include "scoring/leaderboard.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/internal_error.h"
#include "data/dataset_path.h"

namespace graphcost {

const NameTable<EntryStatus>& entry_status_names() {
  static const NameTable<EntryStatus> names = {{"scored", EntryStatus::Scored},
                                               {"invalid", EntryStatus::Invalid},
                                               {"over daily cap", EntryStatus::OverDailyCap},
                                               {"pending", EntryStatus::Pending}};
  return names;
}
namespace {

namespace fs = std::filesystem;

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

double board_overall(const SubmissionRecord& record, bool private_board) {
  return private_board ? record.report.private_board.overall : record.report.public_board.overall;
}

// Higher score first; NaN last; ties to the earlier submission.
bool better(double a, const std::string& time_a, double b, const std::string& time_b) {
  if (std::isnan(a) != std::isnan(b)) return !std::isnan(a);
  if (!std::isnan(a) && a != b) return a > b;
  return time_a < time_b;
}

void write_json_file(const nlohmann::json& json, const fs::path& path) {
  // Team names come from folder names, which need not be UTF-8: replace invalid bytes with U+FFFD
  // rather than failing the whole board.
  write_file_atomically(path.string(), json.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

nlohmann::json number_or_null(double value) { return std::isnan(value) ? nlohmann::json(nullptr) : nlohmann::json(value); }

struct PendingSubmission {
  std::string team, timestamp, file;
  const std::string* csv = nullptr;  // the bytes, when given directly (else read from `file`)
  bool picked = false;
  const SubmissionInput* decided = nullptr;  // a live competition's outcome, taken as it is
};

std::vector<PendingSubmission> list_submissions(const LeaderboardOptions& options, std::vector<std::string>& skipped) {
  std::vector<PendingSubmission> pending;
  if (!options.manifest.empty()) {
    std::ifstream in(options.manifest);
    if (!in) throw InputError(options.manifest, "", "a readable manifest (team,timestamp,path)", "cannot open");
    const fs::path base = fs::path(options.manifest).parent_path();
    std::string line;
    size_t number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty() || (number == 1 && line == "team,timestamp,path")) continue;
      const size_t first = line.find(','), second = line.find(',', first + 1);
      if (first == std::string::npos || second == std::string::npos) {
        throw InputError(options.manifest, "line " + std::to_string(number), "team,timestamp,path", "'" + line.substr(0, 60) + "'");
      }
      const std::string timestamp = parse_submission_timestamp(line.substr(first + 1, second - first - 1));
      if (timestamp.empty()) {
        throw InputError(options.manifest, "line " + std::to_string(number) + ", timestamp", "a UTC timestamp like 2023-11-30T17:05:00Z",
                         "'" + line.substr(first + 1, second - first - 1) + "'");
      }
      pending.push_back({line.substr(0, first), timestamp, (base / line.substr(second + 1)).string()});
    }
    return pending;
  }
  std::error_code error;
  if (!fs::is_directory(options.submissions_dir, error)) {
    throw InputError(options.submissions_dir, "", "a folder of <team>/<UTC timestamp>.csv", "not a directory");
  }
  // symlink_status, never status: a link is reported and skipped, not followed.
  for (const auto& team_dir : fs::directory_iterator(options.submissions_dir)) {
    const fs::file_type team_type = team_dir.symlink_status().type();
    if (team_type != fs::file_type::directory) {
      if (team_type == fs::file_type::symlink) skipped.push_back(team_dir.path().string() + " (a symbolic link)");
      continue;
    }
    for (const auto& file : fs::directory_iterator(team_dir.path())) {
      if (file.path().extension() != ".csv") continue;
      const fs::file_type type = file.symlink_status().type();
      if (type != fs::file_type::regular) {
        skipped.push_back(file.path().string() + (type == fs::file_type::symlink ? " (a symbolic link)" : " (not a regular file)"));
        continue;
      }
      pending.push_back(
          {team_dir.path().filename().string(), parse_submission_timestamp(file.path().stem().string()), file.path().string()});
    }
  }
  return pending;
}

}  // namespace

std::string parse_submission_timestamp(const std::string& name) {
  // Accepted: YYYY-MM-DDTHH-MM-SSZ, YYYY-MM-DDTHH:MM:SSZ, YYYYMMDDTHHMMSSZ.
  std::string digits;
  if (name.size() == 20 && name[4] == '-' && name[7] == '-' && name[10] == 'T' && name[19] == 'Z' && name[13] == name[16] &&
      (name[13] == '-' || name[13] == ':')) {
    digits = name.substr(0, 4) + name.substr(5, 2) + name.substr(8, 2) + name.substr(11, 2) + name.substr(14, 2) + name.substr(17, 2);
  } else if (name.size() == 16 && name[8] == 'T' && name[15] == 'Z') {
    digits = name.substr(0, 8) + name.substr(9, 6);
  }
  if (!all_digits(digits)) return "";
  const int year = std::stoi(digits.substr(0, 4));
  const int month = std::stoi(digits.substr(4, 2)), day = std::stoi(digits.substr(6, 2));
  const int hour = std::stoi(digits.substr(8, 2)), minute = std::stoi(digits.substr(10, 2)), second = std::stoi(digits.substr(12, 2));
  if (year < 2000 || year > 2099 || month < 1 || month > 12) return "";
  const bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  const int days_in_month[] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (day < 1 || day > days_in_month[month - 1] || hour > 23 || minute > 59 || second > 59) return "";
  return digits.substr(0, 4) + "-" + digits.substr(4, 2) + "-" + digits.substr(6, 2) + "T" + digits.substr(8, 2) + ":" +
         digits.substr(10, 2) + ":" + digits.substr(12, 2) + "Z";
}

namespace {

Leaderboard rank_submissions(const Solution& solution, std::vector<PendingSubmission> pending, const LeaderboardOptions& options,
                             std::vector<std::string> skipped) {
  Leaderboard leaderboard;
  leaderboard.skipped = std::move(skipped);
  std::stable_sort(pending.begin(), pending.end(), [](const PendingSubmission& a, const PendingSubmission& b) {
    if (a.decided != nullptr && b.decided != nullptr) return a.decided->number < b.decided->number;
    return a.timestamp != b.timestamp ? a.timestamp < b.timestamp : a.team < b.team;
  });
  leaderboard.final_board = options.final_board;
  std::map<std::pair<std::string, std::string>, int> scored_per_day;  // (team, date) -> count
  for (const PendingSubmission& item : pending) {
    SubmissionRecord record;
    record.number = item.decided != nullptr ? item.decided->number : static_cast<int>(leaderboard.submissions.size()) + 1;
    record.team = item.team;
    record.timestamp = item.timestamp;
    record.file = item.file;
    record.picked = item.picked;
    if (item.decided != nullptr) {
      const SubmissionInput& decided = *item.decided;
      record.status = decided.outcome == InputOutcome::Scored   ? EntryStatus::Scored
                      : decided.outcome == InputOutcome::Failed ? EntryStatus::Invalid
                                                                : EntryStatus::Pending;
      if (decided.outcome == InputOutcome::Scored) record.report = decided.report;
      if (decided.outcome == InputOutcome::Failed) record.message = decided.message;
    } else if (item.timestamp.empty()) {
      record.status = EntryStatus::Invalid;
      record.message = "file name is not a UTC timestamp of 2000-2099 (expected e.g. 2023-11-30T17-05-00Z.csv)";
    } else if (scored_per_day[{item.team, item.timestamp.substr(0, 10)}] >= options.daily_cap) {
      record.status = EntryStatus::OverDailyCap;
      record.message =
          "more than " + std::to_string(options.daily_cap) + " scored submissions on " + item.timestamp.substr(0, 10) + " (UTC)";
    } else {
      const SubmissionCheck check =
          item.csv != nullptr ? check_submission_text(*item.csv, solution) : check_submission_file(item.file, solution);
      if (!check.valid()) {
        record.status = EntryStatus::Invalid;
        record.message = check.format_errors(fs::path(item.file).filename().string());
      } else {
        record.status = EntryStatus::Scored;
        record.report = score_submission(solution, check);
        ++scored_per_day[{item.team, item.timestamp.substr(0, 10)}];
      }
    }
    leaderboard.submissions.push_back(std::move(record));
  }

  std::map<std::string, TeamStanding> teams;
  std::map<std::string, std::vector<const SubmissionRecord*>> scored_by_team;
  for (const SubmissionRecord& record : leaderboard.submissions) {
    TeamStanding& team = teams[record.team];
    team.team = record.team;
    team.last_submission = std::max(team.last_submission, record.timestamp);
    if (record.status == EntryStatus::Scored) {
      ++team.entries;
      scored_by_team[record.team].push_back(&record);
    } else if (record.status == EntryStatus::Invalid) {
      ++team.failed;
    }
  }
  for (auto& [name, team] : teams) {
    std::vector<const SubmissionRecord*> candidates = scored_by_team[name];
    team.score = std::numeric_limits<double>::quiet_NaN();
    team.collections.fill(std::numeric_limits<double>::quiet_NaN());
    if (candidates.empty()) continue;
    std::stable_sort(candidates.begin(), candidates.end(), [](const SubmissionRecord* a, const SubmissionRecord* b) {
      return better(board_overall(*a, false), a->timestamp, board_overall(*b, false), b->timestamp);
    });
    if (options.final_board) {
      std::vector<const SubmissionRecord*> picked;
      for (const SubmissionRecord* record : candidates) {
        if (record->picked) picked.push_back(record);
      }
      if (!picked.empty()) {
        candidates = picked;  // the team's own choice
      } else {
        candidates.resize(std::min<size_t>(candidates.size(), static_cast<size_t>(std::max(1, options.selected))));
      }
      std::stable_sort(candidates.begin(), candidates.end(), [](const SubmissionRecord* a, const SubmissionRecord* b) {
        return better(board_overall(*a, true), a->timestamp, board_overall(*b, true), b->timestamp);
      });
    }
    const SubmissionRecord& best = *candidates.front();
    const BoardScore& board = options.final_board ? best.report.private_board : best.report.public_board;
    team.score = board.overall;
    team.collections = board.collection_score;
    team.best_submission = best.number;
  }
  std::vector<TeamStanding> standings;
  for (auto& [name, team] : teams) standings.push_back(team);
  std::map<int, std::string> time_by_number;
  for (const SubmissionRecord& record : leaderboard.submissions) time_by_number[record.number] = record.timestamp;
  auto best_time = [&](const TeamStanding& team) {
    return team.best_submission > 0 ? time_by_number.at(team.best_submission) : std::string("~");
  };
  std::stable_sort(standings.begin(), standings.end(),
                   [&](const TeamStanding& a, const TeamStanding& b) { return better(a.score, best_time(a), b.score, best_time(b)); });
  for (size_t i = 0; i < standings.size(); ++i) standings[i].rank = static_cast<int>(i) + 1;
  leaderboard.standings = std::move(standings);
  return leaderboard;
}

}  // namespace

Leaderboard build_leaderboard(const Solution& solution, const LeaderboardOptions& options) {
  std::vector<std::string> skipped;
  std::vector<PendingSubmission> pending = list_submissions(options, skipped);
  return rank_submissions(solution, std::move(pending), options, std::move(skipped));
}

Leaderboard build_leaderboard(const Solution& solution, const std::vector<SubmissionInput>& inputs, const LeaderboardOptions& options) {
  std::vector<PendingSubmission> pending;
  for (const SubmissionInput& input : inputs) {
    const bool decided = input.outcome != InputOutcome::Unscored;
    if (decided && input.number <= 0) throw InternalError("build_leaderboard: a decided submission needs its store id");
    pending.push_back({input.team, input.timestamp, input.name, &input.csv, input.picked, decided ? &input : nullptr});
  }
  const bool all_decided = std::all_of(pending.begin(), pending.end(), [](const PendingSubmission& p) { return p.decided != nullptr; });
  const bool none_decided = std::none_of(pending.begin(), pending.end(), [](const PendingSubmission& p) { return p.decided != nullptr; });
  if (!all_decided && !none_decided) throw InternalError("build_leaderboard: decided and undecided submissions mixed");
  return rank_submissions(solution, std::move(pending), options, {});
}

nlohmann::json leaderboard_json(const Leaderboard& leaderboard) {
  nlohmann::json collections = nlohmann::json::array();
  for (const char* name : kCollections) collections.push_back(name);
  nlohmann::json teams = nlohmann::json::array();
  for (const TeamStanding& team : leaderboard.standings) {
    nlohmann::json per_collection = nlohmann::json::object();
    for (int c = 0; c < 5; ++c) per_collection[kCollections[c]] = number_or_null(team.collections[c]);
    teams.push_back({{"rank", team.rank},
                     {"team", team.team},
                     {"score", number_or_null(team.score)},
                     {"collections", per_collection},
                     {"entries", team.entries},
                     {"failed", team.failed},
                     {"last_submission", team.last_submission},
                     {"best_submission", team.best_submission > 0 ? nlohmann::json(team.best_submission) : nlohmann::json(nullptr)}});
  }
  nlohmann::json submissions = nlohmann::json::array();
  for (const SubmissionRecord& record : leaderboard.submissions) {
    nlohmann::json item = {{"number", record.number},
                           {"team", record.team},
                           {"timestamp", record.timestamp},
                           {"status", name_of(entry_status_names(), record.status)}};
    if (record.status == EntryStatus::Scored) {
      item["public"] = number_or_null(record.report.public_board.overall);
      if (leaderboard.final_board) item["private"] = number_or_null(record.report.private_board.overall);
    } else {
      item["message"] = record.message;
    }
    submissions.push_back(std::move(item));
  }
  nlohmann::json board = {{"format", "graphcost-leaderboard-1"},
                          {"board", leaderboard.final_board ? "private" : "public"},
                          {"collections", collections},
                          {"teams", teams},
                          {"submissions", submissions}};
  if (!leaderboard.about.empty()) board["about"] = leaderboard.about;
  if (!leaderboard.reference.is_null()) board["reference"] = leaderboard.reference;
  return board;
}

nlohmann::json submission_detail_json(const SubmissionRecord& record, nlohmann::json report, bool final_board) {
  if (!final_board) {  // the private board and graphs stay hidden until the final board
    report.erase("private");
    if (report.contains("graphs")) {
      nlohmann::json visible = nlohmann::json::array();
      for (nlohmann::json& graph : report["graphs"]) {
        if (graph.value("usage", "") != usage_name(Usage::Private)) visible.push_back(std::move(graph));
      }
      report["graphs"] = std::move(visible);
    }
  }
  report["number"] = record.number;
  report["team"] = record.team;
  report["timestamp"] = record.timestamp;
  return report;
}

void write_leaderboard(const Leaderboard& leaderboard, const std::string& out_dir) {
  write_leaderboard(leaderboard, out_dir, [&](const SubmissionRecord& record) {
    return submission_detail_json(record, score_report_json(record.report, leaderboard.final_board), leaderboard.final_board);
  });
}

void write_leaderboard(const Leaderboard& leaderboard, const std::string& out_dir,
                       const std::function<nlohmann::json(const SubmissionRecord&)>& detail) {
  const fs::path out(out_dir);
  fs::create_directories(out / "details");
  std::set<std::string> written;
  for (const SubmissionRecord& record : leaderboard.submissions) {
    if (record.status != EntryStatus::Scored) continue;
    written.insert(std::to_string(record.number) + ".json");
    write_json_file(detail(record), out / "details" / (std::to_string(record.number) + ".json"));
  }
  write_json_file(leaderboard_json(leaderboard), out / "leaderboard.json");
  // Details of an earlier run that this one did not write: only files named <number>.json.
  for (const auto& entry : fs::directory_iterator(out / "details")) {
    const std::string name = entry.path().filename().string();
    const bool numbered = name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 && all_digits(name.substr(0, name.size() - 5));
    if (numbered && !written.count(name)) fs::remove(entry.path());
  }
}

}  // namespace graphcost
