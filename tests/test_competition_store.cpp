// CompetitionStore and the scoring queue: settings, teams and hashed tokens, the daily cap (also
// under concurrent uploads), the queue across restarts in every state, schema checks, and an
// export equal to the offline leaderboard of the same submissions.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/input_error.h"
#include "competition_commands.h"
#include "data/dataset_survey.h"
#include "data/tpu_graph.h"
#include "scoring/baseline_order.h"
#include "scoring/leaderboard.h"
#include "scoring/scorer.h"
#include "scoring/submission.h"
#include "scoring_worker.h"
#include "store/competition_store.h"
#include "store/team_names.h"
#include "test_support.h"

using namespace graphcost;
namespace fs = std::filesystem;

namespace {

struct Competition {
  std::string dir, db, tree;
  Solution solution;
  std::string valid_csv, invalid_csv = "ID,TopConfigs\nnot-an-id,0\n";
};

std::string read_text(const std::string& path) {
  const std::vector<uint8_t> bytes = testing::read_bytes(path);
  return std::string(bytes.begin(), bytes.end());
}

// A generated tree's valid split as the solution, and a valid submission (file order) for it.
Competition make_competition(const std::string& name, int daily_cap = 3) {
  Competition c;
  c.dir = testing::scratch_dir(name);
  c.db = c.dir + "/competition.sqlite";
  c.tree = testing::generate_tree(name + "_tree", "layout:xla:random", 6, 11, 300, 20);
  c.solution = solution_from_tree(c.tree, "valid", 3, 0.5);
  std::vector<SubmissionRow> rows;
  for (const SplitFile& file : find_split_files(c.tree, "valid")) {
    rows.push_back({file.location.kaggle_id(), baseline_order(load_tpu_graph(file.path), BaselineStrategy::Reverse, 0)});
  }
  write_submission_file(c.dir + "/valid.csv", rows);
  c.valid_csv = read_text(c.dir + "/valid.csv");
  CompetitionStore store = CompetitionStore::open(c.db, true);
  CompetitionSettings settings;
  settings.title = "test <b>competition</b>";
  settings.deadline = "2099-12-31T23:59:59Z";
  settings.daily_cap = daily_cap;
  store.initialize(settings, solution_csv(c.solution));
  return c;
}

}  // namespace

TEST_CASE("a competition keeps its settings and solution, once", "[competition]") {
  Competition c = make_competition("competition_settings");
  CompetitionStore store = CompetitionStore::open(c.db, false);
  CHECK(store.schema_version() == CompetitionStore::kSchemaVersion);
  CHECK(store.settings().title == "test <b>competition</b>");
  CHECK(store.settings().daily_cap == 3);
  CHECK(parse_solution(store.solution_csv(), "db").entries.size() == c.solution.entries.size());
  CHECK_THROWS_WITH(store.initialize(CompetitionSettings{"again", "2099-01-01T00:00:00Z", 1, 1}, "x"),
                    Catch::Contains("one is set already"));
  CompetitionStore fresh = CompetitionStore::open(c.dir + "/fresh.sqlite", true);
  CHECK_THROWS_WITH(fresh.initialize(CompetitionSettings{"t", "tomorrow", 1, 1}, "x"), Catch::Contains("a UTC time like"));
  CHECK_THROWS_WITH(fresh.settings(), Catch::Contains("none set"));
  CHECK_THROWS_WITH(CompetitionStore::open(c.dir + "/missing.sqlite", false), Catch::Contains("no such file"));
}

