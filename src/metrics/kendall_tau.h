// Kendall rank correlation, computed exactly as scipy.stats.kendalltau (scipy 1.10, default
// variant 'b', nan_policy='propagate'), in O(n log n) with 64-bit pair counts:
//   tau_b = (P - Q) / sqrt(P + Q + T) / sqrt(P + Q + U)
// P concordant pairs, Q discordant, T pairs tied only in x, U tied only in y. Result clipped to
// [-1, 1]. NaN when n == 0, when any value is NaN, or when all of x or all of y is tied (n < 2).
#pragma once

#include <cstddef>
#include <cstdint>

namespace graphcost {

struct KendallCounts {
  int64_t total_pairs = 0;  // n (n - 1) / 2
  int64_t discordant = 0;   // Q
  int64_t x_ties = 0;       // pairs tied in x (including joint ties)
  int64_t y_ties = 0;       // pairs tied in y (including joint ties)
  int64_t joint_ties = 0;   // pairs tied in both
  bool has_nan = false;
  int64_t concordant_minus_discordant() const {  // P - Q
    return total_pairs - x_ties - y_ties + joint_ties - 2 * discordant;
  }
};

KendallCounts kendall_counts(const double* x, const double* y, size_t n);
double kendall_tau_b(const double* x, const double* y, size_t n);
// tau_a = (P - Q) / (n (n - 1) / 2); NaN for n < 2 or NaN input.
double kendall_tau_a(const double* x, const double* y, size_t n);

}  // namespace graphcost
