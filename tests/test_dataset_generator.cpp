// `graphcost gen` output: every file passes the real schema checks, the tree and hidden test split
// look like the real ones, the same seed gives the same bytes, numpy reads the files, and
// graphcost-eval scores the generated test split against the written solution.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>

#include "data/dataset_path.h"
#include "data/dataset_survey.h"
#include "data/tpu_graph.h"
#include "scoring/baseline_order.h"
#include "scoring/scorer.h"
#include "scoring/solution.h"
#include "synth/dataset_generator.h"
#include "test_support.h"

using namespace graphcost;
namespace fs = std::filesystem;

namespace {

GeneratorOptions small_options(const std::string& out, int threads) {
  GeneratorOptions options;
  options.out = out;
  options.graphs = 20;
  options.seed = 42;
  options.max_nodes = 1200;
  options.layout_configs = 120;
  options.threads = threads;
  return options;
}

// A generated tree in a folder of the calling test's own (CTest runs test cases in parallel).
std::string generated_tree(const std::string& name) {
  const std::string out = testing::scratch_dir(name);
  generate_dataset(small_options(out, 2));
  return out;
}

}  // namespace

TEST_CASE("generated files pass the schema checks and form the official tree", "[generator]") {
  const std::string dir = testing::scratch_dir("generated_schema");
  const GeneratorReport report = generate_dataset(small_options(dir, 2));
  REQUIRE(report.files.size() == 20);
  std::set<std::pair<std::string, std::string>> seen;
  std::map<std::string, std::set<std::string>> test_stems;  // source -> stems
  for (const std::string& path : find_npz_files(dir)) {
    INFO(path);
    const TpuGraph graph = load_tpu_graph(path);  // throws on any schema violation
    REQUIRE(graph.location.in_tree());
    seen.insert({graph.location.collection, graph.location.split});
    CHECK(graph.runtimes_hidden == (graph.location.split == "test"));
    CHECK(graph.node_splits.empty() == (graph.kind == GraphKind::Tile));
    for (const Edge& edge : graph.edges) CHECK(edge.consumer > edge.producer);  // topological order
    if (graph.kind == GraphKind::Layout) {
      CHECK(graph.config_count == 120);
      CHECK(graph.configurable_count() > 0);
      for (int32_t id : graph.configurable_nodes) {
        const int op = graph.node_opcodes[static_cast<size_t>(id)];
        CHECK((op == 26 || op == 34 || op == 75));  // convolution, dot, reshape
      }
      if (graph.location.split == "test") test_stems[graph.location.collection.substr(0, 10)].insert(graph.location.stem);
    } else if (graph.location.split == "test") {
      CHECK(std::all_of(graph.config_runtime_normalizers_ns.begin(), graph.config_runtime_normalizers_ns.end(),
                        [](int64_t n) { return n == 1; }));
    }
  }
  CHECK(seen.size() == 15);  // 5 collections x 3 splits
  // A layout test graph appears in both the default and the random collection under one hash.
  const Solution solution = read_solution(report.solution_path);
  for (const char* source : {"layout:xla", "layout:nlp"}) {
    std::set<std::string> default_ids, random_ids;
    for (const SolutionEntry& e : solution.entries) {
      if (e.collection == std::string(source) + ":default") default_ids.insert(e.id.substr(e.id.rfind(':')));
      if (e.collection == std::string(source) + ":random") random_ids.insert(e.id.substr(e.id.rfind(':')));
    }
    CHECK(default_ids == random_ids);
  }
  // Train and valid programs too: a file of the default collection is the random collection's
  // file of the same name with other configs (the compiler's search instead of random samples).
  for (const char* source : {"xla", "nlp"}) {
    for (const char* split : {"train", "valid"}) {
      const std::string folder = dir + "/npz/layout/" + source + "/";
      const std::vector<std::string> searched = find_npz_files(folder + "default/" + split);
      REQUIRE(!searched.empty());
      for (const std::string& path : searched) {
        INFO(path);
        const TpuGraph a = load_tpu_graph(path);
        const TpuGraph b = load_tpu_graph(folder + "random/" + split + "/" + fs::path(path).filename().string());
        CHECK(a.node_features == b.node_features);
        CHECK(a.node_opcodes == b.node_opcodes);
        CHECK(a.configurable_nodes == b.configurable_nodes);
        CHECK(a.layout_config_features != b.layout_config_features);
      }
    }
  }
}