TEST_CASE("tokens are shown once, stored hashed, and refused when wrong or revoked", "[competition]") {
  Competition c = make_competition("competition_tokens");
  CompetitionStore store = CompetitionStore::open(c.db, false);
  const std::string token = store.add_team("alpha");
  CHECK(token.rfind("gc_", 0) == 0);
  CHECK(store.team_for_token(token) == store.team_id("alpha"));
  std::string wrong = token;
  wrong.back() = wrong.back() == '0' ? '1' : '0';
  CHECK_FALSE(store.team_for_token(wrong));
  for (const std::string& bad : {std::string(), std::string("gc_"), std::string("Bearer x"), token + "0",
                                 std::string("gc_99_") + std::string(32, 'a'), std::string("gc_-1_") + std::string(32, 'a')}) {
    CHECK_FALSE(store.team_for_token(bad));
  }
  const std::string second = store.add_token("alpha");
  CHECK(store.team_for_token(second) == store.team_id("alpha"));
  CHECK(store.revoke_team_tokens("alpha") == 2);
  CHECK_FALSE(store.team_for_token(token));
  CHECK_FALSE(store.team_for_token(second));
  CHECK_THROWS_WITH(store.add_team("alpha"), Catch::Contains("a team of that name exists"));
  CHECK_THROWS_WITH(store.add_team("bad\x1b[31m"), Catch::Contains("visible characters"));
  // One token, one spelling: the id with a leading zero is another (refused) token.
  CHECK_FALSE(store.team_for_token("gc_0" + second.substr(3)));
  CHECK_THROWS_WITH(store.add_team(std::string(65, 'x')), Catch::Contains("1 to 64 bytes"));
  // The secret is nowhere in the file: only its salted hash.
  const std::string bytes = read_text(c.db) + (fs::exists(c.db + "-wal") ? read_text(c.db + "-wal") : "");
  CHECK(bytes.find(second.substr(second.rfind('_') + 1)) == std::string::npos);
}

TEST_CASE("the daily cap counts accepted submissions, not failed ones, per UTC day", "[competition]") {
  Competition c = make_competition("competition_cap", 2);
  CompetitionStore store = CompetitionStore::open(c.db, false);
  store.add_team("alpha");
  const int64_t team = *store.team_id("alpha");
  CHECK(store.accept_submission(team, c.valid_csv, "2026-12-03T10:00:00Z"));
  CHECK(store.accept_submission(team, c.invalid_csv, "2026-12-03T10:01:00Z"));
  CHECK_FALSE(store.accept_submission(team, c.valid_csv, "2026-12-03T10:02:00Z"));  // cap 2
  CHECK(store.accept_submission(team, c.valid_csv, "2026-12-04T00:00:00Z"));        // a new UTC day
  CHECK(score_queued(store, c.solution) == 3);
  const std::vector<StoredSubmission> all = store.submissions();
  REQUIRE(all.size() == 3);
  CHECK(all[0].status == SubmissionStatus::Scored);
  CHECK(all[0].public_score.has_value());
  CHECK(all[1].status == SubmissionStatus::Failed);
  CHECK_THAT(all[1].error, Catch::Contains("submission 2:2:1: unknown ID 'not-an-id'"));
  CHECK(store.accept_submission(team, c.valid_csv, "2026-12-03T23:59:59Z"));  // the failed one no longer counts
}

TEST_CASE("concurrent uploads cannot pass the daily cap", "[competition]") {
  Competition c = make_competition("competition_race", 5);
  {
    CompetitionStore store = CompetitionStore::open(c.db, false);
    store.add_team("racer");
  }
  std::atomic<int> accepted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      CompetitionStore store = CompetitionStore::open(c.db, false);  // a connection each, as server workers
      const int64_t team = *store.team_id("racer");
      for (int i = 0; i < 4; ++i) accepted += store.accept_submission(team, c.valid_csv, "2026-12-03T12:00:00Z").has_value();
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(accepted == 5);
  CHECK(CompetitionStore::open(c.db, false).submissions().size() == 5);
}

