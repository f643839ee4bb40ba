#include <catch2/catch.hpp>

#include <cmath>

#include "scoring/scorer.h"

using namespace graphcost;

namespace {

SolutionEntry make_entry(const std::string& id, std::vector<int64_t> runtimes, Usage usage) {
  SolutionEntry e;
  e.id = id;
  e.collection = id.substr(0, id.rfind(':'));
  e.usage = usage;
  e.runtime_ns = std::move(runtimes);
  if (e.is_tile()) e.normalizer_ns.assign(e.runtime_ns.size(), 100);
  return e;
}

}  // namespace

TEST_CASE("scores per graph, per collection and overall, on both boards", "[scorer]") {
  Solution solution;
  solution.entries = {
      make_entry("tile:xla:t1", {300, 200, 100, 400, 500, 600}, Usage::Public),  // best = config 2
      make_entry("tile:xla:t2", {100, 200}, Usage::Public),
      make_entry("tile:xla:t3", {50, 50, 50}, Usage::Public),  // constant: skipped
      make_entry("layout:xla:random:l1", {30, 10, 20}, Usage::Public),
      make_entry("layout:nlp:default:l2", {1, 2, 3, 4}, Usage::Private),
  };
  solution.rebuild_index();
  const SubmissionCheck check = check_submission_text(
      "ID,TopConfigs\n"
      "tile:xla:t1,0;1;3;4;5;2\n"  // best outside the first 5: 2 - 200/100 = 0
      "tile:xla:t2,0\n"            // best first: 1
      "tile:xla:t3,0\n"
      "layout:xla:random:l1,1;0;2\n"      // tau 1/3
      "layout:nlp:default:l2,3;2;1;0\n",  // tau -1
      solution);
  INFO(check.format_errors("sub"));
  REQUIRE(check.valid());
  const ScoreReport report = score_submission(solution, check);
  const BoardScore& pub = report.public_board;
  CHECK(pub.collection_score[0] == Approx(0.5));  // mean of 0 and 1; t3 skipped
  CHECK(pub.graphs_scored[0] == 2);
  CHECK(pub.graphs_skipped[0] == 1);
  CHECK(pub.collection_score[1] == Approx(1.0 / 3.0));
  CHECK(std::isnan(pub.collection_score[2]));
  CHECK(pub.overall == Approx((0.5 + 1.0 / 3.0) / 2));  // mean over collections with scored graphs
  const BoardScore& pri = report.private_board;
  CHECK(pri.collection_score[4] == Approx(-1.0));
  CHECK(pri.overall == Approx(-1.0));
  REQUIRE(report.graphs.size() == 5);
  const GraphScore& l1 = report.graphs[solution.index_by_id.at("layout:xla:random:l1")];
  CHECK(l1.pair_accuracy == Approx(2.0 / 3.0));
  CHECK(l1.top_k_error[0] == Approx(0.0));
  const GraphScore& t1 = report.graphs[solution.index_by_id.at("tile:xla:t1")];
  CHECK(t1.top_k_error[0] == Approx(2.0));  // 300/100 - 1
  CHECK(t1.top_k_error[1] == Approx(1.0));
  CHECK(t1.top_k_error[2] == Approx(0.0));  // all 6 configs listed
  const nlohmann::json public_only = score_report_json(report, false);
  CHECK_FALSE(public_only.contains("private"));
  for (const auto& g : public_only["graphs"]) CHECK(g["usage"] == "Public");
  CHECK_THAT(format_score_report(report), Catch::Contains("overall"));
}
