// Binary HLO and raw tuning records: every shared text module gives the same graph through a proto
// written from it; the dataset's own raw record of unet_3d gives, column by column, the dataset's
// own npz of the same program (docs/import.md's fidelity table); formats are told by content;
// hostile protos are refused at their byte offset.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>

#include "common/input_error.h"
#include "hlo/graph_file.h"
#include "hlo/hlo_graph.h"
#include "hlo/hlo_import.h"
#include "hlo/hlo_proto.h"
#include "hlo/module_configs.h"
#include "hlo/module_file.h"
#include "hlo/tuning_records.h"
#include "io/proto_wire.h"
#include "test_support.h"

using namespace graphcost;

namespace {

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

std::string proto_error(const std::string& bytes) {
  try {
    parse_hlo_module_proto(bytes, "m.pb", false);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void require_same_graph(const TpuGraph& a, const TpuGraph& b) {
  REQUIRE(a.node_count == b.node_count);
  CHECK(a.node_opcodes == b.node_opcodes);
  for (size_t i = 0; i < a.node_features.size(); ++i) {
    if (a.node_features[i] != b.node_features[i]) FAIL("node " << i / kNodeFeatureCount << " column " << i % kNodeFeatureCount);
  }
  REQUIRE(a.edges.size() == b.edges.size());
  for (size_t e = 0; e < a.edges.size(); ++e)
    REQUIRE((a.edges[e].consumer == b.edges[e].consumer && a.edges[e].producer == b.edges[e].producer));
  CHECK(a.node_splits == b.node_splits);
  CHECK(a.configurable_nodes == b.configurable_nodes);
  CHECK(a.layout_config_features == b.layout_config_features);
  CHECK(a.names.instructions == b.names.instructions);
  CHECK(a.names.op_names == b.names.op_names);
  CHECK(a.names.computations == b.names.computations);
}

}  // namespace

TEST_CASE("hlo proto: every shared module gives the same graph through text and through a proto written from it", "[hlo][proto][real]") {
  SKIP_WITHOUT_REAL_DATA();
  int modules = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::data_dir() + "/hlo")) {
    if (entry.path().extension() != ".hlo") continue;
    INFO(entry.path().string());
    const HloModule text = read_hlo_module(entry.path().string());
    const std::string bytes = hlo_module_proto_bytes(text);
    CHECK(detect_module_file_format(bytes, "m.pb") == ModuleFileFormat::HloModuleProto);
    const HloModule proto = parse_hlo_module_proto(bytes, "m.pb", false);
    HloGraph from_text = build_hlo_graph(text), from_proto = build_hlo_graph(proto);
    add_layout_configs(text, from_text, 5, 1);
    add_layout_configs(proto, from_proto, 5, 1);
    require_same_graph(from_text.graph, from_proto.graph);
    ++modules;
  }
  CHECK(modules == 11);
}

TEST_CASE("hlo proto: XLA's own binary test module is its text twin", "[hlo][proto][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const std::string path = testing::data_dir() + "/hlo/hlo_opt_hlo_protobinary.pb";
  ModuleFileFormat format;
  const HloModule proto = read_hlo_module(path, nullptr, &format);
  CHECK(format == ModuleFileFormat::HloProto);
  const HloModule text = parse_hlo_module("HloModule module_mod1\nENTRY mod1 {\n  a = s8[]{} constant(0)\n}\n", "twin.hlo");
  CHECK(proto.name == "module_mod1");
  require_same_graph(build_hlo_graph(text).graph, build_hlo_graph(proto).graph);
}