TEST_CASE("the queue resumes after a restart in every state: nothing lost, nothing scored twice", "[competition]") {
  Competition c = make_competition("competition_restart", 10);
  {
    CompetitionStore store = CompetitionStore::open(c.db, false);
    store.add_team("alpha");
    const int64_t team = *store.team_id("alpha");
    for (int i = 0; i < 6; ++i)
      store.accept_submission(team, i == 4 ? c.invalid_csv : c.valid_csv, "2026-12-03T12:00:0" + std::to_string(i) + "Z");
    CHECK(score_queued(store, c.solution, 2) == 2);  // 1, 2 scored
    CHECK(store.claim_next() == 3);                  // 3 was being scored when the process died
  }                                                  // (4, 5, 6 still queued)
  CompetitionStore store = CompetitionStore::open(c.db, false);
  CHECK(store.submission(3)->status == SubmissionStatus::Scoring);
  CHECK(store.requeue_interrupted() == 1);
  CHECK(score_queued(store, c.solution) == 4);  // 3, 4, 5, 6: each once
  CHECK(score_queued(store, c.solution) == 0);
  const StoreCounts counts = store.counts();
  CHECK((counts.scored == 5 && counts.failed == 1 && counts.queued == 0 && counts.scoring == 0));
  CHECK_THROWS_AS(store.finish_failed(1, "late"), InternalError);  // a finished submission cannot be finished again
  // rescore: every finished one again, same scores; one being scored is left to finish.
  const double before = *store.submission(1)->public_score;
  const int64_t late = *store.accept_submission(*store.team_id("alpha"), c.valid_csv, "2026-12-03T13:00:00Z");
  CHECK(store.claim_next() == late);
  CHECK(store.requeue_all() == 6);
  store.finish_scored(late, ScoreReport{}, "2026-12-03T13:00:01Z");  // the in-flight one still finishes
  CHECK(score_queued(store, c.solution) == 6);
  CHECK(*store.submission(1)->public_score == before);
}

TEST_CASE("final picks are the team's own scored submissions, at most the allowed number", "[competition]") {
  Competition c = make_competition("competition_finals", 10);
  CompetitionStore store = CompetitionStore::open(c.db, false);
  store.add_team("alpha");
  store.add_team("beta");
  const int64_t alpha = *store.team_id("alpha"), beta = *store.team_id("beta");
  const int64_t a1 = *store.accept_submission(alpha, c.valid_csv, "2026-12-03T12:00:00Z");
  const int64_t a2 = *store.accept_submission(alpha, c.valid_csv, "2026-12-03T12:00:01Z");
  const int64_t a3 = *store.accept_submission(alpha, c.invalid_csv, "2026-12-03T12:00:02Z");
  const int64_t b1 = *store.accept_submission(beta, c.valid_csv, "2026-12-03T12:00:03Z");
  score_queued(store, c.solution);
  store.set_finals(alpha, {a2, a1});
  CHECK(store.finals(alpha) == std::vector<int64_t>{a1, a2});
  CHECK_THROWS_WITH(store.set_finals(alpha, {a1, a2, a1}), Catch::Contains("at most 2"));
  CHECK_THROWS_WITH(store.set_finals(alpha, {b1}), Catch::Contains("one of the team's scored submissions"));
  CHECK_THROWS_WITH(store.set_finals(alpha, {a3}), Catch::Contains("one of the team's scored submissions"));
  CHECK(store.finals(alpha) == std::vector<int64_t>{a1, a2});  // a refused change leaves the picks

  // The private board ranks a team by its picks: alpha picks only its second (identical) entry.
  store.set_finals(alpha, {a2});
  CHECK(run_competition_export({c.db, c.dir + "/final", true}) == 0);
  const nlohmann::json board = nlohmann::json::parse(read_text(c.dir + "/final/leaderboard.json"));
  CHECK(board["board"] == "private");
  for (const nlohmann::json& team : board["teams"]) {
    if (team["team"] == "alpha") CHECK(team["best_submission"] == 2);  // a2 is the second by time
    if (team["team"] == "beta") CHECK(team["best_submission"] == 4);   // no picks: its best public one
  }
}

