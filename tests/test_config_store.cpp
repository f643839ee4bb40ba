// Config stores (data/config_store.h): a prepared layout file holds each distinct config once, in
// first-appearance order, with its copies' mean runtime; preparing in tiny pieces gives the same
// bytes; stale, unfinished, truncated and invalid entries are refused by name; training and
// evaluation read a store as they read the file.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "common/input_error.h"
#include "data/collection_files.h"
#include "data/config_store.h"
#include "data/dataset_survey.h"
#include "data/graph_summary.h"
#include "model/graph_view.h"
#include "test_support.h"
#include "train/memory_estimate.h"
#include "train/trainer.h"

using namespace graphcost;

namespace {

// A generated layout file rewritten with duplicates: configs 0 and 1 copied to the end with other
// runtimes, so each has copies whose runtimes must be averaged.
std::string file_with_duplicates(const std::string& tree) {
  const std::string source = find_npz_files(tree).front();
  TpuGraph graph = load_tpu_graph(source);
  const size_t width = static_cast<size_t>(graph.configurable_count()) * kLayoutConfigFeatureCount;
  for (int32_t copy_of : {0, 1, 0}) {
    const auto row = graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(copy_of) * width);
    graph.layout_config_features.insert(graph.layout_config_features.end(), row, row + static_cast<std::ptrdiff_t>(width));
    graph.config_runtime_ns.push_back(graph.config_runtime_ns[static_cast<size_t>(copy_of)] + 1001);
    ++graph.config_count;
  }
  const std::string path = tree + "/npz/layout/xla/random/train/with_copies.npz";
  save_tpu_graph(graph, path);
  return path;
}

}  // namespace

