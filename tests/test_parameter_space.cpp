// Parameter spaces (src/spaces/): the shared Kernel Tuner files read exactly as Python's json and
// gzip read them; the cache and T1 formats; restrictions with Python's meaning; bad files refused
// by name.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/input_error.h"
#include "spaces/parameter_space.h"
#include "spaces/restriction_expression.h"
#include "test_support.h"

using namespace graphcost;

namespace {

std::string kernel_tuner_dir() { return testing::data_dir() + "/kernel-tuner/convolution"; }

std::string write_text(const std::string& name, const std::string& text) {
  const std::string path = testing::scratch_dir("parameter_space") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string as_lines(const ParameterSpace& space) {
  std::string out = "parameters ";
  for (size_t p = 0; p < space.parameters.size(); ++p) {
    out += (p ? ";" : "") + space.parameters[p].name + "=";
    for (size_t v = 0; v < space.parameters[p].values.size(); ++v) out += (v ? "," : "") + space.parameters[p].values[v].dump();
  }
  out += "\n";
  char number[64];
  for (size_t c = 0; c < space.configs.size(); ++c) {
    const SpaceConfig& config = space.configs[c];
    out += std::to_string(c) + " ";
    for (size_t p = 0; p < config.value_index.size(); ++p) out += (p ? "," : "") + std::to_string(config.value_index[p]);
    std::snprintf(number, sizeof number, "%.17g", config.seconds);
    out += " " + name_of(config_outcome_names(), config.outcome) + " " + number + " ";
    for (size_t r = 0; r < config.repeats.size(); ++r) {
      std::snprintf(number, sizeof number, "%.17g", config.repeats[r]);
      out += (r ? "," : "") + std::string(number);
    }
    out += "\n";
  }
  return out;
}

int expression_int(const std::string& text, const std::vector<std::string>& names = {}, const std::vector<ExpressionValue>& values = {}) {
  const ExpressionValue v = RestrictionExpression(text, names, "test").evaluate(values);
  REQUIRE(v.kind == ExpressionValue::Kind::Int);
  return static_cast<int>(v.integer);
}

}  // namespace

TEST_CASE("parameter spaces: the six shared Kernel Tuner files read exactly as Python reads them", "[spaces][real]") {
  if (!std::filesystem::exists(kernel_tuner_dir())) {
    WARN("skipped: no TpuGraphs data (kernel-tuner/) under " << testing::data_dir());
    return;
  }
  for (const char* gpu : {"A100", "A4000", "A6000", "MI250X", "W6600", "W7800"}) {
    const std::string path = kernel_tuner_dir() + "/" + gpu + "_T4.json.gz";
    const ParameterSpace space = load_parameter_space(path);
    CHECK(space.configs.size() == 4362);
    CHECK(space.parameters.size() == 10);
    const std::string reference = testing::scratch_dir("parameter_space_python") + "/" + gpu + ".txt";
    std::string output;
    REQUIRE(testing::run_python(testing::source_dir() + "/tests/fixtures/space_reference.py", {path, reference}, output) == 0);
    std::stringstream expected;
    expected << std::ifstream(reference).rdbuf();
    const std::string ours = as_lines(space);
    INFO(gpu);
    CHECK(ours.size() == expected.str().size());
    CHECK(ours == expected.str());
  }
}

TEST_CASE("parameter spaces: the shared T1 definition gives the configs the T4 files measured", "[spaces][real]") {
  if (!std::filesystem::exists(kernel_tuner_dir())) {
    WARN("skipped: no TpuGraphs data (kernel-tuner/) under " << testing::data_dir());
    return;
  }
  const ParameterSpace defined = load_parameter_space(kernel_tuner_dir() + "/convolution_milo.json");
  CHECK_FALSE(defined.measured());
  CHECK(defined.restrictions.size() == 4);
  const ParameterSpace measured = load_parameter_space(kernel_tuner_dir() + "/A100_T4.json.gz");
  REQUIRE(defined.configs.size() == measured.configs.size());  // 4362 of 10240 combinations
  std::set<std::string> a, b;
  for (int32_t c = 0; c < static_cast<int32_t>(defined.configs.size()); ++c) a.insert(defined.config_json(c).dump());
  for (int32_t c = 0; c < static_cast<int32_t>(measured.configs.size()); ++c) b.insert(measured.config_json(c).dump());
  CHECK(a == b);
}

TEST_CASE("parameter spaces: a Kernel Tuner cache file, closed or left open as Kernel Tuner leaves it", "[spaces]") {
  const std::string head = R"({"schema_version": "1.1.0", "device_name": "NVIDIA A100", "kernel_name": "conv", "problem_size": [4096, 4096],
"tune_params_keys": ["block_size_x", "use_shmem"], "tune_params": {"block_size_x": [16, 32], "use_shmem": [0, 1]}, "objective": "time",
"cache": {
"16,0": {"time": 2.0, "times": [2.0, 2.5, 1.5], "compile_time": 900, "block_size_x": 16, "use_shmem": 0},
"32,1": {"time": "CompilationFailedConfig", "compile_time": 10},
"16,1": {"time": 1.0, "times": [1.0], "compile_time": 900},)";
  for (const bool closed : {true, false}) {
    std::string text = head;
    if (closed) text = text.substr(0, text.size() - 1) + "\n}\n}\n";
    const ParameterSpace space = load_parameter_space(write_text(closed ? "closed.json" : "open.json", text));
    CHECK(space.device == "NVIDIA A100");
    REQUIRE(space.configs.size() == 3);
    CHECK(space.parameters[0].values.size() == 2);
    // The configs in the cache's key order (a cache is a set): "16,0", "16,1", "32,1".
    const auto find = [&](const std::string& values) {
      for (int32_t c = 0; c < static_cast<int32_t>(space.configs.size()); ++c) {
        if (space.config_json(c).dump() == values) return c;
      }
      return -1;
    };
    const int32_t a = find(R"({"block_size_x":16,"use_shmem":0})"), b = find(R"({"block_size_x":32,"use_shmem":1})");
    REQUIRE((a >= 0 && b >= 0 && find(R"({"block_size_x":16,"use_shmem":1})") >= 0));
    CHECK(space.configs[static_cast<size_t>(a)].outcome == ConfigOutcome::Ok);
    CHECK(space.configs[static_cast<size_t>(a)].seconds == 2.0e-3);
    CHECK(space.configs[static_cast<size_t>(a)].repeats.size() == 3);
    CHECK(space.configs[static_cast<size_t>(b)].outcome == ConfigOutcome::Compile);
  }
}

TEST_CASE("parameter spaces: restrictions evaluate as Python evaluates them", "[spaces]") {
  CHECK(expression_int("-7 // 2") == -4);
  CHECK(expression_int("-7 % 3") == 2);
  CHECK(expression_int("7 % -3") == -2);
  CHECK(expression_int("2 ** 10") == 1024);
  CHECK(expression_int("1 < 2 < 3") == 1);
  CHECK(expression_int("1 < 3 < 2") == 0);
  CHECK(expression_int("3 in [1, 2, 3] and not 4 in [1, 2]") == 1);
  CHECK(expression_int("len(list(range(1, 9)))") == 8);
  CHECK(expression_int("max([3, 9, 4]) - min(5, 2)") == 7);
  CHECK(expression_int("x * y <= 1024 or z == 'a'", {"x", "y", "z"},
                       {ExpressionValue::of_int(64), ExpressionValue::of_int(32), ExpressionValue::of_string("a")}) == 1);
  CHECK(RestrictionExpression("7 / 2", {}, "test").evaluate({}).real == 3.5);
  const auto refused = [](const std::string& text) {
    try {
      RestrictionExpression(text, {"x"}, "space.json: Conditions[0]").evaluate({ExpressionValue::of_int(1)});
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  CHECK(refused("[i for i in range(3)]").find("comprehension") != std::string::npos);
  CHECK(refused("__import__('os')").find("call of '__import__'") != std::string::npos);
  CHECK(refused("y > 1").find("unknown name 'y'") != std::string::npos);
  CHECK(refused("x == 010").find("leading zero") != std::string::npos);
  CHECK(refused("len(range(10**7))").find("more than 1000000 values") != std::string::npos);
  std::string heavy = "len(range(999999))";
  for (int k = 0; k < 10; ++k) heavy += " + len(range(999999))";
  CHECK(refused(heavy).find("steps of work") != std::string::npos);
  CHECK(refused("(-9223372036854775807 - 1) // -1").find("64-bit") != std::string::npos);
  CHECK(expression_int("(-9223372036854775807 - 1) % -1") == 0);
  CHECK(expression_int("len(range(0, 9223372036854775807, 4611686018427387904))") == 2);
  CHECK(RestrictionExpression("1 // 0.1", {}, "test").evaluate({}).real == 9.0);
  CHECK(RestrictionExpression("-7.5 % 2", {}, "test").evaluate({}).real == 0.5);
  CHECK(refused("x // 0").find("division by zero") != std::string::npos);
  CHECK(refused("2 ** 200").find("64-bit") != std::string::npos);
  CHECK(refused(std::string(100, '(') + "1" + std::string(100, ')')).find("nesting") != std::string::npos);
  CHECK(refused("x ==").find("ends early") != std::string::npos);
}

TEST_CASE("parameter spaces: bad files are refused naming the field", "[spaces]") {
  const auto refusal = [](const std::string& name, const std::string& text) {
    try {
      load_parameter_space(write_text(name, text));
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  CHECK(refusal("not_json.json", "{\"results\": [").find("JSON") != std::string::npos);
  CHECK(refusal("other.json", "{\"a\": 1}").find("format") != std::string::npos);
  const std::string record = R"({"configuration": {"x": 1}, "invalidity": "correct", "measurements": [{"name": "time", "value": 2.0}]})";
  CHECK(refusal("dup.json", "{\"schema_version\": \"1.0.0\", \"results\": [" + record + "," + record + "]}")
            .find("results[1].configuration") != std::string::npos);
  CHECK(refusal("neg.json", R"({"schema_version": "1.0.0", "results": [{"configuration": {"x": 1}, "invalidity": "correct",
      "measurements": [{"name": "time", "value": -2.0}]}]})")
            .find("a positive time") != std::string::npos);
  CHECK(refusal("keys.json",
                R"({"schema_version": "1.0.0", "results": [)" + record +
                    R"(, {"configuration": {"y": 1}, "invalidity": "correct", "measurements": [{"name": "time", "value": 2.0}]}]})")
            .find("results[1].configuration.x") != std::string::npos);
  CHECK(refusal("invalidity.json", R"({"schema_version": "1.0.0", "results": [{"configuration": {"x": 1}, "invalidity": "broken"}]})")
            .find("broken") != std::string::npos);
  CHECK(refusal("unit.json", R"({"schema_version": "1.0.0", "metadata": {"timeunit": "fortnights"}, "results": [)" + record + "]}")
            .find("timeunit") != std::string::npos);
  CHECK(refusal("huge_number.json", R"({"schema_version": "1.0.0", "results": [{"configuration": {"x": 1e999}}]})").find("JSON") !=
        std::string::npos);
  CHECK(refusal("unsigned.json", R"({"schema_version": "1.0.0", "results": [{"configuration": {"x": 18446744073709551615},
      "invalidity": "correct", "measurements": [{"name": "time", "value": 2.0}]}]})")
            .find("within 64 bits") != std::string::npos);
  CHECK(
      refusal("names.json", R"({"ConfigurationSpace": {"TuningParameters": [{"Name": "x", "Values": [1]}, {"Name": "x", "Values": [2]}]}})")
          .find("a name not used before") != std::string::npos);
  std::string deep = std::string(200000, '[') + std::string(200000, ']');  // nested past any stack a recursion could use
  CHECK(refusal("deep.json", R"({"General": {"FormatVersion": )" + deep + R"(}, "ConfigurationSpace": {"TuningParameters": [{"Name": "x",
      "Values": )" + deep + "}]}}")
            .find("Values") != std::string::npos);
  CHECK(refusal("deep_results.json", "{\"schema_version\": \"1.0.0\", \"results\": [{\"configuration\": " + deep + "}]}")
            .find("configuration") != std::string::npos);
  std::string truncated_gzip = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xab\x56";
  CHECK(refusal("truncated.json.gz", truncated_gzip).find("gzip") != std::string::npos);
}