TEST_CASE("a database of another program, of a newer graphcost, or not a database is refused", "[competition]") {
  const std::string dir = testing::scratch_dir("competition_schema");
  testing::write_bytes(dir + "/text.sqlite", std::vector<uint8_t>(4096, 'x'));
  CHECK_THROWS_AS(CompetitionStore::open(dir + "/text.sqlite", false), InputError);
  { CompetitionStore store = CompetitionStore::open(dir + "/newer.sqlite", true); }
  const std::string newer = dir + "/newer.sqlite";
  REQUIRE(std::system(("/usr/bin/python3 -c \"import sqlite3; c = sqlite3.connect('" + newer +
                       "'); c.execute('PRAGMA user_version = 99'); c.commit()\"")
                          .c_str()) == 0);
  CHECK_THROWS_WITH(CompetitionStore::open(newer, false), Catch::Contains("written by a newer graphcost"));
  const std::string other = dir + "/other.sqlite";
  REQUIRE(std::system(
              ("/usr/bin/python3 -c \"import sqlite3; c = sqlite3.connect('" + other + "'); c.execute('CREATE TABLE t (x)'); c.commit()\"")
                  .c_str()) == 0);
  CHECK_THROWS_WITH(CompetitionStore::open(other, false), Catch::Contains("another program's SQLite database"));
  const std::string versioned = dir + "/versioned.sqlite";  // another program that also sets user_version
  REQUIRE(std::system(("/usr/bin/python3 -c \"import sqlite3; c = sqlite3.connect('" + versioned +
                       "'); c.execute('CREATE TABLE t (x)'); c.execute('PRAGMA user_version = 1'); c.commit()\"")
                          .c_str()) == 0);
  CHECK_THROWS_WITH(CompetitionStore::open(versioned, false), Catch::Contains("application id"));
}

TEST_CASE("export gives the offline leaderboard of the same submissions", "[competition]") {
  Competition c = make_competition("competition_export", 10);
  CompetitionStore store = CompetitionStore::open(c.db, false);
  const std::string folder = c.dir + "/submissions";
  int second = 0;
  for (const std::string team : {"alpha", "beta"}) {
    store.add_team(team);
    fs::create_directories(folder + "/" + team);
    for (const std::string* csv : {&c.valid_csv, &c.invalid_csv}) {
      const std::string stamp = "2026-12-03T12-00-0" + std::to_string(second++) + "Z";
      std::string iso = stamp;
      iso[13] = iso[16] = ':';
      store.accept_submission(*store.team_id(team), *csv, iso);
      std::ofstream(folder + "/" + team + "/" + stamp + ".csv") << *csv;
    }
  }
  CHECK(run_competition_export({c.db, c.dir + "/live", false}) == 0);
  LeaderboardOptions offline;
  offline.submissions_dir = folder;
  offline.daily_cap = 10;
  const Leaderboard board = build_leaderboard(c.solution, offline);
  const nlohmann::json live = nlohmann::json::parse(read_text(c.dir + "/live/leaderboard.json"));
  const nlohmann::json expected = leaderboard_json(board);
  CHECK(live["board"] == "public");
  CHECK(live["teams"] == expected["teams"]);  // ranks, scores, per collection, entries, failed, times
  REQUIRE(live["submissions"].size() == expected["submissions"].size());
  for (size_t i = 0; i < expected["submissions"].size(); ++i) {
    nlohmann::json a = live["submissions"][i], b = expected["submissions"][i];
    a.erase("message"), b.erase("message");  // name the file differently ("submission 2.csv")
    CHECK(a == b);
  }
}

