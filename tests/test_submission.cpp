// Submission validation: the rules, the hostile-submission corpus, and the official sample
// submission against a solution built from the shared labelled files.
#include <catch2/catch.hpp>

#include <filesystem>

#include "scoring/solution.h"
#include "scoring/submission.h"
#include "test_support.h"

using namespace graphcost;

namespace {

SolutionEntry entry(const std::string& id, int configs, Usage usage = Usage::Public) {
  SolutionEntry e;
  e.id = id;
  e.collection = id.substr(0, id.rfind(':'));
  e.usage = usage;
  for (int i = 0; i < configs; ++i) {
    e.runtime_ns.push_back(1000 + 37 * ((i * 5) % configs));
    if (e.is_tile()) e.normalizer_ns.push_back(1000);
  }
  return e;
}

// tile (8 configs), layout xla default (5), layout nlp random (4).
Solution small_solution() {
  Solution solution;
  solution.entries = {entry("tile:xla:a", 8), entry("layout:xla:default:b", 5), entry("layout:nlp:random:c", 4, Usage::Private)};
  solution.rebuild_index();
  return solution;
}

const std::string kValidRows = "tile:xla:a,3;1;0\nlayout:xla:default:b,4;3;2;1;0\nlayout:nlp:random:c,0;1;2;3\n";

SubmissionCheck check(const std::string& text) { return check_submission_text(text, small_solution()); }

// The listed errors joined, for Contains() matching.
std::string errors_of(const SubmissionCheck& result) { return result.format_errors("sub.csv"); }

}  // namespace

TEST_CASE("a valid submission passes, with BOM, CRLF, quotes and final newline tolerated", "[submission]") {
  const SubmissionCheck plain = check("ID,TopConfigs\n" + kValidRows);
  INFO(errors_of(plain));
  REQUIRE(plain.valid());
  CHECK(plain.rows == 3);
  CHECK(plain.predicted_order[small_solution().index_by_id.at("tile:xla:a")] == std::vector<int32_t>{3, 1, 0});
  std::string crlf = "\xEF\xBB\xBFID,TopConfigs\r\ntile:xla:a,3\r\n\"layout:xla:default:b\",\"4;3;2;1;0\"\r\nlayout:nlp:random:c,0;1;2;3";
  CHECK(check(crlf).valid());
  CHECK(check("ID,TopConfigs\n" + kValidRows + "\n\n").valid());
}

TEST_CASE("file-level problems", "[submission]") {
  CHECK_THAT(errors_of(check("")), Catch::Contains("empty"));
  const SubmissionCheck header_only = check("ID,TopConfigs\n");
  CHECK_THAT(errors_of(header_only), Catch::Contains("missing 3 of 3 IDs"));
  const SubmissionCheck wrong_header = check("Id,Configs\n" + kValidRows);
  CHECK_THAT(errors_of(wrong_header), Catch::Contains("sub.csv:1:1: expected the header 'ID,TopConfigs', got 'Id,Configs'"));
  CHECK(wrong_header.error_count == 1);
}

