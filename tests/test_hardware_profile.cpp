// simulator/hardware_profile: "nominal" is the generator's constants; a JSON file overrides fields by
// name; unknown fields, non-numbers and out-of-range values are errors naming the file and field;
// the rule constants it exposes act on the price (no copies paid at copy_share 0).
#include <catch2/catch.hpp>

#include <fstream>

#include "common/input_error.h"
#include "data/opcodes.h"
#include "simulator/cost_simulator.h"
#include "simulator/hardware_profile.h"
#include "test_support.h"

using namespace graphcost;

namespace {

std::string profile_file(const std::string& name, const std::string& text) {
  const std::string path = graphcost::testing::scratch_dir("hardware_profile") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& path) {
  try {
    hardware_profile(path);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a hardware profile is nominal or a JSON file of named constants", "[simulator]") {
  const HardwareModel nominal = hardware_profile("nominal");
  CHECK(nominal.mxu_flops_bf16 == HardwareModel{}.mxu_flops_bf16);
  CHECK(nominal.copy_share == 1.0);
  CHECK(hardware_profile_json(nominal)["lanes"] == 128);
  const HardwareModel changed = hardware_profile(profile_file("ok.json", R"({"lanes": 8, "copy_share": 0.25, "mxu_input_efficiency": 1})"));
  CHECK(changed.lanes == 8);
  CHECK(changed.copy_share == 0.25);
  CHECK(changed.mxu_input_efficiency == 1.0);
  CHECK(changed.sublanes == 8);  // the rest stays nominal

  CHECK_THAT(error_of(profile_file("unknown.json", R"({"lane": 8})")),
             Catch::Contains("unknown.json") && Catch::Contains("field 'lane'") && Catch::Contains("one of mxu_flops_bf16"));
  CHECK_THAT(error_of(profile_file("fraction.json", R"({"lanes": 2.5})")), Catch::Contains("a whole number in [1, 4096], got 2.5"));
  CHECK_THAT(error_of(profile_file("share.json", R"({"copy_share": 1.5})")), Catch::Contains("field 'copy_share'"));
  CHECK_THAT(error_of(profile_file("text.json", R"({"vector_flops": "fast"})")), Catch::Contains("got \"fast\""));
  CHECK_THAT(error_of(profile_file("zero.json", R"({"hbm_bytes_per_second": 0})")), Catch::Contains("(0, inf)"));
  CHECK_THAT(error_of(profile_file("array.json", "[1, 2]")), Catch::Contains("a JSON object"));
  CHECK_THAT(error_of(profile_file("broken.json", "{\"lanes\": ")), Catch::Contains("a JSON object"));
  CHECK_THAT(error_of("/nonexistent/profile.json"), Catch::Contains("no such file"));
}

TEST_CASE("copy_share scales what layout mismatches cost, and 1 is the nominal price to the bit", "[simulator]") {
  HloBuilder h;
  const int x = h.parameter({8, 64, 64, 128}, ElementType::BF16, 0);
  const int a = h.convolution(x, h.parameter({3, 3, 128, 128}, ElementType::BF16, 1), {3, 3}, {1, 1});
  const int relu = h.elementwise(opcode_id("maximum"), {a, a});
  const int b = h.convolution(relu, h.parameter({3, 3, 128, 128}, ElementType::BF16, 2), {3, 3}, {1, 1});
  h.mark_root(b);
  const std::vector<int32_t> convs = {a, b};
  std::vector<int8_t> mismatch(2 * 18, -1);
  mismatch[0] = 1;  // the first convolution writes dim 1 minor; the second reads its input as default
  HardwareModel paid, free;
  free.copy_share = 0;
  const LayoutProgram nominal(h, convs), same(h, convs, paid), repaired(h, convs, free);
  REQUIRE(nominal.copy_bytes(mismatch) > 0);
  CHECK(same.runtime(mismatch) == nominal.runtime(mismatch));
  CHECK(repaired.runtime(mismatch) < nominal.runtime(mismatch));
  CHECK(repaired.runtime(nominal.default_config()) == nominal.runtime(nominal.default_config()));  // no copies to repair
}