TEST_CASE("stored boards round-trip exactly, and the stored board equals a re-scored one", "[competition]") {
  Competition c = make_competition("competition_stored_board", 10);
  const ScoreReport report = score_submission(c.solution, check_submission_text(c.valid_csv, c.solution));
  const ScoreReport back = score_boards_from_json(nlohmann::json::parse(score_boards_json(report).dump()));
  for (const auto& [a, b] : {std::pair{&report.public_board, &back.public_board}, std::pair{&report.private_board, &back.private_board}}) {
    CHECK((a->overall == b->overall || (std::isnan(a->overall) && std::isnan(b->overall))));
    for (int k = 0; k < 5; ++k) {
      CHECK(
          (a->collection_score[k] == b->collection_score[k] || (std::isnan(a->collection_score[k]) && std::isnan(b->collection_score[k]))));
      CHECK(a->graphs_scored[k] == b->graphs_scored[k]);
      CHECK(a->graphs_skipped[k] == b->graphs_skipped[k]);
    }
  }
  CHECK_THROWS_WITH(score_boards_from_json(nlohmann::json::parse(R"({"public": {}})")), Catch::Contains("stored scores"));

  // Three outcomes side by side (scored, failed, still queued) on the live board and on the final
  // board: the same ranks and scores as re-scoring every file, without scoring anything again.
  CompetitionStore store = CompetitionStore::open(c.db, false);
  store.add_team("alpha");
  store.add_team("beta");
  store.accept_submission(*store.team_id("alpha"), c.valid_csv, "2026-12-03T12:00:00Z");
  store.accept_submission(*store.team_id("beta"), c.invalid_csv, "2026-12-03T12:00:01Z");
  store.accept_submission(*store.team_id("beta"), c.valid_csv, "2026-12-03T12:00:02Z");
  CHECK(score_queued(store, c.solution) == 3);
  store.accept_submission(*store.team_id("alpha"), c.valid_csv, "2026-12-03T12:00:03Z");  // queued
  for (const bool final_board : {false, true}) {
    const Leaderboard live = stored_leaderboard(store, c.solution, final_board);
    std::vector<SubmissionInput> files;
    for (const StoredSubmission& s : store.submissions(true)) {
      if (s.status == SubmissionStatus::Queued) continue;
      SubmissionInput file;
      file.team = s.team, file.timestamp = s.submitted_at, file.name = "f", file.csv = s.csv;
      files.push_back(file);
    }
    LeaderboardOptions options;
    options.final_board = final_board;
    options.daily_cap = 10;
    const nlohmann::json expected = leaderboard_json(build_leaderboard(c.solution, files, options));
    nlohmann::json got = leaderboard_json(live);
    CHECK(got["teams"][0]["last_submission"] == "2026-12-03T12:00:03Z");  // the queued one counts as alpha's last
    got["teams"][0]["last_submission"] = expected["teams"][0]["last_submission"];
    CHECK(got["teams"] == expected["teams"]);
    REQUIRE(got["submissions"].size() == 4);
    CHECK(got["submissions"][1]["status"] == "invalid");
    CHECK_THAT(got["submissions"][1]["message"].get<std::string>(), Catch::Contains("unknown ID 'not-an-id'"));
    CHECK(got["submissions"][3]["status"] == "pending");
    CHECK(got["submissions"][3]["number"] == 4);  // numbered by store id
    const nlohmann::json detail = stored_detail(store, live.submissions[0], final_board);
    CHECK(detail.contains("private") == final_board);
    for (const nlohmann::json& graph : detail["graphs"]) CHECK((final_board || graph["usage"] == "Public"));
  }
}

TEST_CASE("a version 1 database is migrated: its scores gain their boards", "[competition]") {
  Competition c = make_competition("competition_migrate", 10);
  {
    CompetitionStore store = CompetitionStore::open(c.db, false);
    store.add_team("alpha");
    store.accept_submission(*store.team_id("alpha"), c.valid_csv, "2026-12-03T12:00:00Z");
    score_queued(store, c.solution);
  }
  // Back to schema 1, as graphcost wrote it before commit 3d1bd0c: no boards_json column.
  REQUIRE(std::system(
              ("/usr/bin/python3 -c \"import sqlite3; c = sqlite3.connect('" + c.db +
               "'); c.execute('ALTER TABLE scores DROP COLUMN boards_json'); c.execute('ALTER TABLE submissions DROP COLUMN claimed_at');"
               " c.execute('ALTER TABLE competition DROP COLUMN about'); c.execute('ALTER TABLE competition DROP COLUMN reference_json');"
               " c.execute('PRAGMA user_version = 1'); c.commit()\"")
                  .c_str()) == 0);
  CompetitionStore store = CompetitionStore::open(c.db, false);
  CHECK(store.schema_version() == CompetitionStore::kSchemaVersion);
  const StoredSubmission s = *store.submission(1);
  const ScoreReport boards = score_boards_from_json(nlohmann::json::parse(s.boards_json));
  CHECK(boards.public_board.overall == *s.public_score);
  CHECK(stored_leaderboard(store, c.solution, false).standings.size() == 1);
  CHECK(store.settings().about.empty());  // version 4's columns, empty
  CHECK(store.reference_json().empty());
}

