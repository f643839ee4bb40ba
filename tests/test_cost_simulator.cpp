// The simulator's physical properties: cost grows with size, layout mismatches cost copies, lane
// padding makes small minor dims expensive, noise stays within bounds, and the best per-op layouts
// are not the best program.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "data/opcodes.h"
#include "simulator/cost_simulator.h"
#include "synth/graph_families.h"

using namespace graphcost;

namespace {

// parameter (n, 32, 32, c) -> conv 3x3 -> relu -> conv 3x3: two configurable convolutions.
HloBuilder two_convs(int64_t batch, int64_t channels) {
  HloBuilder h;
  const int x = h.parameter({batch, 32, 32, channels}, ElementType::BF16, 0);
  const int a = h.convolution(x, h.parameter({3, 3, channels, channels}, ElementType::BF16, 1), {3, 3}, {1, 1});
  const int zero = h.broadcast(h.constant({}, ElementType::BF16), h.node(a).dims, {});
  const int relu = h.elementwise(opcode_id("maximum"), {a, zero});
  const int b = h.convolution(relu, h.parameter({3, 3, channels, channels}, ElementType::BF16, 2), {3, 3}, {1, 1});
  h.mark_root(b);
  return h;
}

std::vector<int32_t> convolutions(const HloBuilder& h) {
  std::vector<int32_t> ids;
  for (int id = 0; id < h.node_count(); ++id) {
    if (h.node(id).opcode == opcode::kConvolution) ids.push_back(id);
  }
  return ids;
}

}  // namespace

TEST_CASE("layout blocks resolve to full permutations", "[simulator]") {
  const std::vector<int> fallback = {3, 2, 1, 0};
  const int8_t none[6] = {-1, -1, -1, -1, -1, -1}, prefix[6] = {1, 3, -1, -1, -1, -1};
  CHECK(resolve_layout(none, fallback) == fallback);
  CHECK(resolve_layout(prefix, fallback) == std::vector<int>{1, 3, 2, 0});
}

TEST_CASE("program cost grows with size", "[simulator]") {
  const HloBuilder small = two_convs(8, 128), large = two_convs(32, 128);
  const LayoutProgram small_program(small, convolutions(small)), large_program(large, convolutions(large));
  CHECK(large_program.runtime(large_program.default_config()) > 2 * small_program.runtime(small_program.default_config()));
  TileKernel kernel{{64, 256}, 10, 8, false};
  TileKernel bigger{{256, 256}, 10, 8, false};
  CHECK(tile_runtime(bigger, {64, 256}) > tile_runtime(kernel, {64, 256}));
}

TEST_CASE("a layout mismatch between producer and consumer inserts a copy", "[simulator]") {
  const HloBuilder h = two_convs(16, 128);
  const LayoutProgram program(h, convolutions(h));
  const std::vector<int8_t> defaults = program.default_config();
  CHECK(program.copy_bytes(defaults) == 0);
  // The first conv writes W minor; the second still reads the default (C minor): a copy.
  std::vector<int8_t> mismatched = defaults;
  mismatched[0] = 2;
  CHECK(program.copy_bytes(mismatched) > 0);
  // The same change made consistently (the reader agrees) needs no copy.
  std::vector<int8_t> agreed = defaults;
  program.coordinated_change(agreed, 0, 2, 0);
  CHECK(program.copy_bytes(agreed) == 0);
  CHECK(program.runtime(mismatched) > program.runtime(agreed));
}

TEST_CASE("small minor dimensions waste lanes: padding is priced", "[simulator]") {
  TileKernel kernel{{4096, 4096}, 4, 8, false};
  // 4096 x 8 tiles vs 8 x 4096 tiles: the same elements, but 8 wide in the lane dim pads to 128.
  CHECK(tile_runtime(kernel, {4096, 8}) > 4 * tile_runtime(kernel, {8, 4096}));
  // A working set beyond VMEM spills: one huge tile loses to many that fit.
  TileKernel heavy{{4096, 4096}, 4, 64, false};
  CHECK(tile_runtime(heavy, {4096, 4096}) > 2 * tile_runtime(heavy, {16, 4096}));
}

TEST_CASE("measurement noise is log-normal with the stated sigma", "[simulator]") {
  std::mt19937_64 random(3);
  const double sigma = 0.015;
  double sum = 0, sum_squares = 0, worst = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double log_ratio = std::log(measure(1.0, sigma, random));
    sum += log_ratio;
    sum_squares += log_ratio * log_ratio;
    worst = std::max(worst, std::fabs(log_ratio));
  }
  const double mean = sum / n, sd = std::sqrt(sum_squares / n - mean * mean);
  CHECK(std::fabs(mean) < 0.001);
  CHECK(sd == Approx(sigma).epsilon(0.03));
  CHECK(worst < 6 * sigma);
}

