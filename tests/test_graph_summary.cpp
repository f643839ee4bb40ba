#include <catch2/catch.hpp>

#include "data/graph_summary.h"
#include "data/opcodes.h"
#include "test_support.h"

using namespace graphcost;

TEST_CASE("summary of a labelled layout file", "[summary][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const TpuGraph graph = load_tpu_graph(testing::real_file("npz/layout/xla/default/train/unet3d.npz"));
  const GraphSummary summary = summarize_graph(graph);
  CHECK(summary.kind == GraphKind::Layout);
  CHECK(summary.nodes == 2774);
  CHECK(summary.edges == 4730);
  CHECK(summary.configurable_nodes == 56);
  CHECK(summary.computations == 2);
  CHECK(summary.labelled);
  CHECK(summary.runtime_min_ns == 23270598358);
  CHECK(summary.runtime_max_ns == 70950843334);
  CHECK(summary.relative_spread == Approx((70950843334.0 - 23270598358.0) / 23270598358.0));
  int64_t total = 0;
  for (const auto& [opcode, count] : summary.opcode_counts) total += count;
  CHECK(total == 2774);
  CHECK(std::is_sorted(summary.opcode_counts.begin(), summary.opcode_counts.end(),
                       [](const auto& a, const auto& b) { return a.second > b.second; }));
  const std::string text = format_graph_summary(summary);
  CHECK_THAT(text, Catch::Contains("layout:xla:default:unet3d"));
  CHECK_THAT(text, Catch::Contains("2,774"));
  CHECK_THAT(text, Catch::Contains("convolution"));
  const nlohmann::json json = graph_summary_json(summary);
  CHECK(json["configs"] == 1159);
  CHECK(json["runtime_max_ns"] == 70950843334);
}

TEST_CASE("summary of a hidden tile file", "[summary][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const TpuGraph graph = load_tpu_graph(testing::real_file("npz/tile/xla/test/0ac539372cc77cc6791794b369b984e1.npz"));
  const GraphSummary summary = summarize_graph(graph);
  CHECK_FALSE(summary.labelled);
  CHECK(summary.configs == 2951);
  CHECK(summary.distinct_configs <= summary.configs);
  CHECK_THAT(format_graph_summary(summary), Catch::Contains("hidden"));
  CHECK_FALSE(graph_summary_json(summary).contains("runtime_min_ns"));
}

TEST_CASE("opcode names match the TpuGraphs vocabulary", "[opcodes]") {
  CHECK(opcode_name(0) == "unknown");
  CHECK(opcode_name(26) == "convolution");
  CHECK(opcode_name(34) == "dot");
  CHECK(opcode_name(45) == "get-tuple-element");
  CHECK(opcode_name(63) == "parameter");
  CHECK(opcode_name(100) == "tuple");
  CHECK(opcode_name(102) == "while");
  CHECK(opcode_name(120) == "tan");
  CHECK(opcode_name(121) == "out-of-range");
  CHECK(opcode_id("reshape") == 75);
  CHECK(opcode_id("no-such-op") == -1);
}