TEST_CASE("the board's about line and reference board are stored whole, checked, and on the board", "[competition]") {
  Competition c = make_competition("competition_about");
  CompetitionStore store = CompetitionStore::open(c.db, false);
  const Leaderboard before = stored_leaderboard(store, c.solution, false);
  CHECK(before.about.empty());
  CHECK(before.reference.is_null());
  CHECK_FALSE(leaderboard_json(before).contains("reference"));
  const std::string reference =
      R"({"title": "Real files", "measures": "tau-b", "columns": [{"name": "unet3d", "metric": "Kendall tau-b"}],
          "rows": [{"team": "alpha", "scores": [0.25]}, {"team": "beta", "scores": [null], "note": "not run"}]})";
  store.set_about("The test split is simulated.");
  store.set_reference(reference);
  const Leaderboard after = stored_leaderboard(store, c.solution, false);
  CHECK(after.about == "The test split is simulated.");
  CHECK(after.reference["rows"][1]["note"] == "not run");
  const nlohmann::json json = leaderboard_json(after);
  CHECK(json["about"] == "The test split is simulated.");
  CHECK(json["reference"]["columns"][0]["name"] == "unet3d");
  // Refused whole, and what was stored stays.
  CHECK_THROWS_WITH(store.set_reference(R"({"title": "x", "measures": "y", "columns": [], "rows": []})"),
                    Catch::Contains("columns") && Catch::Contains("0 columns"));
  CHECK_THROWS_WITH(store.set_about("two\nlines"), Catch::Contains("without control characters"));
  CHECK_THROWS_WITH(store.set_about(std::string(601, 'a')), Catch::Contains("at most 600 bytes"));
  CHECK(store.settings().about == "The test split is simulated.");
  CHECK(nlohmann::json::parse(store.reference_json()) == nlohmann::json::parse(reference));
  store.set_reference("");
  CHECK(store.reference_json().empty());
  CHECK(stored_leaderboard(store, c.solution, false).reference.is_null());
}

TEST_CASE("the public ID list validates like the solution and refuses a malformed list", "[competition]") {
  Competition c = make_competition("competition_ids", 10);
  const Solution ids = parse_id_list(id_list_csv(c.solution), "ids");
  REQUIRE(ids.entries.size() == c.solution.entries.size());
  for (size_t i = 0; i < ids.entries.size(); ++i) {
    CHECK(ids.entries[i].id == c.solution.entries[i].id);
    CHECK(ids.entries[i].config_count() == c.solution.entries[i].config_count());
  }
  CHECK(id_list_csv(c.solution).find("Public") == std::string::npos);
  for (const std::string* csv : {&c.valid_csv, &c.invalid_csv}) {
    CHECK(check_submission_text(*csv, ids).format_errors("f") == check_submission_text(*csv, c.solution).format_errors("f"));
  }
  CHECK_THROWS_WITH(parse_id_list("ID,Usage\n", "ids"), Catch::Contains("the header 'ID,Configs'"));
  CHECK_THROWS_WITH(parse_id_list("ID,Configs\nlayout:xla:random:a,0\n", "ids"), Catch::Contains("line 2, Configs"));
  CHECK_THROWS_WITH(parse_id_list("ID,Configs\nlayout:xla:random:a,99999999999\n", "ids"), Catch::Contains("a config count from 1 to"));
  CHECK_THROWS_WITH(parse_id_list("ID,Configs\nnope:a,3\n", "ids"), Catch::Contains("one of the 5 collections"));
  CHECK_THROWS_WITH(parse_id_list("ID,Configs\ntile:xla:a,3\ntile:xla:a,3\n", "ids"), Catch::Contains("unique IDs"));
  CHECK_THROWS_WITH(parse_id_list("ID,Configs\ntile:xla:a,3,4\n", "ids"), Catch::Contains("2 fields"));
}