TEST_CASE("the best layout per op is not the best program, and the default can be beaten", "[simulator]") {
  std::mt19937_64 random(11);
  int local_worse_than_default = 0, default_beaten_by_a_fifth = 0, programs = 0;
  for (GraphFamily family : {GraphFamily::ResNet, GraphFamily::UNet3D, GraphFamily::EfficientNet, GraphFamily::Bert}) {
    for (int trial = 0; trial < 3; ++trial) {
      const HloBuilder h = build_program(family, random, 1500);
      std::vector<int32_t> configurable;
      for (int id = 0; id < h.node_count(); ++id) {
        const int op = h.node(id).opcode;
        if ((op == opcode::kConvolution || op == opcode::kDot) && h.node(id).dims.size() >= 2) configurable.push_back(id);
      }
      const LayoutProgram program(h, configurable);
      const double default_time = program.runtime(program.default_config());
      local_worse_than_default += program.runtime(program.locally_best_config()) > default_time;
      // A short coordinated hill climb, as the generator's "default" search does.
      std::vector<int8_t> current = program.default_config();
      double current_time = default_time;
      for (int step = 0; step < 300 && !configurable.empty(); ++step) {
        std::vector<int8_t> proposal = current;
        const size_t slot = random() % configurable.size();
        const uint64_t rank = static_cast<uint64_t>(program.rank_of(configurable[slot]));
        program.coordinated_change(proposal, slot, static_cast<int>(random() % rank), static_cast<int>(random() % rank));
        const double time = program.runtime(proposal);
        if (time < current_time) {
          current = proposal;
          current_time = time;
        }
      }
      default_beaten_by_a_fifth += current_time < 0.8 * default_time;
      ++programs;
    }
  }
  INFO(programs << " programs");
  CHECK(local_worse_than_default > 0);
  CHECK(default_beaten_by_a_fifth > 0);
}

TEST_CASE("the incremental runtime is the full simulation's, bit for bit, config after config", "[simulator]") {
  for (GraphFamily family :
       {GraphFamily::ResNet, GraphFamily::Inception, GraphFamily::EfficientNet, GraphFamily::UNet3D, GraphFamily::Rnn, GraphFamily::Bert}) {
    std::mt19937_64 random(41 + static_cast<uint64_t>(family));
    const HloBuilder h = build_program(family, random, 700);
    const std::vector<int32_t> configurable = configurable_candidates(h);  // as graphcost gen picks them
    const LayoutProgram program(h, configurable);
    IncrementalLayoutRuntime incremental(program);
    INFO(family_name(family) << ": " << h.node_count() << " nodes, " << configurable.size() << " configurable");
    REQUIRE_FALSE(configurable.empty());
    const size_t nc = configurable.size();
    auto random_block = [&](int8_t* block, int rank) {
      for (int k = 0; k < 6; ++k) block[k] = static_cast<int8_t>(static_cast<int>(random() % static_cast<uint64_t>(rank + 1)) - 1);
    };
    std::vector<int8_t> config = program.default_config();
    CHECK(incremental.runtime(config) == program.runtime(config));
    CHECK(incremental.recomputed_nodes() == static_cast<size_t>(h.node_count()));  // the first config: everything
    CHECK(incremental.runtime(config) == program.runtime(config));
    CHECK(incremental.recomputed_nodes() == 0);  // the same config again: nothing
    for (int round = 0; round < 40; ++round) {
      if (round % 2 == 0) {  // a random config (layout:*:random)
        for (size_t slot = 0; slot < nc; ++slot) {
          for (int block = 0; block < 3; ++block) random_block(config.data() + slot * 18 + block * 6, program.rank_of(configurable[slot]));
        }
      } else {  // a search step: one or two slots changed (layout:*:default)
        for (int change = 0; change < 1 + round % 2; ++change) {
          const size_t slot = random() % nc;
          const int rank = program.rank_of(configurable[slot]);
          program.coordinated_change(config, slot, static_cast<int>(random() % static_cast<uint64_t>(rank)),
                                     static_cast<int>(random() % static_cast<uint64_t>(rank)));
        }
      }
      const double full = program.runtime(config);
      CHECK(incremental.runtime(config) == full);
      if (round % 2 == 1) CHECK(incremental.recomputed_nodes() < static_cast<size_t>(h.node_count()));
    }
    config = program.default_config();  // and back
    CHECK(incremental.runtime(config) == program.runtime(config));
  }
}

TEST_CASE("a pairwise sum is the same double however its terms were set", "[simulator]") {
  std::mt19937_64 random(5);
  auto term = [&] { return std::ldexp(static_cast<double>(random() % 1000003), -static_cast<int>(random() % 40)); };
  for (size_t count : {size_t(0), size_t(1), size_t(2), size_t(3), size_t(1000), size_t(1025)}) {
    INFO(count << " terms");
    std::vector<double> terms(count);
    for (double& t : terms) t = term();
    PairwiseSum updated(count);
    for (size_t i = 0; i < count; ++i) updated.set(i, terms[i]);
    double plain = 0;
    for (double t : terms) plain += t;
    CHECK(std::fabs(updated.total() - plain) <= 1e-12 * std::max(1.0, plain));
    // A few terms changed at a time (the path walk) and many at once (the rebuild) both end where a
    // fresh sum of the same terms ends.
    for (int round = 0; round < 20 && count > 0; ++round) {
      const size_t changes = round % 4 == 3 ? count : 1 + random() % 3;
      for (size_t k = 0; k < changes; ++k) {
        const size_t i = random() % count;
        terms[i] = term();
        updated.set(i, terms[i]);
      }
      PairwiseSum fresh(count);
      for (size_t i = count; i-- > 0;) fresh.set(i, terms[i]);  // set in the other order
      CHECK(updated.total() == fresh.total());
    }
  }
}
