// HLO modules as an attacker or a careless tool writes them: what the parser, the graph, the features
// and the configs do with sizes past 64 bits, broken layouts, names that are not text, dynamic
// dimensions, and near-complete tile samples. Each case was a defect (the hardening issue's list):
// a hang, a NaN written, a crash, or a silent misread. The command-line side (memory, files, exit
// codes) is tests/hostile/hostile_hlo.py.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <string>

#include "common/input_error.h"
#include "data/tile_configs.h"
#include "hlo/fusion_kernels.h"
#include "hlo/hlo_graph.h"
#include "hlo/hlo_import.h"
#include "hlo/module_configs.h"
#include "simulator/program_from_graph.h"

using namespace graphcost;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_hlo_module(text, "m.hlo");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

HloGraph graph_of(const std::string& text) { return build_hlo_graph(parse_hlo_module(text, "m.hlo")); }

std::string module_with(const std::string& instruction) {
  return "HloModule m\nENTRY e {\n  p = f32[8,8] parameter(0)\n  " + instruction + "\n}\n";
}

}  // namespace

TEST_CASE("hostile hlo: sizes past 64 bits are refused where they are written", "[hlo][hostile]") {
  // dims whose product (node_feat's shape product) leaves int64: a float would be inf
  CHECK_THAT(error_of(module_with("ROOT a = f32[1099511627776,1099511627776] negate(p)")),
             Catch::Contains("m.hlo:4:15: instruction 'a': expected dimensions whose product (the element count) fits in 64 bits"));
  CHECK_THAT(error_of(module_with("ROOT a = (f32[2], f32[4294967296,4294967296,4]) tuple(p, p)")), Catch::Contains("fits in 64 bits"));
  CHECK_THAT(error_of(module_with("ROOT a = f32[8,8] reduce-window(p), window={size=999999999999x999999999999}")),
             Catch::Contains("window size values whose sum and product fit in 64 bits"));
  CHECK_THAT(error_of(module_with("ROOT a = f32[8,8] slice(p), slice={[0:999999999999999999], [0:999999999999999999]}")),
             Catch::Contains("slice limit values whose sum and product fit in 64 bits"));
  // 2^62 elements fit: features stay finite
  const HloGraph big = graph_of(module_with("ROOT a = f32[2147483648,2147483648] negate(p)"));
  for (const float value : big.graph.node_features) REQUIRE(std::isfinite(value));
}

TEST_CASE("hostile hlo: tile options and samples of huge or nearly exhausted kernels finish", "[hlo][hostile]") {
  // 2^62 + 1: the doubling used to overflow to 0 and spin
  const int64_t dim = (int64_t{1} << 62) + 1;
  const std::vector<int64_t> options = tile_options(dim, 1);
  REQUIRE(!options.empty());
  for (const int64_t option : options) CHECK((option > 0 && option <= dim));
  TpuGraph kernel;
  add_tile_configs(kernel, {dim, 8}, {1, 0}, 100, 1);
  for (const float value : kernel.tile_config_features) REQUIRE(std::isfinite(value));
  // 5^8 = 390,625 combinations, 390,624 wanted: every draw used to re-sort what was picked
  TpuGraph near_full;
  const std::vector<int64_t> dims = {256, 256, 256, 256, 256, 256, 256, 2048};
  add_tile_configs(near_full, dims, {7, 6, 5, 4, 3, 2, 1, 0}, 390624, 3);
  REQUIRE(near_full.config_count == 390624);
  // config_feat holds the first 6 dims' tiles: each of their 5^6 combinations appears (one index
  // of the 390,625 is left out)
  std::set<std::vector<float>> distinct;
  for (int32_t c = 0; c < near_full.config_count; ++c) {
    const auto first = near_full.tile_config_features.begin() + c * kTileConfigFeatureCount;
    distinct.insert(std::vector<float>(first, first + kTileConfigFeatureCount));
  }
  CHECK(distinct.size() == 15625);
}

TEST_CASE("hostile hlo: layouts must be permutations", "[hlo][hostile]") {
  CHECK_THAT(error_of(module_with("ROOT a = f32[8,8]{0,0} negate(p)")), Catch::Contains("each dimension once in the layout"));
  CHECK_THAT(error_of(module_with("ROOT a = f32[2,3,4]{2,0,0} negate(p)")), Catch::Contains("0 again"));
}

TEST_CASE("hostile hlo: names that are not text are stored as UTF-8 without newlines", "[hlo][hostile]") {
  // a raw newline and bytes that are not UTF-8 inside op_name; escapes resolved as XLA reads them
  const HloGraph graph = graph_of(module_with("ROOT a = f32[8,8] negate(p), metadata={op_name=\"x\ny\xff\xfez\\\"q\\\\r\\n\"}"));
  CHECK(graph.graph.names.op_names[1] == "x\\x0ay\\xff\\xfez\"q\\r\\x0a");
  for (const std::string& name : graph.graph.names.op_names) {
    for (size_t i = 0; i < name.size(); i += std::max<size_t>(1, utf8_sequence_length(name, i))) REQUIRE(utf8_sequence_length(name, i) > 0);
  }
  CHECK(printable("caf\xc3\xa9 \xe2\x82") == "caf\xc3\xa9 \\xe2\\x82");  // valid UTF-8 kept, a cut sequence escaped
}