TEST_CASE("the same seed gives byte-identical files, whatever the thread count", "[generator]") {
  const std::string one = testing::scratch_dir("generated_one_thread");
  const std::string two = generated_tree("generated_two_threads");
  generate_dataset(small_options(one, 1));
  const std::vector<std::string> a = find_npz_files(one), b = find_npz_files(two);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO(a[i]);
    CHECK(fs::path(a[i]).filename() == fs::path(b[i]).filename());
    CHECK(testing::read_bytes(a[i]) == testing::read_bytes(b[i]));
  }
  CHECK(testing::read_bytes(one + "/solution_test.csv") == testing::read_bytes(two + "/solution_test.csv"));
}

TEST_CASE("numpy reads every generated file with the real keys, dtypes and orders", "[generator][numpy]") {
  std::string output;
  const int status =
      testing::run_python(testing::source_dir() + "/tests/fixtures/check_tpugraphs_tree.py", {generated_tree("generated_numpy")}, output);
  INFO(output);
  CHECK(status == 0);
}

TEST_CASE("graphcost-eval scores the generated test split", "[generator][scoring]") {
  const std::string tree = generated_tree("generated_scoring");
  const Solution solution = read_solution(tree + "/solution_test.csv");
  REQUIRE(solution.entries.size() >= 5);
  std::string text = "ID,TopConfigs\n";
  for (const std::string& path : find_npz_files(tree)) {
    const DatasetPath location = parse_dataset_path(path);
    if (location.split != "test") continue;
    const std::vector<int32_t> order = baseline_order(load_tpu_graph(path), BaselineStrategy::FewestChanges, 0);
    text += location.kaggle_id() + ",";
    const size_t count = location.is_tile() ? std::min<size_t>(5, order.size()) : order.size();
    for (size_t i = 0; i < count; ++i) text += (i ? ";" : "") + std::to_string(order[i]);
    text += "\n";
  }
  const SubmissionCheck check = check_submission_text(text, solution);
  INFO(check.format_errors("generated.csv"));
  REQUIRE(check.valid());
  const ScoreReport report = score_submission(solution, check);
  for (int c = 0; c < 5; ++c) CHECK(report.public_board.graphs_scored[c] + report.private_board.graphs_scored[c] > 0);
  CHECK(std::isfinite(report.public_board.overall));
}

TEST_CASE("with a minimum size, nlp program sizes spread over [min, max]; max_configurable caps them", "[generator]") {
  GeneratorOptions options;
  options.out = testing::scratch_dir("generated_sizes");
  options.graphs = 8;
  options.seed = 7;
  options.collections = {"layout:nlp:random"};
  options.min_nodes = 2000;
  options.max_nodes = 6000;
  options.max_configurable = 150;
  options.layout_configs = 4;
  const GeneratorReport report = generate_dataset(options);
  REQUIRE(report.files.size() == 8);
  std::set<int> sizes;
  for (const GeneratedFile& file : report.files) {
    INFO(file.path << ": " << file.nodes << " nodes, " << file.configurable << " configurable");
    CHECK(file.nodes >= options.min_nodes * 9 / 10);  // a program stops growing at 90% of its drawn size
    CHECK(file.nodes <= options.max_nodes);
    CHECK(file.configurable <= options.max_configurable);
    sizes.insert(file.nodes);
  }
  // Before, every bert program stopped growing at the minimum: 8 files of one size.
  CHECK(sizes.size() >= 4);
  CHECK(*sizes.rbegin() - *sizes.begin() >= 1000);
}
