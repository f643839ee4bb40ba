#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "common/input_error.h"
#include "data/dataset_survey.h"
#include "data/graph_summary.h"
#include "data/tpu_graph.h"
#include "test_support.h"

using namespace graphcost;

namespace {

const std::string kNlpDefaultTest = "npz/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz";
const std::string kXlaDefaultTrain = "npz/layout/xla/default/train/unet3d.npz";
const std::string kTileTrain = "npz/tile/xla/train/retinanet.2x2.fp32_-342c949e14733d96.npz";

// A copy of `npz` with `key` replaced (or added) by `array`, or removed when `array` is null.
NpzFile with_array(const NpzFile& npz, const std::string& key, const NpyArray* array) {
  NpzFile copy;
  copy.source_name = npz.source_name;
  bool replaced = false;
  for (const auto& [name, value] : npz.arrays) {
    if (name != key) {
      copy.arrays.emplace_back(name, value);
    } else if (array != nullptr) {
      copy.arrays.emplace_back(name, *array);
      replaced = true;
    }
  }
  if (array != nullptr && !replaced) copy.arrays.emplace_back(key, *array);
  return copy;
}

void check_dtype(const NpzFile& npz, const std::string& key, DType dtype, bool fortran = false) {
  INFO(npz.source_name << ": " << key);
  const NpyArray* array = npz.find(key);
  REQUIRE(array != nullptr);
  CHECK(array->dtype() == dtype);
  if (array->rank() >= 2 && key == "edge_index" && array->shape()[0] > 1) CHECK(array->fortran_order() == fortran);
}

}  // namespace

TEST_CASE("every shared TpuGraphs file loads with the documented keys, dtypes and shapes", "[tpu_graph][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const std::vector<std::string> files = find_npz_files(testing::data_dir() + "/tpugraphs");
  REQUIRE(files.size() == 16);
  for (const std::string& path : files) {
    INFO(path);
    const NpzFile npz = read_npz_file(path);
    const TpuGraph graph = tpu_graph_from_npz(npz, path);
    REQUIRE(graph.location.in_tree());
    const bool layout = graph.kind == GraphKind::Layout;
    CHECK(layout == graph.location.is_layout());
    check_dtype(npz, "node_feat", DType::Float32);
    check_dtype(npz, "node_opcode", DType::UInt8);
    check_dtype(npz, "edge_index", DType::Int64, layout);
    check_dtype(npz, "config_runtime", DType::Int64);
    if (layout) {
      check_dtype(npz, "node_config_feat", DType::Float32);
      check_dtype(npz, "node_config_ids", DType::Int64);
      check_dtype(npz, "node_splits", DType::Int64);
      CHECK(graph.layout_config_features.size() == size_t(graph.config_count) * graph.configurable_count() * 18);
      CHECK(graph.node_splits.front() == 0);
      CHECK(graph.node_splits.back() == graph.node_count);
    } else {
      check_dtype(npz, "config_feat", DType::Float32);
      check_dtype(npz, "config_runtime_normalizers", DType::Int64);
      CHECK(graph.tile_config_features.size() == size_t(graph.config_count) * 24);
    }
    CHECK(graph.node_features.size() == size_t(graph.node_count) * 140);
    CHECK(graph.node_opcodes.size() == size_t(graph.node_count));
    CHECK(graph.config_runtime_ns.size() == size_t(graph.config_count));
    CHECK(graph.runtimes_hidden == (graph.location.split == "test"));
    // Observed fact of the dataset: nodes are in topological order (producer first).
    CHECK(summarize_graph(graph).topologically_ordered);
  }
}

