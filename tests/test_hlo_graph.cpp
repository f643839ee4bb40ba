// The TpuGraphs graph of small HLO modules against hand-written expectations: each node_feat column
// from its definition (hlo.md, tpugraphs.md), edges, node_splits, names, configs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "data/opcodes.h"
#include "hlo/fusion_kernels.h"
#include "hlo/hlo_graph.h"
#include "hlo/hlo_graph_writer.h"
#include "hlo/hlo_import.h"
#include "hlo/module_configs.h"
#include "test_support.h"

using namespace graphcost;

namespace {

// node_feat of node `node`, as column -> value for every non-zero column.
std::map<int, float> nonzero(const TpuGraph& graph, int32_t node) {
  std::map<int, float> columns;
  for (int c = 0; c < kNodeFeatureCount; ++c) {
    if (graph.node_feature(node, c) != 0) columns[c] = graph.node_feature(node, c);
  }
  return columns;
}

// The columns every instruction has: products of empty lists are 1 (window x6, slice x3,
// dynamic slice, padding low and high).
std::map<int, float> empty_products() {
  return {{44, 1}, {52, 1}, {60, 1}, {68, 1}, {76, 1}, {84, 1}, {112, 1}, {116, 1}, {120, 1}, {124, 1}, {128, 1}, {132, 1}};
}

std::map<int, float> with(std::map<int, float> base, const std::map<int, float>& more) {
  for (const auto& [column, value] : more) {
    if (value == 0) {
      base.erase(column);
    } else {
      base[column] = value;
    }
  }
  return base;
}

HloGraph graph_of(const std::string& text) { return build_hlo_graph(parse_hlo_module(text, "m.hlo")); }

}  // namespace

TEST_CASE("hlo features: the depthwise convolution (window, dim_labels, groups)", "[hlo]") {
  const HloGraph hlo = graph_of(R"(HloModule m
ENTRY main.1 {
  x.1 = bf16[1,256,56,56]{3,2,1,0} parameter(0)
  k = bf16[256,1,3,3]{3,2,1,0} parameter(1)
  ROOT conv = bf16[1,256,56,56]{3,2,1,0} convolution(x.1, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=256
})");
  const std::map<int, float> expected =
      with(empty_products(), {
                                 {0, 1},                                                              // ROOT of its computation
                                 {15, 1},                                                             // bf16
                                 {21, 1},    {22, 256}, {23, 56}, {24, 56}, {27, 369}, {28, 802816},  // dims, sum, product
                                 {37, 3},    {38, 3},   {43, 6},  {44, 9},                            // window size
                                 {45, 1},    {46, 1},   {51, 2},  {52, 1},                            // stride (default 1)
                                 {53, 1},    {54, 1},   {59, 2},  {60, 1},                            // padding low
                                 {61, 1},    {62, 1},   {67, 2},  {68, 1},                            // padding high
                                 {69, 1},    {70, 1},   {75, 2},  {76, 1},                            // window dilation
                                 {77, 1},    {78, 1},   {83, 2},  {84, 1},                            // base dilation
                                 {92, 2},                                                             // reversal: 0 true, 2 false
                                 {93, 0},    {94, 1},   {95, 2},  {96, 3},                            // input b=0 f=1 spatial 2,3
                                 {99, 1},    {100, 0},  {101, 2}, {102, 3},                           // kernel i=1 o=0 spatial 2,3
                                 {105, 0},   {106, 1},                                                // output b=0 f=1
                                 {107, 256}, {108, 1},                                                // feature and batch groups
                                 {134, 3},   {135, 2},  {136, 1}, {137, 0},                           // minor_to_major
                             });
  CHECK(nonzero(hlo.graph, 2) == expected);
  CHECK(hlo.graph.node_opcodes[2] == opcode::kConvolution);
}

TEST_CASE("hlo features: slice, pad, parameter number, tuple, dimensions", "[hlo]") {
  const HloGraph hlo = graph_of(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4,6]{1,0} parameter(3)
  s = f32[2,3]{1,0} slice(p), slice={[1:3], [0:6:2]}
  z = f32[] constant(0)
  pd = f32[3,7]{1,0} pad(s, z), padding=0_1x2_2_1
  r = f32[6]{0} reduce(p, z), dimensions={0}, to_apply=add
  ROOT t = (f32[2,3]{1,0}, f32[]) tuple(s, z)
})");
  const TpuGraph& graph = hlo.graph;
  // Nodes: add's a b s = 0 1 2, then p s z pd r t = 3..8.
  CHECK(nonzero(graph, 3) == with(empty_products(), {{13, 1}, {21, 4}, {22, 6}, {27, 10}, {28, 24}, {30, 3}, {134, 1}}));
  CHECK(nonzero(graph, 4) == with(empty_products(), {{13, 1},
                                                     {21, 2},
                                                     {22, 3},
                                                     {27, 5},
                                                     {28, 6},
                                                     {134, 1},
                                                     {109, 1},
                                                     {110, 0},
                                                     {111, 1},
                                                     {112, 0},  // starts 1, 0
                                                     {113, 1},
                                                     {114, 2},
                                                     {115, 3},
                                                     {116, 2},  // strides 1, 2
                                                     {117, 3},
                                                     {118, 6},
                                                     {119, 9},
                                                     {120, 18}}));         // limits 3, 6
  CHECK(nonzero(graph, 5) == with(empty_products(), {{13, 1}, {28, 1}}));  // a scalar: no dims, product 1
  CHECK(nonzero(graph, 6) == with(empty_products(), {{13, 1},
                                                     {21, 3},
                                                     {22, 7},
                                                     {27, 10},
                                                     {28, 21},
                                                     {134, 1},
                                                     {125, 0},
                                                     {126, 2},
                                                     {127, 2},
                                                     {128, 0},  // low 0, 2
                                                     {129, 1},
                                                     {130, 2},
                                                     {131, 3},
                                                     {132, 2}}));                                     // high 1, 2 (interior not kept)
  CHECK(nonzero(graph, 7) == with(empty_products(), {{13, 1}, {21, 6}, {27, 6}, {28, 6}, {31, 0}}));  // dimensions={0}: column 31 = 0
  CHECK(nonzero(graph, 8) == with(empty_products(), {{0, 1}, {18, 1}, {28, 1}, {29, 2}}));  // tuple: 2 elements, no dims or layout
  CHECK(nonzero(graph, 2)[0] == 1);                                                         // add's ROOT is a root too
  CHECK(nonzero(graph, 1)[30] == 1);
}