TEST_CASE("a config store holds each distinct config once, with its copies' mean runtime", "[config_store]") {
  const std::string tree = testing::generate_tree("config_store", "layout:xla:random", 1, 21, 300, 60);
  const std::string source = file_with_duplicates(tree);
  const TpuGraph graph = load_tpu_graph(source);
  const std::string cache = testing::scratch_dir("config_store_cache");
  const std::string folder = config_store_folder(cache, source);
  CHECK(folder == cache + "/layout/xla/random/train/with_copies");

  const PreparedStore prepared = prepare_config_store(source, folder, 7);  // pieces smaller than a row
  const std::vector<int32_t> distinct = distinct_config_indices(graph);
  CHECK(prepared.configs == graph.config_count);
  CHECK(prepared.distinct == static_cast<int64_t>(distinct.size()));
  CHECK(prepared.distinct <= graph.config_count - 3);
  CHECK(config_store_is_current(folder, source));
  const std::vector<uint8_t> small_pieces = testing::read_bytes(folder + "/configs.npy");

  auto stored = StoredGraph::open(folder, source);
  REQUIRE(stored->config_count() == static_cast<int32_t>(distinct.size()));
  std::vector<int32_t> all(distinct.size());
  std::iota(all.begin(), all.end(), 0);
  const TpuGraph& selected = stored->select(all);
  CHECK(selected.source == source);
  CHECK(selected.config_count == stored->config_count());
  const size_t width = static_cast<size_t>(graph.configurable_count()) * kLayoutConfigFeatureCount;
  const std::vector<int32_t> representative = config_representatives(graph);
  int64_t copies_total = 0;
  for (size_t d = 0; d < distinct.size(); ++d) {
    const int32_t first = distinct[d];
    CHECK(std::equal(selected.layout_config_features.begin() + static_cast<std::ptrdiff_t>(d * width),
                     selected.layout_config_features.begin() + static_cast<std::ptrdiff_t>((d + 1) * width),
                     graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(first) * width)));
    int64_t sum = 0, copies = 0;
    for (int32_t c = 0; c < graph.config_count; ++c) {
      if (representative[static_cast<size_t>(c)] == first) sum += graph.config_runtime_ns[static_cast<size_t>(c)], ++copies;
    }
    CHECK(stored->copies()[d] == copies);
    CHECK(selected.config_runtime_ns[d] == (sum + copies / 2) / copies);
    copies_total += copies;
  }
  CHECK(copies_total == graph.config_count);
  // A selection is those rows in that order, in the same graph object.
  const TpuGraph& two = stored->select({3, 1});
  CHECK(&two == &selected);
  CHECK(two.config_count == 2);
  CHECK(std::equal(two.layout_config_features.begin(), two.layout_config_features.begin() + static_cast<std::ptrdiff_t>(width),
                   graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(distinct[3]) * width)));
  stored.reset();

  SECTION("preparing again keeps a current entry; pieces of any size give the same bytes") {
    CHECK(prepare_config_store(source, folder).reused);
    std::filesystem::remove_all(folder);
    CHECK_FALSE(prepare_config_store(source, folder, 1u << 20).reused);
    CHECK(testing::read_bytes(folder + "/configs.npy") == small_pieces);
  }
  SECTION("a changed source makes the entry stale") {
    TpuGraph changed = graph;
    changed.config_runtime_ns[0] += 1;
    std::filesystem::remove(source);
    save_tpu_graph(changed, source);
    std::filesystem::last_write_time(source, std::filesystem::last_write_time(source) + std::chrono::seconds(5));
    CHECK_FALSE(config_store_is_current(folder, source));
    CHECK_THROWS_WITH(StoredGraph::open(folder, source), Catch::Contains("stale") && Catch::Contains("graphcost prepare"));
  }
  SECTION("an unfinished entry (no manifest) is refused") {
    std::filesystem::remove(folder + "/manifest.json");
    CHECK_THROWS_WITH(StoredGraph::open(folder, source), Catch::Contains(folder) && Catch::Contains("unfinished"));
  }
  SECTION("a manifest with impossible counts is refused by open and rebuilt by prepare") {
    const std::vector<uint8_t> bytes = testing::read_bytes(folder + "/manifest.json");
    std::string text(bytes.begin(), bytes.end());
    const std::string distinct_field = "\"distinct\": " + std::to_string(distinct.size());
    REQUIRE(text.find(distinct_field) != std::string::npos);
    text.replace(text.find(distinct_field), distinct_field.size(), "\"distinct\": 999999999");
    testing::write_bytes(folder + "/manifest.json", std::vector<uint8_t>(text.begin(), text.end()));
    CHECK_FALSE(config_store_is_current(folder, source));
    CHECK_THROWS_WITH(StoredGraph::open(folder, source), Catch::Contains("manifest.json") && Catch::Contains("0 < distinct <= configs"));
    const PreparedStore again = prepare_config_store(source, folder);
    CHECK_FALSE(again.reused);
    CHECK(again.distinct == static_cast<int64_t>(distinct.size()));
    CHECK(StoredGraph::open(folder, source)->config_count() == static_cast<int32_t>(distinct.size()));
  }
  SECTION("a truncated configs.npy is refused with both sizes") {
    std::vector<uint8_t> bytes = testing::read_bytes(folder + "/configs.npy");
    bytes.resize(bytes.size() - 5);
    testing::write_bytes(folder + "/configs.npy", bytes);
    CHECK_THROWS_WITH(StoredGraph::open(folder, source), Catch::Contains("configs.npy") && Catch::Contains("truncated"));
  }
}

TEST_CASE("preparing refuses invalid config values and files that are not layout files in a tree", "[config_store]") {
  const std::string tree = testing::generate_tree("config_store_bad", "layout:xla:random", 1, 22, 300, 20);
  const std::string source = find_npz_files(tree).front();
  TpuGraph graph = load_tpu_graph(source);
  graph.layout_config_features[5 * static_cast<size_t>(graph.configurable_count()) * kLayoutConfigFeatureCount + 20] = 7;
  const std::string bad = tree + "/npz/layout/xla/random/train/bad_value.npz";
  save_tpu_graph(graph, bad);
  const std::string cache = testing::scratch_dir("config_store_bad_cache");
  CHECK_THROWS_WITH(prepare_config_store(bad, config_store_folder(cache, bad)),
                    Catch::Contains("bad_value.npz") && Catch::Contains("node_config_feat") && Catch::Contains("7.0") &&
                        Catch::Contains("at config 5, configurable node 1, column 2"));
  CHECK_FALSE(config_store_is_current(config_store_folder(cache, bad), bad));
  CHECK_THROWS_WITH(config_store_folder(cache, tree + "/npz/tile/xla/train/x.npz"), Catch::Contains("layout file"));
  CHECK_THROWS_WITH(config_store_folder(cache, "/tmp/loose.npz"), Catch::Contains("inside a TpuGraphs tree"));
}