TEST_CASE("shared files match the sizes in the data README", "[tpu_graph][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const TpuGraph nlp = load_tpu_graph(testing::real_file(kNlpDefaultTest));
  CHECK(nlp.node_count == 21918);
  CHECK(nlp.configurable_count() == 848);
  CHECK(nlp.config_count == 1001);
  CHECK(nlp.runtimes_hidden);
  CHECK(nlp.location.kaggle_id() == "layout:nlp:default:3a0c5517a87df8d82fd637b83298a3ba");

  const TpuGraph unet = load_tpu_graph(testing::real_file(kXlaDefaultTrain));
  CHECK(unet.node_count == 2774);
  CHECK(unet.configurable_count() == 56);
  CHECK(unet.config_count == 1159);
  CHECK_FALSE(unet.runtimes_hidden);

  const TpuGraph rnn = load_tpu_graph(testing::real_file("npz/layout/xla/random/train/openai_v0_rnn_optimized.npz"));
  CHECK(rnn.config_count == 20);
  CHECK(count_distinct_configs(rnn) == 1);

  for (const std::string& test_tile : find_npz_files(testing::real_file("npz/tile/xla/test"))) {
    const TpuGraph tile = load_tpu_graph(test_tile);
    CHECK(tile.node_count >= 2);
    CHECK(tile.node_count <= 65);
    CHECK(tile.config_count >= 25);
    CHECK(tile.config_count <= 2951);
    CHECK(std::all_of(tile.config_runtime_normalizers_ns.begin(), tile.config_runtime_normalizers_ns.end(),
                      [](int64_t n) { return n == 1; }));
  }
}

TEST_CASE("the nonconforming alexnet file is refused naming node_feat and 140", "[tpu_graph][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const std::string path = testing::data_dir() + "/nonconforming/alexnet_trimmed_columns.npz";
  try {
    load_tpu_graph(path);
    FAIL("alexnet_trimmed_columns.npz was accepted");
  } catch (const InputError& error) {
    CHECK(error.file() == path);
    CHECK(error.field() == "node_feat");
    CHECK_THAT(error.expected(), Catch::Contains("140"));
    CHECK_THAT(error.actual(), Catch::Contains("(372, 70)"));
  }
}

TEST_CASE("int32 and float64 variants load identically", "[tpu_graph][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const std::string path = testing::real_file(kXlaDefaultTrain);
  const NpzFile npz = read_npz_file(path);
  const TpuGraph original = tpu_graph_from_npz(npz, path);
  const NpyArray edges32 =
      NpyArray::from_values<int32_t>(npz.find("edge_index")->shape(), npz.find("edge_index")->to_vector<int32_t>("", ""));
  const std::vector<float> features = npz.find("node_feat")->to_vector<float>("", "");
  const NpyArray features64 =
      NpyArray::from_values<double>(npz.find("node_feat")->shape(), std::vector<double>(features.begin(), features.end()));
  const NpyArray ids32 =
      NpyArray::from_values<int32_t>(npz.find("node_config_ids")->shape(), npz.find("node_config_ids")->to_vector<int32_t>("", ""));
  NpzFile variant = with_array(with_array(with_array(npz, "edge_index", &edges32), "node_feat", &features64), "node_config_ids", &ids32);
  const TpuGraph loaded = tpu_graph_from_npz(variant, path);
  CHECK(loaded.node_features == original.node_features);
  CHECK(loaded.configurable_nodes == original.configurable_nodes);
  REQUIRE(loaded.edges.size() == original.edges.size());
  for (size_t e = 0; e < loaded.edges.size(); ++e) {
    CHECK(loaded.edges[e].consumer == original.edges[e].consumer);
    CHECK(loaded.edges[e].producer == original.edges[e].producer);
  }
}

TEST_CASE("save_tpu_graph writes files that load back identically", "[tpu_graph][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const std::string dir = testing::scratch_dir("save_tpu_graph");
  for (const std::string& relative : {kXlaDefaultTrain, kTileTrain}) {
    const TpuGraph graph = load_tpu_graph(testing::real_file(relative));
    const std::string out = dir + "/" + std::filesystem::path(relative).filename().string();
    save_tpu_graph(graph, out);
    const NpzFile written = read_npz_file(out);
    CHECK(written.find("edge_index")->fortran_order() == (graph.kind == GraphKind::Layout));
    const TpuGraph again = tpu_graph_from_npz(written, out);
    CHECK(again.node_features == graph.node_features);
    CHECK(again.node_opcodes == graph.node_opcodes);
    CHECK(again.tile_config_features == graph.tile_config_features);
    CHECK(again.layout_config_features == graph.layout_config_features);
    CHECK(again.configurable_nodes == graph.configurable_nodes);
    CHECK(again.node_splits == graph.node_splits);
    CHECK(again.config_runtime_ns == graph.config_runtime_ns);
    CHECK(again.config_runtime_normalizers_ns == graph.config_runtime_normalizers_ns);
    CHECK(summarize_graph(again).edges == summarize_graph(graph).edges);
  }
}

