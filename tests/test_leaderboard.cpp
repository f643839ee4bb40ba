#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "scoring/leaderboard.h"
#include "test_support.h"

using namespace graphcost;
namespace fs = std::filesystem;

namespace {

// One tile graph (Public) and one layout graph (Private); the scores of a submission are set by
// which tile config comes first and how the layout is ordered.
Solution board_solution() {
  Solution solution;
  SolutionEntry tile;
  tile.id = "tile:xla:k";
  tile.collection = "tile:xla";
  tile.usage = Usage::Public;
  tile.runtime_ns = {100, 200, 400, 800, 1600, 3200, 6400};
  tile.normalizer_ns.assign(7, 100);
  SolutionEntry layout;
  layout.id = "layout:xla:random:g";
  layout.collection = "layout:xla:random";
  layout.usage = Usage::Private;
  layout.runtime_ns = {10, 20, 30};
  solution.entries = {tile, layout};
  solution.rebuild_index();
  return solution;
}

// Tile score = 2 - runtime[first of the first five] / 100 when configs 0..4 are excluded as needed.
void submit(const fs::path& root, const std::string& team, const std::string& stamp, const std::string& tile_order,
            const std::string& layout_order) {
  fs::create_directories(root / team);
  std::ofstream(root / team / (stamp + ".csv"))
      << "ID,TopConfigs\ntile:xla:k," << tile_order << "\nlayout:xla:random:g," << layout_order << "\n";
}

}  // namespace

TEST_CASE("timestamps in file names", "[leaderboard]") {
  CHECK(parse_submission_timestamp("2023-11-30T17-05-00Z") == "2023-11-30T17:05:00Z");
  CHECK(parse_submission_timestamp("2023-11-30T17:05:00Z") == "2023-11-30T17:05:00Z");
  CHECK(parse_submission_timestamp("20231130T170500Z") == "2023-11-30T17:05:00Z");
  CHECK(parse_submission_timestamp("2023-13-30T17-05-00Z").empty());
  CHECK(parse_submission_timestamp("final").empty());
  // Only real UTC times of 2000-2099: the site's Date.parse fails on the others, and a year 0000
  // entry would win every tie.
  CHECK(parse_submission_timestamp("2023-11-30T17-05-60Z").empty());
  CHECK(parse_submission_timestamp("2023-02-31T10-00-00Z").empty());
  CHECK(parse_submission_timestamp("2023-02-29T10-00-00Z").empty());
  CHECK(parse_submission_timestamp("2024-02-29T10-00-00Z") == "2024-02-29T10:00:00Z");
  CHECK(parse_submission_timestamp("2100-02-29T10-00-00Z").empty());
  CHECK(parse_submission_timestamp("0000-01-01T00-00-00Z").empty());
  CHECK(parse_submission_timestamp("9999-01-01T00-00-00Z").empty());
  CHECK(parse_submission_timestamp("2023-04-31T00-00-00Z").empty());
  CHECK(parse_submission_timestamp("2023-04-30T23-59-59Z") == "2023-04-30T23:59:59Z");
}

TEST_CASE("links in the submissions folder are skipped, never followed", "[leaderboard]") {
  const fs::path root = testing::scratch_dir("leaderboard_links");
  submit(root, "alpha", "2023-11-29T10-00-00Z", "0", "0;1;2");
  const fs::path outside = testing::scratch_dir("leaderboard_links_outside");
  submit(outside, "secret", "2023-11-29T10-00-00Z", "0", "0;1;2");
  fs::create_directories(root / "eve");
  fs::create_symlink(outside / "secret" / "2023-11-29T10-00-00Z.csv", root / "eve" / "2023-11-29T11-00-00Z.csv");
  fs::create_directory_symlink(outside / "secret", root / "mallory");
  LeaderboardOptions options;
  options.submissions_dir = root.string();
  const Leaderboard board = build_leaderboard(board_solution(), options);
  REQUIRE(board.submissions.size() == 1);
  CHECK(board.submissions[0].team == "alpha");
  REQUIRE(board.skipped.size() == 2);
  for (const std::string& skipped : board.skipped) CHECK(skipped.find("(a symbolic link)") != std::string::npos);
}

TEST_CASE("a public board written over a final one leaves no private details", "[leaderboard]") {
  const fs::path root = testing::scratch_dir("leaderboard_stale");
  submit(root, "alpha", "2023-11-29T10-00-00Z", "0", "0;1;2");
  submit(root, "beta", "2023-11-29T11-00-00Z", "1;2;3;4;5", "2;1;0");
  const std::string out = testing::scratch_dir("leaderboard_stale_out");
  LeaderboardOptions options;
  options.submissions_dir = root.string();
  options.final_board = true;
  write_leaderboard(build_leaderboard(board_solution(), options), out);
  CHECK(fs::exists(out + "/details/2.json"));
  fs::remove_all(root / "beta");
  std::ofstream(out + "/details/notes.txt") << "kept: not a detail file";
  options.final_board = false;
  write_leaderboard(build_leaderboard(board_solution(), options), out);
  CHECK(fs::exists(out + "/details/1.json"));
  CHECK_FALSE(fs::exists(out + "/details/2.json"));
  CHECK(fs::exists(out + "/details/notes.txt"));
  std::ifstream detail(out + "/details/1.json");
  const std::string text((std::istreambuf_iterator<char>(detail)), std::istreambuf_iterator<char>());
  CHECK(text.find("private") == std::string::npos);
}