TEST_CASE("hostile hlo: messages quote at most a bounded excerpt of the input", "[hlo][hostile]") {
  const std::string huge(10u << 20, 'b');
  const std::string labels = error_of(module_with("ROOT a = f32[8,8] convolution(p, p), dim_labels=" + huge));
  CHECK(labels.size() < 1000);
  CHECK_THAT(labels, Catch::Contains("(10485760 bytes)"));
  const std::string twice =
      error_of("HloModule m\n" + huge + " {\n  ROOT a = f32[] parameter(0)\n}\n" + huge + " {\n  ROOT a = f32[] parameter(0)\n}\n");
  CHECK(twice.size() < 1000);
  CHECK_THAT(twice, Catch::Contains("a computation name not used before"));
  // an overflowing number is quoted alone, not with what follows it
  CHECK_THAT(error_of(module_with("ROOT a = f32[99999999999999999999] negate(p), metadata={op_name=\"secret\"}")),
             Catch::EndsWith("got '99999999999999999999'"));
}

TEST_CASE("hostile hlo: byte order marks, stray bytes and line endings", "[hlo][hostile]") {
  CHECK(parse_hlo_module("\xEF\xBB\xBFHloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0)\n}\n", "m.hlo").instruction_count() == 1);
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  ROOT a = f32[] \xEF\xBB\xBFparameter(0)\n}\n"), Catch::Contains("a byte order mark"));
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  ROOT a = \xff[] parameter(0)\n}\n"),
             Catch::Contains("got '\\xff' (a byte that is not UTF-8)"));
  // classic Mac line ends: the error is on line 3, not line 1
  CHECK_THAT(error_of("HloModule m\rENTRY e {\r  ROOT a = f32[] negate(ghost)\r}\r"), Catch::Contains("m.hlo:3:25:"));
  CHECK_THAT(error_of("HloModule m\r\nENTRY e {\r\n  ROOT a = f32[] negate(ghost)\r\n}\r\n"), Catch::Contains("m.hlo:3:25:"));
}

TEST_CASE("hostile hlo: what XLA's grammar refuses is refused", "[hlo][hostile]") {
  CHECK_THAT(error_of(module_with("ROOT a = f32[+5] negate(p)")), Catch::Contains("expected a dimension size"));
  CHECK_THAT(error_of(module_with("ROOT a = tuple[2] negate(p)")), Catch::Contains("expected an element type"));
  CHECK_THAT(error_of(module_with("ROOT a = float[2] negate(p)")), Catch::Contains("got 'float'"));
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0)\n}\nENTRY f {\n  ROOT b = f32[] parameter(0)\n}\n"),
             Catch::Contains("m.hlo:5:1: computation: expected one ENTRY computation, got a second one"));
  CHECK_THAT(error_of("HloModule\nENTRY e {\n  ROOT a = f32[] parameter(0)\n}\n"), Catch::Contains("expected the module's name"));
}

TEST_CASE("hostile hlo: unbounded dynamic dimensions import, and are refused where a size is needed", "[hlo][hostile]") {
  const std::string text = R"(HloModule m
fused {
  a = f32[?,8] parameter(0)
  ROOT n = f32[?,8] negate(a)
}
static {
  b = f32[4,8] parameter(0)
  ROOT c = f32[4,8] negate(b)
}
ENTRY e {
  x = f32[?,8] parameter(0)
  y = f32[4,8] parameter(1)
  f = f32[?,8] fusion(x), kind=kLoop, calls=fused
  ROOT g = f32[4,8] fusion(y), kind=kLoop, calls=static
})";
  const HloModule module = parse_hlo_module(text, "m.hlo");
  HloGraph graph = build_hlo_graph(module);
  add_layout_configs(module, graph, 2, 0);
  CHECK(graph.graph.node_feature(4, node_column::kShapeDims) == -1);
  // the simulator needs sizes: it says which node has none, and why
  try {
    rebuild_program(graph.graph);
    FAIL("rebuilt a program with a dynamic dimension");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("node 0 ('a') shape_dimensions_0"));
    CHECK_THAT(e.what(), Catch::Contains("unbounded dynamic dimension"));
  }
  // tile configs need sizes too: that kernel is skipped and listed, the other written
  std::vector<std::string> written;
  const HloTileKernels kernels = for_each_tile_kernel(module, HloImportOptions{}, [&](FusionKernel& kernel, size_t) {
    written.push_back(kernel.fusion);
    for (const float value : kernel.hlo.graph.tile_config_features) CHECK(value >= 0);
  });
  CHECK(written == std::vector<std::string>{"g"});
  REQUIRE(kernels.skipped.size() == 1);
  CHECK_THAT(kernels.skipped[0], Catch::Contains("e/f"));
}