TEST_CASE("row and token errors carry line, column and the offending token", "[submission]") {
  auto one_error = [](const std::string& rows, const std::string& expected) {
    const SubmissionCheck result = check("ID,TopConfigs\n" + rows);
    INFO(errors_of(result));
    CHECK_FALSE(result.valid());
    CHECK_THAT(errors_of(result), Catch::Contains(expected));
  };
  one_error("tile:xla:a,3;-1;0\nlayout:xla:default:b,4;3;2;1;0\nlayout:nlp:random:c,0;1;2;3\n", "sub.csv:2:14: negative config index '-1'");
  one_error("tile:xla:a,3;99999999999;0\nlayout:xla:default:b,4;3;2;1;0\nlayout:nlp:random:c,0;1;2;3\n",
            "sub.csv:2:14: config index '99999999999' out of range [0, 8)");
  one_error("tile:xla:a,3;x7;0\nlayout:xla:default:b,4;3;2;1;0\nlayout:nlp:random:c,0;1;2;3\n",
            "sub.csv:2:14: config index is not a non-negative integer: 'x7'");
  one_error("tile:xla:a,3;3\nlayout:xla:default:b,4;3;2;1;0\nlayout:nlp:random:c,0;1;2;3\n", "sub.csv:2:14: config index '3' listed twice");
  one_error("tile:xla:a,3;;1\nlayout:xla:default:b,4;3;2;1;0\nlayout:nlp:random:c,0;1;2;3\n", "sub.csv:2:14: empty config index");
  one_error("tile:xla:a,\nlayout:xla:default:b,4;3;2;1;0\nlayout:nlp:random:c,0;1;2;3\n", "sub.csv:2:12: TopConfigs is empty");
  one_error("tile:xla:a,3\nlayout:xla:default:b,4;3;2;0\nlayout:nlp:random:c,0;1;2;3\n",
            "sub.csv:3:22: layout rows must list every config once: 4 of 5 listed; missing 1");
  one_error(kValidRows + "tile:xla:a,1\n", "sub.csv:5:1: duplicate ID 'tile:xla:a' (first on line 2)");
  one_error(kValidRows + "tile:xla:zzz,1\n", "sub.csv:5:1: unknown ID 'tile:xla:zzz'");
  one_error("tile:xla:a,3\nlayout:nlp:random:c,0;1;2;3\n", "missing 1 of 3 IDs (no row), e.g. 'layout:xla:default:b'");
  one_error(kValidRows + "tile:xla:a,1,2\n", "sub.csv:5:13: expected 2 fields");
  one_error(kValidRows + "no comma here\n", "sub.csv:5:14: expected 2 fields 'ID,TopConfigs', found no ','");
  one_error(kValidRows + "\ntile:xla:a,1\n", "sub.csv:5:1: empty line");
  one_error(std::string("tile:xla:a,3;1\0;0\n", 18) + "layout:xla:default:b,4;3;2;1;0\nlayout:nlp:random:c,0;1;2;3\n",
            "sub.csv:2:15: NUL byte");
  one_error("tile:xla:\xff,3\n" + kValidRows, "sub.csv:2:10: invalid UTF-8 byte 0xff");
  one_error("tile:xla:\xc0\xaf,3\n" + kValidRows, "invalid UTF-8 byte 0xc0");  // overlong '/'
}

TEST_CASE("messages never contain solution runtimes", "[submission]") {
  const Solution solution = small_solution();
  const SubmissionCheck result = check_submission_text("ID,TopConfigs\ntile:xla:a,9\nlayout:xla:default:b,0\n", solution);
  const std::string text = errors_of(result);
  for (const SolutionEntry& e : solution.entries) {
    for (int64_t runtime : e.runtime_ns) CHECK(text.find(std::to_string(runtime)) == std::string::npos);
  }
}

TEST_CASE("hostile submissions: huge lines and row counts stay bounded and precise", "[submission][hostile]") {
  const Solution solution = small_solution();
  SECTION("one 10 MB line") {
    std::string line = "tile:xla:a,";
    while (line.size() < (10u << 20)) line += "1;";
    line += "1";
    const testing::ChildResult child = testing::run_in_child(200ull << 20, [&](std::string& out) {
      const SubmissionCheck result = check_submission_text("ID,TopConfigs\n" + line + "\n", solution);
      out = result.format_errors("sub.csv");
      return result.valid() ? 0 : 2;
    });
    CHECK(child.exit_code == 2);
    CHECK_THAT(child.output, Catch::Contains("sub.csv:2:14: config index '1' listed twice"));
    CHECK_THAT(child.output, Catch::Contains("more errors"));
  }
  SECTION("10^6 rows of unknown IDs") {
    std::string text = "ID,TopConfigs\n";
    text.reserve(40u << 20);
    for (int i = 0; i < 1000000; ++i) text += "layout:xla:default:x" + std::to_string(i) + ",0;1\n";
    const testing::ChildResult child = testing::run_in_child(200ull << 20, [&](std::string& out) {
      const SubmissionCheck result = check_submission_text(text, solution);
      out = result.format_errors("sub.csv") + "count=" + std::to_string(result.error_count);
      return result.errors.size() == SubmissionCheck::kMaxListedErrors ? 2 : 3;
    });
    CHECK(child.exit_code == 2);
    CHECK_THAT(child.output, Catch::Contains("sub.csv:2:1: unknown ID 'layout:xla:default:x0'"));
    CHECK_THAT(child.output, Catch::Contains("count=1000001"));  // + the missing IDs
  }
  SECTION("binary garbage") {
    std::string garbage;
    for (int i = 0; i < 100000; ++i) garbage += static_cast<char>((i * 7919) % 256);
    const SubmissionCheck result = check_submission_text(garbage, solution);
    CHECK_FALSE(result.valid());
    CHECK(result.errors.size() <= SubmissionCheck::kMaxListedErrors);
  }
}

