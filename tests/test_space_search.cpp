// Searching a parameter space (tune/space_search.h, tune/space_target.h) on a small space written
// here: the genetic algorithm's children are configs of the space, unmeasured and distinct; the
// neighbourhood is the configs near the best measured; a space reaches the learners as config
// columns; a warm start predicts from another space of the same parameters.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>

#include "common/input_error.h"
#include "test_support.h"
#include "tune/space_search.h"
#include "tune/space_target.h"

using namespace graphcost;

namespace {

// x in 0..7, y in 0..7, z in {"a", "b"}; runtime (x - 5)^2 + (y - 2)^2 + 1 ms (z adds 1 ms for "b").
ParameterSpace small_space() {
  ParameterSpace space;
  space.source = "small";
  space.format = "test";
  space.parameters = {{"x", {}}, {"y", {}}, {"z", {"a", "b"}}};
  for (int v = 0; v < 8; ++v) space.parameters[0].values.push_back(v), space.parameters[1].values.push_back(v * 16);
  for (int32_t x = 0; x < 8; ++x) {
    for (int32_t y = 0; y < 8; ++y) {
      for (int32_t z = 0; z < 2; ++z) {
        if (x == 7 && y == 7) continue;  // a restriction: not in the space
        SpaceConfig config{{x, y, z}, ConfigOutcome::Ok, 1e-3 * ((x - 5) * (x - 5) + (y - 2) * (y - 2) + 1 + z), {}};
        space.configs.push_back(config);
      }
    }
  }
  return space;
}

Measurement ok(const ParameterSpace& space, int32_t config) {
  Measurement m;
  m.config = config;
  m.seconds = space.configs[static_cast<size_t>(config)].seconds;
  return m;
}

}  // namespace

TEST_CASE("space search: genetic children are unmeasured configs of the space, each once", "[tune][spaces]") {
  const ParameterSpace space = small_space();
  std::vector<Measurement> measured;
  std::vector<bool> unavailable(space.configs.size(), false);
  for (const int32_t c : {0, 17, 40, 63, 90, 101}) measured.push_back(ok(space, c)), unavailable[static_cast<size_t>(c)] = true;
  std::mt19937_64 random(7);
  const std::vector<int32_t> children = genetic_children(space, measured, unavailable, 10, random);
  REQUIRE(children.size() == 10);
  std::set<int32_t> distinct(children.begin(), children.end());
  CHECK(distinct.size() == 10);
  for (const int32_t c : children) CHECK_FALSE(unavailable[static_cast<size_t>(c)]);
  CHECK(genetic_children(space, {measured[0]}, unavailable, 10, random).empty());  // one measured: nothing to breed
}

TEST_CASE("space search: the neighbourhood is the configs within two parameters of the best measured", "[tune][spaces]") {
  const ParameterSpace space = small_space();
  const std::vector<float> costs(space.configs.size(), 1.0f);
  const std::vector<float> near = neighbourhood_costs(space, {ok(space, 0)}, costs);
  for (size_t c = 0; c < space.configs.size(); ++c) {
    const auto& v = space.configs[c].value_index;
    const int differing = (v[0] != 0) + (v[1] != 0) + (v[2] != 0);
    CHECK(std::isfinite(near[c]) == (differing <= kSpaceRadius));
  }
}

TEST_CASE("space target: the parameters are the learners' config columns; a warm start predicts from another space", "[tune][spaces]") {
  const ParameterSpace space = small_space();
  const TpuGraph graph = space_as_graph(space);
  REQUIRE(graph.config_count == static_cast<int32_t>(space.configs.size()));
  CHECK(graph.tile_config_features[kTileConfigFeatureCount * 9 + 1] == 64.0f);  // config 9: x 0, y at index 4 (64), z "b"
  CHECK(graph.tile_config_features[kTileConfigFeatureCount * 9 + 2] == 1.0f);   // a string value: its index
  const std::vector<float> prior = warm_start_costs(space, space, BoostedTreesOptions{});
  size_t best = 0;
  for (size_t c = 1; c < prior.size(); ++c) best = prior[c] < prior[best] ? c : best;
  CHECK(space.configs[best].value_index == std::vector<int32_t>{5, 2, 0});  // the trees find the optimum of what they were fitted on
  ParameterSpace other = space;
  other.parameters[2].name = "w";
  CHECK_THROWS_AS(warm_start_costs(space, other, BoostedTreesOptions{}), InputError);
}
