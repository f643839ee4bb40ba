// The HLO text parser: the grammar's corners (hlo.md), and malformed text refused with
// file:line:column, what was expected and what was found.
#include <catch2/catch.hpp>

#include <string>

#include "common/input_error.h"
#include "hlo/hlo_module.h"
#include "test_support.h"

using namespace graphcost;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_hlo_module(text, "m.hlo");
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("hlo: header blocks, signatures, typed operands, comments, continuation lines", "[hlo]") {
  const std::string text = R"(// a lit test line
HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[3]{0}}, input_output_alias={ {0}: (1, {}, may-alias) }

FileNames
1 "a.py"

FileLocations
1 {file_name_id=1 function_name_id=1 line=6}

add.1 {
  %p0 = f32[] parameter(0)
  p1 = f32[] parameter(1) /* second */
  ROOT %sum = f32[] add(f32[] %p0, p1), metadata={op_type="add" op_name="jit(f)/add"}
}, execution_thread="main"

ENTRY %main (x: f32[2,3]) -> f32[3] {
  x = f32[2,3]{0,1} parameter(0)
  zero = f32[] constant(0)
  t = (f32[2,3], (s32[], bf16[<=128])) tuple(x, x) // a nested tuple shape
  ROOT r = f32[3]{0} reduce(x, zero), dimensions={0},
      to_apply=add.1, backend_config="{\"a\": \"}\"}"
}
)";
  const HloModule module = parse_hlo_module(text, "m.hlo");
  REQUIRE(module.computations.size() == 2);
  CHECK(module.entry == 1);
  const HloComputation& add = module.computations[0];
  CHECK(add.name == "add.1");
  CHECK(add.instructions.size() == 3);
  CHECK(add.root == 2);
  CHECK(add.instructions[2].operands == std::vector<int32_t>{0, 1});
  CHECK(add.instructions[2].op_name == "jit(f)/add");
  CHECK(add.instructions[1].parameter_number == 1);
  const HloComputation& main = module.computations[1];
  CHECK(main.entry);
  CHECK(main.name == "main");
  CHECK(main.instructions[0].shape.minor_to_major == std::vector<int>{0, 1});
  CHECK(main.instructions[0].shape.layout_written);
  const HloShape& tuple = main.instructions[2].shape;
  REQUIRE(tuple.is_tuple());
  REQUIRE(tuple.elements.size() == 2);
  CHECK(tuple.elements[1].elements[1].dims == std::vector<int64_t>{128});  // a dynamic bound counts as its bound
  CHECK(tuple.elements[1].elements[1].element_type == "bf16");
  const HloInstruction& reduce = main.instructions[3];
  CHECK(reduce.marked_root);
  CHECK(reduce.dimensions == std::vector<int64_t>{0});
  CHECK(reduce.called_computations == std::vector<int32_t>{0});
  CHECK(reduce.line == 20);
  CHECK(module.instruction_count() == 7);
}

TEST_CASE("hlo: shapes without layouts get the default minor_to_major", "[hlo]") {
  const HloModule module = parse_hlo_module("HloModule m\nENTRY e {\n  ROOT p = f32[4,5,6] parameter(0)\n}\n", "m.hlo");
  const HloShape& shape = module.computations[0].instructions[0].shape;
  CHECK(shape.minor_to_major == std::vector<int>{2, 1, 0});
  CHECK_FALSE(shape.layout_written);
}

TEST_CASE("hlo: the root is the last instruction when none is marked", "[hlo]") {
  const HloModule module = parse_hlo_module("HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] negate(a)\n}\n", "m.hlo");
  CHECK(module.computations[0].root == 1);
}

TEST_CASE("hlo: malformed text is refused at its line and column", "[hlo]") {
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  ROOT a = f32[] negate(b)\n}\n"),
             Catch::Contains("m.hlo:3:25: instruction 'a': expected an instruction defined earlier in computation 'e', got 'b'"));
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  ROOT c = f32[] call(a), to_apply=nowhere\n}\n"),
             Catch::Contains("m.hlo:4:36: called computation: expected a computation defined in this module, got 'nowhere'"));
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  ROOT c = f32[] call(a), to_apply=later\n}\nlater {\n  ROOT x = "
                      "f32[] parameter(0)\n}\n"),
             Catch::Contains("defined before its caller"));
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n"),
             Catch::Contains("m.hlo:4:1: computation 'e': expected '}' closing computation 'e', got end of file"));
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  ROOT a = f32[2] parameter(0), sharding={devices=[2]0,1\n"),
             Catch::Contains("expected '}' closing the attribute, got end of file"));
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  ROOT a = f32[2]{0,1} parameter(0)\n}\n"),
             Catch::Contains("m.hlo:3:21: instruction 'a': expected a dimension index below the rank 1, got 1"));
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  ROOT a = f32[2] parameter(0)\n  ROOT b = f32[2] negate(a)\n}\n"),
             Catch::Contains("at most one ROOT"));
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  a = f32[2] negate(a)\n}\n"), Catch::Contains("'a' again"));
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  ROOT a = f32[2 parameter(0)\n}\n"),
             Catch::Contains("m.hlo:3:18: instruction 'a': expected ']' closing the dimensions, got 'parameter'"));
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  ROOT c = f32[] convolution(), window={size=3x}\n}\n"),
             Catch::Contains("one number per dim"));
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  ROOT c = f32[] convolution(), dim_labels=bxf_01io->b01f\n}\n"),
             Catch::Contains("dim_labels like b01f_01io->b01f"));
  CHECK_THAT(error_of("HloModule m\nENTRY e { /* never closed\n"),
             Catch::Contains("m.hlo:2:11: computation 'e': expected '*/' closing this comment"));
  CHECK_THAT(error_of(""), Catch::Contains("m.hlo:1:1: module header: expected 'HloModule', got end of file"));
  CHECK_THAT(error_of("HloModule m\n"), Catch::Contains("expected at least one computation"));
  CHECK_THAT(error_of("HloModule m\nENTRY e {\n  ROOT a = f32[99999999999999999999] parameter(0)\n}\n"),
             Catch::Contains("within 64-bit range"));
}

TEST_CASE("hlo: a million nested braces or tuples are refused, not a stack overflow", "[hlo]") {
  const std::string braces = "HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0), x=" + std::string(1000000, '{') + "\n}\n";
  CHECK_THAT(error_of(braces), Catch::Contains("closing the attribute, got end of file"));
  const std::string tuples = "HloModule m\nENTRY e {\n  ROOT a = " + std::string(1000000, '(') + " parameter(0)\n}\n";
  CHECK_THAT(error_of(tuples), Catch::Contains("tuple shapes nested at most 64 deep"));
  const std::string balanced =
      "HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0), x=" + std::string(100000, '[') + std::string(100000, ']') + "\n}\n";
  CHECK(parse_hlo_module(balanced, "m.hlo").instruction_count() == 1);
}

TEST_CASE("hlo: a 100 MB line is read in one pass", "[hlo]") {
  // (60 MB under AddressSanitizer, whose allocations are capped at 100 MB in these tests)
  const size_t line_bytes = (testing::sanitized_build() ? 60u : 100u) << 20;
  std::string text = "HloModule m\nENTRY e {\n  ROOT c = f32[] constant(" + std::string(line_bytes, '1') + ")\n}\n";
  CHECK(parse_hlo_module(text, "m.hlo").instruction_count() == 1);
  text[text.size() - 4] = ' ';  // the literal's ')' gone: the value never closes
  CHECK_THAT(error_of(text), Catch::Contains("expected ')' closing"));
}