TEST_CASE("competition submit stores a valid file for a team and refuses invalid ones and the cap", "[competition]") {
  Competition c = make_competition("competition_submit", 1);
  {
    CompetitionStore store = CompetitionStore::open(c.db, false);
    store.add_team("alpha");
  }
  std::ofstream(c.dir + "/invalid.csv") << c.invalid_csv;
  CHECK(run_competition_submit({c.db, "alpha", c.dir + "/invalid.csv"}) == 2);
  CHECK(run_competition_submit({c.db, "alpha", c.dir + "/valid.csv"}) == 0);
  CHECK(run_competition_submit({c.db, "alpha", c.dir + "/valid.csv"}) == 2);  // cap 1
  CHECK_THROWS_WITH(run_competition_submit({c.db, "nobody", c.dir + "/valid.csv"}), Catch::Contains("one of the competition's teams"));
  CompetitionStore store = CompetitionStore::open(c.db, false);
  CHECK(store.submissions().size() == 1);
  CHECK(store.submission(1)->status == SubmissionStatus::Queued);
}

TEST_CASE("team names that read alike, hide characters or are not UTF-8 are refused", "[competition]") {
  Competition c = make_competition("competition_team_names");
  CompetitionStore store = CompetitionStore::open(c.db, false);
  store.add_team("alpha");
  for (const std::string& alike : {std::string("ALPHA"), std::string("\xef\xbd\x81lpha") /* fullwidth a */, std::string("Alpha")}) {
    CHECK_THROWS_WITH(store.add_team(alike), Catch::Contains("reads as the existing team 'alpha'"));
  }
  const std::pair<std::string, std::string> hidden[] = {
      {"al\xe2\x80\xaepha", "visible characters"},  // U+202E right-to-left override
      {"al\xe2\x80\x8bpha", "visible characters"},  // U+200B zero-width space
      {"al\xc2\xa0pha", "visible characters"},      // U+00A0 no-break space
      {"alpha\xff", "valid UTF-8"},
      {"\xc0\xa0", "valid UTF-8"},  // an overlong encoding
      {"beta ", "no trailing space"},
      {" beta", "no leading space"},
      {"be  ta", "two spaces in a row"},
      {"", "1 to 64 bytes"},
  };
  for (const auto& [name, rule] : hidden) CHECK_THROWS_WITH(store.add_team(name), Catch::Contains(rule));
  // Stored composed: "E" + U+0301 is the same team as U+00C9, found by either spelling.
  store.add_team("E\xcc\x81quipe 7");
  CHECK(store.team_name(*store.team_id("\xc3\x89quipe 7")) == "\xc3\x89quipe 7");
  CHECK(store.team_id("E\xcc\x81quipe 7") == store.team_id("\xc3\x89quipe 7"));
  CHECK_THROWS_WITH(store.add_team("\xc3\x89quipe 7"), Catch::Contains("a team of that name exists"));
  CHECK_NOTHROW(store.add_team("\xe3\x83\x81\xe3\x83\xbc\xe3\x83\xa0"));  // チーム
  CHECK(team_name_key("\xef\xbc\xa1lpha") == "alpha");
}

