#include "metrics/kendall_tau.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace graphcost {
namespace {

int64_t tied_pairs(int64_t run) { return run * (run - 1) / 2; }

// Sorts `values` ascending (stable merge sort, bottom-up) and returns the number of strict
// inversions: pairs i < j with values[i] > values[j].
int64_t sort_counting_inversions(std::vector<double>& values) {
  const size_t n = values.size();
  std::vector<double> buffer(n);
  int64_t inversions = 0;
  // Short runs by insertion sort first: cheaper than merging single elements.
  constexpr size_t kRun = 16;
  for (size_t start = 0; start < n; start += kRun) {
    const size_t end = std::min(n, start + kRun);
    for (size_t i = start + 1; i < end; ++i) {
      const double value = values[i];
      size_t j = i;
      while (j > start && values[j - 1] > value) {
        values[j] = values[j - 1];
        --j;
      }
      inversions += static_cast<int64_t>(i - j);
      values[j] = value;
    }
  }
  double* from = values.data();
  double* to = buffer.data();
  for (size_t width = kRun; width < n; width *= 2) {
    for (size_t left = 0; left < n; left += 2 * width) {
      const size_t middle = std::min(n, left + width), right = std::min(n, left + 2 * width);
      size_t i = left, j = middle, out = left;
      while (i < middle && j < right) {
        if (from[j] < from[i]) {
          inversions += static_cast<int64_t>(middle - i);
          to[out++] = from[j++];
        } else {
          to[out++] = from[i++];
        }
      }
      while (i < middle) to[out++] = from[i++];
      while (j < right) to[out++] = from[j++];
    }
    std::swap(from, to);
  }
  if (from != values.data()) std::copy(from, from + n, values.data());
  return inversions;
}

}  // namespace

KendallCounts kendall_counts(const double* x, const double* y, size_t n) {
  KendallCounts counts;
  for (size_t i = 0; i < n; ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i])) {
      counts.has_nan = true;
      return counts;
    }
  }
  counts.total_pairs = static_cast<int64_t>(n) * (static_cast<int64_t>(n) - 1) / 2;
  if (n < 2) return counts;
  // Order by x, ties by y; then Q = strict inversions of the y sequence.
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return x[a] < x[b] || (x[a] == x[b] && y[a] < y[b]);
  });
  std::vector<double> y_sorted_by_x(n);
  int64_t x_run = 1, joint_run = 1;
  for (size_t i = 0; i < n; ++i) {
    y_sorted_by_x[i] = y[order[i]];
    if (i == 0) continue;
    const bool same_x = x[order[i]] == x[order[i - 1]];
    const bool same_y = y_sorted_by_x[i] == y_sorted_by_x[i - 1];
    if (same_x) {
      ++x_run;
    } else {
      counts.x_ties += tied_pairs(x_run);
      x_run = 1;
    }
    if (same_x && same_y) {
      ++joint_run;
    } else {
      counts.joint_ties += tied_pairs(joint_run);
      joint_run = 1;
    }
  }
  counts.x_ties += tied_pairs(x_run);
  counts.joint_ties += tied_pairs(joint_run);
  counts.discordant = sort_counting_inversions(y_sorted_by_x);
  int64_t y_run = 1;
  for (size_t i = 1; i < n; ++i) {
    if (y_sorted_by_x[i] == y_sorted_by_x[i - 1]) {
      ++y_run;
    } else {
      counts.y_ties += tied_pairs(y_run);
      y_run = 1;
    }
  }
  counts.y_ties += tied_pairs(y_run);
  return counts;
}

double kendall_tau_b(const double* x, const double* y, size_t n) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (n == 0) return kNaN;
  const KendallCounts c = kendall_counts(x, y, n);
  if (c.has_nan || c.x_ties == c.total_pairs || c.y_ties == c.total_pairs) return kNaN;
  // Same operation order as scipy: con_minus_dis / sqrt(tot - xtie) / sqrt(tot - ytie).
  const double tau = static_cast<double>(c.concordant_minus_discordant()) /
                     std::sqrt(static_cast<double>(c.total_pairs - c.x_ties)) /
                     std::sqrt(static_cast<double>(c.total_pairs - c.y_ties));
  return std::min(1.0, std::max(-1.0, tau));
}

double kendall_tau_a(const double* x, const double* y, size_t n) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (n < 2) return kNaN;
  const KendallCounts c = kendall_counts(x, y, n);
  if (c.has_nan) return kNaN;
  return static_cast<double>(c.concordant_minus_discordant()) / static_cast<double>(c.total_pairs);
}

}  // namespace graphcost
