#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "io/npz_file.h"
#include "metrics/kendall_tau.h"
#include "test_support.h"

using namespace graphcost;

namespace {

// The textbook O(n^2) definition.
double naive_tau_b(const std::vector<double>& x, const std::vector<double>& y) {
  int64_t concordant = 0, discordant = 0, tied_x_only = 0, tied_y_only = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    for (size_t j = i + 1; j < x.size(); ++j) {
      const double dx = x[i] - x[j], dy = y[i] - y[j];
      if (dx == 0 && dy == 0) continue;
      if (dx == 0) ++tied_x_only;
      else if (dy == 0) ++tied_y_only;
      else if ((dx > 0) == (dy > 0)) ++concordant;
      else ++discordant;
    }
  }
  const double p_q = static_cast<double>(concordant + discordant);
  return static_cast<double>(concordant - discordant) / std::sqrt((p_q + tied_x_only) * (p_q + tied_y_only));
}

double tau(const std::vector<double>& x, const std::vector<double>& y) { return kendall_tau_b(x.data(), y.data(), x.size()); }

}  // namespace

TEST_CASE("tau-b on hand-computed cases", "[kendall]") {
  CHECK(tau({1, 2, 3, 4}, {10, 20, 30, 40}) == 1.0);
  CHECK(tau({1, 2, 3, 4}, {40, 30, 20, 10}) == -1.0);
  // x = 1 2 3, y = 1 3 2: P = 2, Q = 1 -> 1/3.
  CHECK(tau({1, 2, 3}, {1, 3, 2}) == Approx(1.0 / 3.0).epsilon(1e-15));
  // With ties: x = 1 1 2, y = 1 2 3: P = 2, Q = 0, T = 1, U = 0 -> 2 / sqrt(2 * 3).
  CHECK(tau({1, 1, 2}, {1, 2, 3}) == Approx(2.0 / std::sqrt(6.0)).epsilon(1e-15));
  // tau-a of the same: (P - Q) / 3.
  const std::vector<double> x = {1, 1, 2}, y = {1, 2, 3};
  CHECK(kendall_tau_a(x.data(), y.data(), 3) == Approx(2.0 / 3.0));
}

TEST_CASE("tau-b NaN rules follow scipy", "[kendall]") {
  CHECK(std::isnan(tau({}, {})));
  CHECK(std::isnan(tau({1}, {2})));
  CHECK(std::isnan(tau({1, 1, 1}, {1, 2, 3})));
  CHECK(std::isnan(tau({1, 2, 3}, {4, 4, 4})));
  CHECK(std::isnan(tau({1, 2, std::nan("")}, {1, 2, 3})));
  CHECK(std::isnan(tau({1, 2, 3}, {1, std::nan(""), 3})));
  CHECK(tau({1, 2}, {1, 2}) == 1.0);
  CHECK(tau({-INFINITY, 0, INFINITY}, {1, 2, 3}) == 1.0);
}

TEST_CASE("tau-b equals the naive O(n^2) counter on small random cases", "[kendall]") {
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 500; ++trial) {
    const size_t n = 2 + random() % 60;
    const int range = 1 + static_cast<int>(random() % 8);
    std::vector<double> x(n), y(n);
    for (size_t i = 0; i < n; ++i) {
      x[i] = static_cast<double>(random() % range);
      y[i] = static_cast<double>(random() % (range + 2));
    }
    const double expected = naive_tau_b(x, y);
    const double actual = tau(x, y);
    INFO("trial " << trial << " n " << n);
    if (std::isnan(expected)) {
      CHECK(std::isnan(actual));
    } else {
      CHECK(std::fabs(actual - expected) <= 1e-12);
    }
  }
}

TEST_CASE("tau-b equals scipy.stats.kendalltau on 1,000 random cases (sizes 2 to 100,000)", "[kendall][scipy]") {
  const std::string dir = testing::scratch_dir("kendall_scipy");
  std::string output;
  const int status =
      testing::run_python(testing::source_dir() + "/tests/fixtures/make_kendall_cases.py", {dir + "/cases.npz", "1000", "1"}, output);
  INFO(output);
  REQUIRE(status == 0);
  const NpzFile cases = read_npz_file(dir + "/cases.npz");
  const std::vector<double> x = cases.find("x")->to_vector<double>("", "x");
  const std::vector<double> y = cases.find("y")->to_vector<double>("", "y");
  const std::vector<int64_t> offsets = cases.find("offsets")->to_vector<int64_t>("", "offsets");
  const std::vector<double> expected = cases.find("tau_b")->to_vector<double>("", "tau_b");
  REQUIRE(expected.size() == 1000);
  int nan_cases = 0, largest = 0;
  double worst = 0;
  for (size_t c = 0; c < expected.size(); ++c) {
    const size_t start = static_cast<size_t>(offsets[c]), n = static_cast<size_t>(offsets[c + 1] - offsets[c]);
    largest = std::max(largest, static_cast<int>(n));
    const double actual = kendall_tau_b(x.data() + start, y.data() + start, n);
    INFO("case " << c << ", n = " << n);
    if (std::isnan(expected[c])) {
      ++nan_cases;
      CHECK(std::isnan(actual));
    } else {
      REQUIRE_FALSE(std::isnan(actual));
      worst = std::max(worst, std::fabs(actual - expected[c]));
      CHECK(std::fabs(actual - expected[c]) <= 1e-12);
    }
  }
  CHECK(nan_cases > 10);
  CHECK(largest == 100000);
  WARN("largest |graphcost - scipy| = " << worst);
}

TEST_CASE("pair counts use 64 bits", "[kendall]") {
  // n = 100,000 gives ~5e9 pairs, beyond 32 bits.
  const size_t n = 100000;
  std::vector<double> x(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<double>(i);
    y[i] = static_cast<double>(n - i);
  }
  const KendallCounts counts = kendall_counts(x.data(), y.data(), n);
  CHECK(counts.total_pairs == int64_t(n) * (int64_t(n) - 1) / 2);
  CHECK(counts.discordant == counts.total_pairs);
  CHECK(kendall_tau_b(x.data(), y.data(), n) == -1.0);
}