TEST_CASE("final picks name each submission once; empty files and hard links are not databases", "[competition]") {
  Competition c = make_competition("competition_store_files", 10);
  {
    CompetitionStore store = CompetitionStore::open(c.db, false);
    store.add_team("alpha");
    const int64_t id = *store.accept_submission(*store.team_id("alpha"), c.valid_csv, "2026-12-03T12:00:00Z");
    score_queued(store, c.solution);
    CHECK_THROWS_WITH(store.set_finals(*store.team_id("alpha"), {id, id}), Catch::Contains("distinct submission ids"));
  }
  testing::write_bytes(c.dir + "/empty.sqlite", {});
  CHECK_THROWS_WITH(CompetitionStore::open(c.dir + "/empty.sqlite", false), Catch::Contains("an empty file"));
  CHECK(fs::file_size(c.dir + "/empty.sqlite") == 0);  // nothing written into it
  fs::remove(c.dir + "/linked.sqlite");
  fs::create_hard_link(c.db, c.dir + "/linked.sqlite");
  CHECK_THROWS_WITH(CompetitionStore::open(c.db, false), Catch::Contains("2 hard links"));
  CHECK_THROWS_WITH(CompetitionStore::open(c.dir + "/linked.sqlite", false), Catch::Contains("2 hard links"));
  fs::remove(c.dir + "/linked.sqlite");
  CHECK_NOTHROW(CompetitionStore::open(c.db, false));
}

TEST_CASE("a scoring worker whose database fails puts back what it held before claiming more", "[competition]") {
  Competition c = make_competition("competition_worker_recovery", 10);
  const std::chrono::milliseconds short_wait(50);
  CompetitionStore organiser = CompetitionStore::open(c.db, false, short_wait);
  organiser.add_team("alpha");
  const int64_t team = *organiser.team_id("alpha");
  organiser.accept_submission(team, c.valid_csv, "2026-12-03T12:00:00Z");
  organiser.accept_submission(team, c.valid_csv, "2026-12-03T12:00:01Z");

  ScoringWorker worker(c.db, c.solution, short_wait);
  CHECK(worker.step().finished == 1);  // the first, scored

  // Another process holds the write lock while the worker scores the second: it claims it, but can
  // neither store the outcome nor put it back.
  {
    CompetitionStore claimer = CompetitionStore::open(c.db, false, short_wait);
    REQUIRE(claimer.claim_next() == 2);  // as the worker's claim, before the lock
  }
  REQUIRE(std::system(("/usr/bin/python3 -c \"import sqlite3, time; c = sqlite3.connect('" + c.db +
                       "', isolation_level=None); c.execute('BEGIN IMMEDIATE'); open('" + c.dir +
                       "/locked', 'w').close(); time.sleep(1.5); c.execute('ROLLBACK')\" &")
                          .c_str()) == 0);
  for (int i = 0; i < 100 && !fs::exists(c.dir + "/locked"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(fs::exists(c.dir + "/locked"));
  ScoringWorker restarted(c.db, c.solution, short_wait);  // a worker recovering from a stop: must put back first
  const ScoringWorker::Step failed = restarted.step();
  CHECK_FALSE(failed.error.empty());
  CHECK(failed.retry_in >= std::chrono::milliseconds(1000));
  CHECK(restarted.recovering());
  StoreCounts counts = organiser.counts();
  CHECK(counts.scoring == 1);
  CHECK_FALSE(counts.scoring_since.empty());           // `status` shows since when
  const ScoringWorker::Step again = restarted.step();  // still locked: a longer wait
  CHECK(again.retry_in > failed.retry_in);
  std::this_thread::sleep_for(std::chrono::milliseconds(1700));  // the lock is gone
  const ScoringWorker::Step recovered = restarted.step();
  CHECK(recovered.error.empty());
  CHECK(recovered.put_back == 1);
  CHECK(recovered.finished == 1);
  counts = organiser.counts();
  CHECK(counts.scoring == 0);
  CHECK(counts.scored == 2);
  CHECK(counts.scoring_since.empty());
}