TEST_CASE("the official sample submission fails against a solution of the shared labelled files", "[submission][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const Solution solution = solution_from_tree(testing::data_dir() + "/tpugraphs", "train,valid", 0, 0.5);
  REQUIRE(solution.entries.size() == 6);
  const SubmissionCheck result = check_submission_file(testing::real_file("sample_submission.csv"), solution);
  CHECK(result.rows == 894);
  CHECK(result.error_count == 894 + 1);  // every row an unknown ID, plus the missing IDs
  CHECK_THAT(errors_of(result), Catch::Contains("sub.csv:2:1: unknown ID 'tile:xla:"));
  CHECK_THAT(errors_of(result), Catch::Contains("... and 875 more errors"));
}

TEST_CASE("solution files round trip and stratify Public/Private per collection", "[solution][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const Solution solution = solution_from_tree(testing::data_dir() + "/tpugraphs", "train,valid", 3, 0.5);
  const std::string path = testing::scratch_dir("solution") + "/solution.csv";
  write_solution(solution, path);
  const Solution again = read_solution(path);
  REQUIRE(again.entries.size() == solution.entries.size());
  for (size_t i = 0; i < again.entries.size(); ++i) {
    CHECK(again.entries[i].id == solution.entries[i].id);
    CHECK(again.entries[i].usage == solution.entries[i].usage);
    CHECK(again.entries[i].runtime_ns == solution.entries[i].runtime_ns);
    CHECK(again.entries[i].normalizer_ns == solution.entries[i].normalizer_ns);
  }
  // Two tile graphs and two xla random graphs: one of each Public, one Private.
  for (const std::string collection : {"tile:xla", "layout:xla:random"}) {
    int public_count = 0, total = 0;
    for (const SolutionEntry& e : solution.entries) {
      if (e.collection != collection) continue;
      ++total;
      public_count += e.usage == Usage::Public;
    }
    CHECK(total == 2);
    CHECK(public_count == 1);
  }
  CHECK_THROWS_WITH(solution_from_tree(testing::data_dir() + "/tpugraphs", "test", 0, 0.5), Catch::Contains("hidden runtimes"));
}

TEST_CASE("solution_from_tree refuses a collection the competition does not score (a CPU-measured one)") {
  // A labelled tree under layout/cpu/random: its IDs belong to none of the five collections, and
  // scoring them would count them nowhere; the solution says so instead.
  const std::string tree = testing::generate_tree("cpu_collection_tree", "layout:xla:random", 4, 5, 200, 10);
  std::filesystem::create_directories(tree + "/npz/layout/cpu");
  std::filesystem::rename(tree + "/npz/layout/xla/random", tree + "/npz/layout/cpu/random");
  CHECK_THROWS_WITH(solution_from_tree(tree, "valid", 0, 0.5),
                    Catch::Contains("collection") && Catch::Contains("layout:cpu:random") && Catch::Contains("evaluate-model"));
}