TEST_CASE("training and evaluation read a config store as they read the files", "[config_store][training]") {
  const std::string tree = testing::generate_tree("config_store_training", "layout:xla:random", 4, 23, 300, 80);
  const std::string cache = testing::scratch_dir("config_store_training_cache");
  TrainOptions options;
  options.data = tree;
  options.collection = "layout:xla:random";
  options.out = testing::scratch_dir("config_store_training_model") + "/model.npz";
  options.epochs = 2;
  options.steps_per_epoch = 5;
  options.configs_per_step = 8;
  options.model.hidden = 16;
  options.model.opcode_embedding = 4;
  options.model.layers = 1;
  options.cache = cache;
  options.valid_configs = 30;
  size_t prepared = 0;
  options.on_prepare = [&](size_t, size_t, const std::string&, int64_t, int64_t distinct, bool) {
    CHECK(distinct > 0);
    ++prepared;
  };
  const TrainResult result = train_model(options);
  CHECK(prepared == result.train_graphs + result.valid_graphs);
  REQUIRE(result.epochs.size() == 2);
  CHECK(std::isfinite(result.epochs.back().valid_metric));

  // The same configs scored from the store and from the file give the same metric.
  CostModel model = CostModel::load(options.out);
  const std::string valid = collection_files(tree, "layout:xla:random", "valid").front();
  const TpuGraph graph = load_tpu_graph(valid);
  auto stored = StoredGraph::open(config_store_folder(cache, valid), valid);
  const std::vector<int32_t> distinct = distinct_config_indices(graph);
  std::vector<int32_t> from_store, from_file;
  for (int32_t d = 0; d < stored->config_count(); d += 3) from_store.push_back(d), from_file.push_back(distinct[static_cast<size_t>(d)]);
  const double store_metric = evaluate_model(model, {GraphConfigs{&stored->graph(), from_store, stored.get()}});
  const double file_metric = evaluate_model(model, {GraphConfigs{&graph, from_file, nullptr}});
  CHECK(store_metric == Approx(file_metric).margin(1e-12));

  SECTION("a budget below the estimate is refused before anything is loaded, naming the parts") {
    options.memory_budget = 1u << 20;
    CHECK_THROWS_WITH(train_model(options), Catch::Contains("memory budget") && Catch::Contains("structure") && Catch::Contains("a step") &&
                                                Catch::Contains("got 1 MiB"));
  }
  SECTION("a step is estimated on the rows of the model's pruned view, not on every node") {
    const std::vector<std::string> files = collection_files(tree, "layout:xla:random", "train");
    int64_t largest_view = 0, largest_graph = 0;
    for (const std::string& file : files) {
      const TpuGraph g = load_tpu_graph(file);
      largest_view = std::max<int64_t>(largest_view, make_graph_view(g, options.model.hops).size());
      largest_graph = std::max<int64_t>(largest_graph, g.node_count);
    }
    REQUIRE(largest_view < largest_graph);
    const uint64_t per_row = static_cast<uint64_t>(options.model.hidden) * 4 * 8 * static_cast<uint64_t>(options.model.layers + 1);
    CHECK(estimate_training_memory(files, options).step == static_cast<uint64_t>(options.configs_per_step * largest_view) * per_row);
    options.model.hops = -1;  // the whole graph
    CHECK(estimate_training_memory(files, options).step == static_cast<uint64_t>(options.configs_per_step * largest_graph) * per_row);
  }
  SECTION("graph segment training needs configs in memory") {
    options.segments.segment_nodes = 100;
    CHECK_THROWS_WITH(train_model(options), Catch::Contains("graph segment training"));
  }
}