TEST_CASE("hlo graph: edges, called roots, node_splits, names", "[hlo]") {
  const HloGraph hlo = graph_of(R"(HloModule m
region_cond {
  p = (s32[]) parameter(0)
  ROOT c = pred[] constant(false)
}
body {
  p = (s32[]) parameter(0)
  ROOT q = (s32[]) copy(p), metadata={op_name="jit(f)/while/body"}
}
ENTRY main {
  a = s32[] parameter(0)
  init = (s32[]) tuple(a, a)
  ROOT w = (s32[]) while(init), condition=region_cond, body=body
})");
  const TpuGraph& graph = hlo.graph;
  REQUIRE(graph.node_count == 7);
  std::vector<std::pair<int32_t, int32_t>> edges;
  for (const Edge& e : graph.edges) edges.emplace_back(e.consumer, e.producer);
  // body: q->p; entry: init->a (once), w->init, w->c (cond's ROOT), w->q (body's ROOT). c has no operand.
  CHECK(edges == std::vector<std::pair<int32_t, int32_t>>{{3, 2}, {5, 4}, {6, 1}, {6, 3}, {6, 5}});
  CHECK(graph.node_splits == std::vector<int64_t>{0, 2, 7});  // after "region_cond" (contains "cond"), and n
  CHECK(graph.names.instructions == std::vector<std::string>{"p", "c", "p", "q", "a", "init", "w"});
  CHECK(graph.names.computation_of(3) == "body");
  CHECK(graph.names.op_names[3] == "jit(f)/while/body");
  CHECK(graph.names.op_names[4].empty());
  CHECK(graph.node_opcodes[6] == opcode::kWhile);
}

TEST_CASE("hlo: unknown opcodes get id 0 and are listed once", "[hlo]") {
  const HloGraph hlo = graph_of("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[2] erf(a)\n  ROOT c = f32[2] erf(b)\n}\n");
  CHECK(hlo.graph.node_opcodes[1] == 0);
  CHECK(hlo.unknown_opcodes == std::vector<std::string>{"erf"});
}