TEST_CASE("schema violations are refused with file, key, expected and actual", "[tpu_graph][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const std::string path = testing::real_file(kXlaDefaultTrain);
  const NpzFile npz = read_npz_file(path);
  auto refuses = [&](const NpzFile& bad, const std::string& field, const std::string& needle) {
    try {
      tpu_graph_from_npz(bad, path);
      FAIL("accepted a file with a bad " << field);
    } catch (const InputError& error) {
      INFO(error.what());
      CHECK(error.file() == path);
      CHECK(error.field() == field);
      CHECK_THAT(std::string(error.what()), Catch::Contains(needle));
    }
  };
  refuses(with_array(npz, "node_splits", nullptr), "key 'node_splits'", "missing");

  std::vector<int64_t> edges = npz.find("edge_index")->to_vector<int64_t>("", "");
  edges[6] = 2774;
  const NpyArray bad_edges = NpyArray::from_values<int64_t>(npz.find("edge_index")->shape(), edges);
  refuses(with_array(npz, "edge_index", &bad_edges), "edge_index", "[0, 2774)");

  std::vector<int64_t> ids = npz.find("node_config_ids")->to_vector<int64_t>("", "");
  std::swap(ids[3], ids[4]);
  const NpyArray unsorted = NpyArray::from_values<int64_t>({56}, ids);
  refuses(with_array(npz, "node_config_ids", &unsorted), "node_config_ids", "ascending");

  const NpyArray short_runtimes = NpyArray::from_values<int64_t>({3}, {1, 2, 3});
  refuses(with_array(npz, "config_runtime", &short_runtimes), "config_runtime", "c=1159");

  std::vector<int64_t> runtimes = npz.find("config_runtime")->to_vector<int64_t>("", "");
  runtimes[10] = 0;
  const NpyArray partly_hidden = NpyArray::from_values<int64_t>({1159}, runtimes);
  refuses(with_array(npz, "config_runtime", &partly_hidden), "config_runtime", "config 10");

  std::vector<uint8_t> opcodes = npz.find("node_opcode")->to_vector<uint8_t>("", "");
  opcodes[5] = 200;
  const NpyArray bad_opcodes = NpyArray::from_values<uint8_t>({2774}, opcodes);
  refuses(with_array(npz, "node_opcode", &bad_opcodes), "node_opcode", "200 at node 5");

  std::vector<float> layout = npz.find("node_config_feat")->to_vector<float>("", "");
  layout[18 * 3 + 2] = 7;
  const NpyArray bad_layout = NpyArray::from_values<float>({1159, 56, 18}, layout);
  refuses(with_array(npz, "node_config_feat", &bad_layout), "node_config_feat", "configurable node 3, column 2");

  std::vector<float> features = npz.find("node_feat")->to_vector<float>("", "");
  features[140 * 9 + 21] = std::nanf("");
  const NpyArray nan_features = NpyArray::from_values<float>({2774, 140}, features);
  refuses(with_array(npz, "node_feat", &nan_features), "node_feat", "shape_dimensions_0");

  const NpyArray float_runtimes = NpyArray::from_values<double>({1159}, std::vector<double>(1159, 1.0));
  refuses(with_array(npz, "config_runtime", &float_runtimes), "config_runtime", "integer dtype");

  const NpyArray no_nodes = NpyArray::from_values<float>({0, 140}, {});
  refuses(with_array(npz, "node_feat", &no_nodes), "node_feat", "at least one node");
}