TEST_CASE("best entry per team, ties to the earlier submission, daily cap, failed not counted", "[leaderboard]") {
  const fs::path root = testing::scratch_dir("leaderboard_submissions");
  const std::string xss = "<img src=x onerror=alert(1)>";
  // Public (tile) scores: order starting "0" -> 1.0; "1;2;3;4;5" -> 0.0 (best of the five is 200).
  submit(root, "alpha", "2023-11-29T10-00-00Z", "1;2;3;4;5", "0;1;2");
  submit(root, "alpha", "2023-11-29T11-00-00Z", "0", "2;1;0");          // public 1.0
  submit(root, "gamma", "2023-11-29T12-00-00Z", "6;5;4;3;0", "0;1;2");  // public 1.0 too, later -> below alpha
  submit(root, xss, "2023-11-30T09-00-00Z", "2", "0;1;2");              // 2 - 4 = -2
  std::ofstream(root / "gamma" / "not-a-time.csv") << "ID,TopConfigs\n";
  // beta: an invalid submission first (does not count), then 6 valid on one day: the 6th is capped.
  fs::create_directories(root / "beta");
  std::ofstream(root / "beta" / "2023-11-30T00-00-00Z.csv") << "ID,TopConfigs\ntile:xla:k,99\n";
  for (int i = 1; i <= 6; ++i) submit(root, "beta", "2023-11-30T0" + std::to_string(i) + "-00-00Z", "2;1", "0;1;2");

  LeaderboardOptions options;
  options.submissions_dir = root.string();
  const Leaderboard board = build_leaderboard(board_solution(), options);
  REQUIRE(board.standings.size() == 4);
  CHECK(board.standings[0].team == "alpha");
  CHECK(board.standings[0].score == Approx(1.0));
  CHECK(board.standings[1].team == "gamma");
  CHECK(board.standings[1].score == Approx(1.0));
  CHECK(board.standings[2].team == "beta");
  CHECK(board.standings[2].score == Approx(0.0));  // "2;1": best of the listed is 200 -> 2 - 2
  CHECK(board.standings[3].team == xss);
  CHECK(board.standings[2].entries == 5);
  CHECK(board.standings[2].failed == 1);
  CHECK(board.standings[1].failed == 1);  // the file name that is not a timestamp
  int capped = 0;
  for (const SubmissionRecord& record : board.submissions) capped += record.status == EntryStatus::OverDailyCap;
  CHECK(capped == 1);
  const nlohmann::json json = leaderboard_json(board);
  CHECK(json["board"] == "public");
  CHECK(json["teams"][3]["team"] == xss);
  for (const auto& submission : json["submissions"]) CHECK_FALSE(submission.contains("private"));

  const std::string out = testing::scratch_dir("leaderboard_out");
  write_leaderboard(board, out);
  CHECK(fs::exists(out + "/leaderboard.json"));
  std::ifstream detail_file(out + "/details/2.json");
  const nlohmann::json detail = nlohmann::json::parse(detail_file);
  for (const auto& graph : detail["graphs"]) CHECK(graph["usage"] == "Public");  // private graphs stay hidden
}

TEST_CASE("a team folder name that is not UTF-8 does not break the board", "[leaderboard]") {
  const fs::path root = testing::scratch_dir("leaderboard_latin1");
  submit(root, "caf\xe9", "2023-11-29T10-00-00Z", "0", "0;1;2");
  LeaderboardOptions options;
  options.submissions_dir = root.string();
  const Leaderboard board = build_leaderboard(board_solution(), options);
  const std::string out = testing::scratch_dir("leaderboard_latin1_out");
  write_leaderboard(board, out);
  std::ifstream file(out + "/leaderboard.json");
  const nlohmann::json json = nlohmann::json::parse(file);
  CHECK(json["teams"][0]["team"] == "caf\xef\xbf\xbd");  // the invalid byte became U+FFFD
}

TEST_CASE("the final board scores each team's selected best-public submissions on the private split", "[leaderboard]") {
  const fs::path root = testing::scratch_dir("leaderboard_final");
  // alpha: best public has a bad private; its second-best public has the best private.
  submit(root, "alpha", "2023-11-29T10-00-00Z", "0", "2;1;0");    // public 1.0, private -1
  submit(root, "alpha", "2023-11-29T11-00-00Z", "1;0", "0;1;2");  // public 1.0 (0 among first five), private 1
  submit(root, "alpha", "2023-11-29T12-00-00Z", "6;5", "0;1;2");  // public 2 - 32 < 0: not selected
  submit(root, "delta", "2023-11-29T13-00-00Z", "0", "1;0;2");    // private 1/3
  LeaderboardOptions options;
  options.submissions_dir = root.string();
  options.final_board = true;
  const Leaderboard board = build_leaderboard(board_solution(), options);
  REQUIRE(board.standings.size() == 2);
  CHECK(board.standings[0].team == "alpha");
  CHECK(board.standings[0].score == Approx(1.0));
  CHECK(board.standings[0].best_submission == 2);
  CHECK(board.standings[1].score == Approx(1.0 / 3.0));
  CHECK(leaderboard_json(board)["board"] == "private");
}