TEST_CASE("hlo configs: config 0 holds the written layouts, random configs are valid", "[hlo]") {
  const HloModule module = parse_hlo_module(R"(HloModule m
ENTRY e {
  x = f32[8,16]{0,1} parameter(0)
  y = f32[16,4]{1,0} parameter(1)
  d = f32[8,4]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r = f32[32]{0} reshape(d)
  v = f32[32] reshape(r)
  ROOT t = f32[2,16] reshape(v)
})",
                                            "m.hlo");
  HloGraph hlo = build_hlo_graph(module);
  add_layout_configs(module, hlo, 50, 7);
  const TpuGraph& graph = hlo.graph;
  // dot (2), reshape d->r (rank 2 -> 1: a choice exists), t (rank 1 -> 2); v (1 -> 1) is not configurable.
  CHECK(graph.configurable_nodes == std::vector<int32_t>{2, 3, 5});
  CHECK(graph.config_count == 51);
  const std::vector<int8_t> dot(graph.layout_config_features.begin(), graph.layout_config_features.begin() + 18);
  CHECK(dot == std::vector<int8_t>{1, 0, -1, -1, -1, -1, 0, 1, -1, -1, -1, -1, 1, 0, -1, -1, -1, -1});
  // t's output has no written layout: the compiler's choice (all -1); its input v has none either.
  for (int k = 0; k < 18; ++k) CHECK(graph.layout_value(0, 2, k) == -1);
  for (int32_t c = 1; c < graph.config_count; ++c) {
    for (int32_t slot = 0; slot < 3; ++slot) {
      const int ranks[3][3] = {{2, 2, 2}, {1, 2, 0}, {2, 1, 0}};  // output, input, kernel
      for (int block = 0; block < 3; ++block) {
        std::vector<int> seen;
        for (int k = 0; k < 6; ++k) {
          const int value = graph.layout_value(c, slot, block * 6 + k);
          if (value < 0) continue;
          CHECK(value < ranks[slot][block]);
          CHECK(std::find(seen.begin(), seen.end(), value) == seen.end());
          seen.push_back(value);
        }
      }
    }
  }
  CHECK(graph.runtimes_hidden);
}

TEST_CASE("hlo tile kernels: one per fusion, with parameters and the fusion as ROOT", "[hlo]") {
  const HloModule module = parse_hlo_module(R"(HloModule m
fused {
  a = f32[256,1024]{1,0} parameter(0)
  ROOT n = f32[256,1024]{1,0} negate(a)
}
ENTRY e {
  x = f32[256,1024]{1,0} parameter(0)
  ROOT f = f32[256,1024]{1,0} fusion(x), kind=kLoop, calls=fused
})",
                                            "m.hlo");
  const std::vector<FusionSite> sites = fusion_sites(module);
  REQUIRE(sites.size() == 1);
  std::vector<FusionKernel> kernels = {fusion_kernel(module, sites[0])};
  TpuGraph& kernel = kernels[0].hlo.graph;
  CHECK(kernel.kind == GraphKind::Tile);
  CHECK(kernel.node_count == 4);  // fused: a n; entry: x (as a parameter), f
  CHECK(kernel.names.instructions == std::vector<std::string>{"a", "n", "x", "f"});
  add_tile_configs(kernel, kernels[0].output.dims, kernels[0].output.minor_to_major, 1000, 0);
  // dim 0 (second-minor, alignment 8): 16, 32, ..., 256 cut it into <= 16 tiles -> 16 32 64 128 256;
  // dim 1 (minor, alignment 128): 128 256 512 1024 -> 5 x 4 configs.
  CHECK(kernel.config_count == 20);
  CHECK(kernel.tile_config_features[0] == 16);
  CHECK(kernel.tile_config_features[1] == 128);
  CHECK(kernel.tile_config_features[8] == 16);  // tiles along dim 0
}

TEST_CASE("hlo import streamed a few rows at a time writes the same bytes as the graph built in memory", "[hlo][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const std::string scratch = testing::scratch_dir("hlo_streamed");
  for (const auto& entry : std::filesystem::directory_iterator(testing::data_dir() + "/hlo")) {
    if (entry.path().extension() != ".hlo") continue;
    INFO(entry.path().string());
    HloImportOptions options;
    options.random_configs = 7;
    options.seed = 5;
    const std::string in_memory = scratch + "/in_memory.npz", streamed = scratch + "/streamed.npz";
    save_tpu_graph(import_hlo_layout(entry.path().string(), options).graph, in_memory);
    ModuleFileFormat format;
    const HloModule module = read_hlo_module(entry.path().string(), nullptr, &format);
    const auto configs = module_layout_configs(module, computation_first_nodes(module), options.random_configs, options.seed);
    const std::string provenance = module_provenance(entry.path().string(), format, module, configs->config_count() - 1, options.seed);
    write_hlo_layout_graph(module, *configs, streamed, {}, provenance);
    std::ifstream a(in_memory, std::ios::binary), b(streamed, std::ios::binary);
    const std::string bytes_a((std::istreambuf_iterator<char>(a)), {}), bytes_b((std::istreambuf_iterator<char>(b)), {});
    CHECK(bytes_a.size() == bytes_b.size());
    CHECK(bytes_a == bytes_b);
  }
}