TEST_CASE("tuning records: the raw unet_3d record gives the dataset's own npz, column by column", "[hlo][proto][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const TpuGraph ours = load_graph_file(testing::data_dir() + "/tpugraphs-raw/module_tuning_data_layout.pb").graph;
  const TpuGraph theirs = load_tpu_graph(testing::real_file("npz/layout/xla/default/valid/unet_3d.4x4.bf16.npz"));
  REQUIRE(ours.node_count == 3163);
  REQUIRE(ours.node_count == theirs.node_count);
  CHECK(ours.node_opcodes == theirs.node_opcodes);  // node order: each node's opcode in place
  std::vector<std::pair<int32_t, int32_t>> a, b;
  for (const Edge& e : ours.edges) a.emplace_back(e.consumer, e.producer);
  for (const Edge& e : theirs.edges) b.emplace_back(e.consumer, e.producer);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  CHECK(a == b);
  for (int column = 0; column < kNodeFeatureCount; ++column) {
    INFO("node_feat column " << column << " (" << node_feature_name(column) << ")");
    int differing = 0;
    for (int32_t node = 0; node < ours.node_count; ++node)
      differing += ours.node_feature(node, column) != theirs.node_feature(node, column);
    CHECK(differing == 0);
  }
  CHECK(ours.node_splits == theirs.node_splits);
  CHECK(ours.configurable_nodes == theirs.configurable_nodes);
  // The record's 112 kept runs are 112 of the npz's 1,965 configs: found by runtime, rows equal.
  REQUIRE(ours.config_count == 112);
  std::multimap<int64_t, int32_t> by_runtime;
  for (int32_t c = 0; c < theirs.config_count; ++c) by_runtime.emplace(theirs.config_runtime_ns[static_cast<size_t>(c)], c);
  const size_t width = static_cast<size_t>(ours.configurable_count()) * kLayoutConfigFeatureCount;
  int matched = 0;
  for (int32_t c = 0; c < ours.config_count; ++c) {
    const auto range = by_runtime.equal_range(ours.config_runtime_ns[static_cast<size_t>(c)]);
    for (auto it = range.first; it != range.second; ++it) {
      if (std::equal(ours.layout_config_features.begin() + static_cast<std::ptrdiff_t>(c * width),
                     ours.layout_config_features.begin() + static_cast<std::ptrdiff_t>((c + 1) * width),
                     theirs.layout_config_features.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(it->second) * width))) {
        ++matched;
        break;
      }
    }
  }
  CHECK(matched == 112);
  CHECK_THAT(ours.provenance, Catch::Contains("112 of 122 runs kept as configs (10 failed)"));
}

TEST_CASE("tuning records: ten real tile kernels with the dataset's config_feat and normalizers", "[hlo][proto][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const std::string path = testing::data_dir() + "/tpugraphs-raw/op_tuning_data.pb";
  std::string bytes = file_bytes(path);
  REQUIRE(detect_module_file_format(bytes, path) == ModuleFileFormat::TuningData);
  const std::vector<ModuleTuningRecord> records = read_tuning_records(std::make_shared<const std::string>(std::move(bytes)), path, true);
  REQUIRE(records.size() == 10);
  const std::map<std::string, int> configs = {{"fusion.191", 579}, {"fusion.261", 16}, {"fusion.205", 16}, {"fusion.245", 23},
                                              {"copy.24", 10},     {"fusion.207", 3},  {"fusion.206", 3},  {"fusion.250", 2},
                                              {"reshape.37", 3},   {"reshape.39", 2}};
  for (const ModuleTuningRecord& record : records) {
    INFO(record.module.name);
    REQUIRE(is_tile_record(record));
    const TpuGraph graph = tile_graph_from_record(record, "");
    CHECK(graph.config_count == configs.at(record.module.name));
    if (record.module.name == "fusion.191") {
      // run 0: kernel [3,1,24,3], output [12,4,4,3], no input bounds; the default run's 151,565 ns
      const std::vector<float> first(graph.tile_config_features.begin(), graph.tile_config_features.begin() + 24);
      CHECK(first == std::vector<float>{3, 1, 24, 3, 0, 0, 31, 216, 12, 4, 4, 3, 0, 0, 23, 576, 0, 0, 0, 0, 0, 0, 0, 0});
      CHECK(graph.config_runtime_normalizers_ns[0] == 151565);
    }
  }
}

TEST_CASE("hlo proto: formats are told by content", "[hlo][proto]") {
  CHECK(detect_module_file_format("HloModule m\nENTRY e {\n}\n", "x") == ModuleFileFormat::HloText);
  CHECK(detect_module_file_format("\xEF\xBB\xBF// a dump\nHloModule m", "x") == ModuleFileFormat::HloText);
  CHECK(detect_module_file_format("garbage text", "x") == ModuleFileFormat::HloText);  // the text parser says what is wrong
  const std::string module =
      hlo_module_proto_bytes(parse_hlo_module("HloModule m\nENTRY e {\n  ROOT a = f32[2] parameter(0)\n}\n", "m.hlo"));
  CHECK(detect_module_file_format(module, "x") == ModuleFileFormat::HloModuleProto);
  ProtoWriter hlo_proto;
  hlo_proto.text(1, module);
  CHECK(detect_module_file_format(hlo_proto.bytes(), "x") == ModuleFileFormat::HloProto);
  ProtoWriter record;
  record.text(1, module);
  record.integer(2, 77);
  CHECK(detect_module_file_format(record.bytes(), "x") == ModuleFileFormat::ModuleTuningData);
  ProtoWriter tuning;
  tuning.text(1, record.bytes());
  CHECK(detect_module_file_format(tuning.bytes(), "x") == ModuleFileFormat::TuningData);
  CHECK_THROWS_WITH(detect_module_file_format(std::string("\x00\x01\x02", 3), "x"), Catch::Contains("neither text nor a protobuf field"));
}

