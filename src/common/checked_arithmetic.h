// Overflow-checked 64-bit arithmetic for sizes that come from files (shape dimensions, windows,
// slices, tile counts, runtimes): std::nullopt instead of a wrapped value, so a caller can refuse
// the input by name. Every size graphcost derives from a stranger's module goes through these.
#pragma once

#include <cstdint>
#include <optional>

namespace graphcost {

inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_add_overflow(a, b, &result)) return std::nullopt;
  return result;
}

inline std::optional<int64_t> checked_multiply(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_mul_overflow(a, b, &result)) return std::nullopt;
  return result;
}

// The sum and the product of `count` values `value(i)`, or std::nullopt when either leaves int64
// (an empty list sums to 0 and multiplies to 1).
struct SumAndProduct {
  int64_t sum = 0, product = 1;
};
template <typename Value>
std::optional<SumAndProduct> checked_sum_and_product(size_t count, Value value) {
  SumAndProduct result;
  for (size_t i = 0; i < count; ++i) {
    const int64_t v = static_cast<int64_t>(value(i));
    const std::optional<int64_t> sum = checked_add(result.sum, v), product = checked_multiply(result.product, v);
    if (!sum || !product) return std::nullopt;
    result.sum = *sum;
    result.product = *product;
  }
  return result;
}

}  // namespace graphcost