TEST_CASE("hlo proto: hostile protos are refused at their byte offset", "[hlo][proto][hostile]") {
  const std::string good = hlo_module_proto_bytes(
      parse_hlo_module("HloModule m\nENTRY e {\n  p = f32[2,3]{1,0} parameter(0)\n  ROOT a = f32[2,3]{1,0} negate(p)\n}\n", "m.hlo"));
  REQUIRE(proto_error(good).empty());
  // truncated anywhere: an error, never a crash or a half module
  for (size_t cut = 1; cut < good.size(); ++cut) {
    INFO("cut at " << cut);
    CHECK_THAT(proto_error(good.substr(0, cut)), Catch::Contains("m.pb: byte "));
  }
  // a length far past the end
  CHECK_THAT(proto_error(std::string("\x1a\xff\xff\xff\xff\x0f", 6)),
             Catch::Contains("byte 0: HloModuleProto field 3: expected a length within"));
  // a wrong wire type for a message field
  CHECK_THAT(proto_error(std::string("\x1d\x01\x02\x03\x04", 5)),
             Catch::Contains("expected a length-delimited value (HloComputationProto), got a fixed 32-bit value"));
  // groups (wire type 3) and overlong varints
  CHECK_THAT(proto_error(std::string("\x1b", 1)), Catch::Contains("a group: obsolete"));
  CHECK_THAT(proto_error(std::string("\x30\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 11)), Catch::Contains("overlong varint"));
  // tuple shapes nested 100 deep: refused at depth 64, no recursion past it
  ProtoWriter pred;
  pred.integer(2, 1);  // PRED
  std::string shape = pred.take();
  for (int depth = 0; depth < 100; ++depth) {
    ProtoWriter tuple;
    tuple.integer(2, 13);  // TUPLE
    tuple.text(4, shape);
    shape = tuple.take();
  }
  const auto module_of = [](const std::vector<ProtoWriter>& instructions, int64_t root_id, const std::string& extra = "") {
    ProtoWriter computation, module;
    computation.text(1, "e");
    for (const ProtoWriter& instruction : instructions) computation.message(2, instruction);
    computation.integer(6, root_id);
    module.text(1, "m");
    module.message(3, computation);
    return module.bytes() + extra;
  };
  const auto instruction = [](const std::string& name, const std::string& opcode, const std::string& shape_bytes, int64_t id) {
    ProtoWriter i;
    i.text(1, name), i.text(2, opcode), i.text(3, shape_bytes), i.integer(35, id);
    return i;
  };
  CHECK_THAT(proto_error(module_of({instruction("a", "parameter", shape, 0)}, 0)), Catch::Contains("tuple shapes nested at most 64 deep"));
  ProtoWriter scalar;
  scalar.integer(2, 11);
  ProtoWriter later = instruction("a", "negate", scalar.bytes(), 0);
  later.packed(36, {1});
  CHECK_THAT(proto_error(module_of({later, instruction("b", "parameter", scalar.bytes(), 1)}, 1)),
             Catch::Contains("operand_ids: expected ids of instructions earlier in its computation, got 1"));
  ProtoWriter call = instruction("c", "call", scalar.bytes(), 0);
  call.packed(38, {99});
  CHECK_THAT(proto_error(module_of({call}, 0)), Catch::Contains("called_computation_ids: expected ids of computations earlier"));
  CHECK_THAT(proto_error(module_of({instruction("a", "parameter", scalar.bytes(), 0)}, 42)),
             Catch::Contains("root_id: expected the id of one of its instructions, got 42"));
  // sizes past 64 bits, as in text
  ProtoWriter huge;
  huge.integer(2, 11);
  huge.packed(3, {int64_t{1} << 40, int64_t{1} << 40});
  CHECK_THAT(proto_error(module_of({instruction("a", "parameter", huge.bytes(), 0)}, 0)), Catch::Contains("fits in 64 bits"));
}

TEST_CASE("hlo proto: a million instructions are read in bounded time and memory", "[hlo][proto][hostile]") {
  ProtoWriter computation;
  computation.text(1, "e");
  ProtoWriter shape;
  shape.integer(2, 11);  // F32
  for (int64_t i = 0; i < 1000000; ++i) {
    ProtoWriter instruction;
    instruction.text(1, "a" + std::to_string(i));
    instruction.text(2, i == 0 ? "parameter" : "negate");
    instruction.message(3, shape);
    instruction.integer(35, i);
    if (i > 0) instruction.packed(36, {i - 1});
    computation.message(2, instruction);
  }
  computation.integer(6, 999999);
  ProtoWriter module;
  module.text(1, "m");
  module.message(3, computation);
  const HloModule parsed = parse_hlo_module_proto(module.take(), "m.pb", false);
  CHECK(parsed.instruction_count() == 1000000);
  CHECK(parsed.computations[0].root == 999999);
}
