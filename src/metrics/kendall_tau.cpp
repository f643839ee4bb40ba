#include "metrics/kendall_tau.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

namespace graphcost {
namespace {

int64_t tied_pairs(int64_t run) { return run * (run - 1) / 2; }

// A monotone map from double to uint64 (x < y <=> key(x) < key(y)), with -0.0 == +0.0.
uint64_t ordered_key(double value) {
  if (value == 0.0) value = 0.0;
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return (bits >> 63) != 0 ? ~bits : bits | (uint64_t(1) << 63);
}

// Scratch arrays reused across calls (per thread): scoring calls tau once per graph, and fresh
// multi-megabyte allocations would cost more in zeroing and page faults than the sorting itself.
struct Workspace {
  std::unique_ptr<uint64_t[]> keys, keys_out;
  std::unique_ptr<uint32_t[]> index, y_rank, payload_out;
  size_t capacity = 0;

  void reserve(size_t n) {
    if (n <= capacity) return;
    keys.reset(new uint64_t[n]);  // default-initialised: no zeroing
    keys_out.reset(new uint64_t[n]);
    index.reset(new uint32_t[n]);
    y_rank.reset(new uint32_t[n]);
    payload_out.reset(new uint32_t[n]);
    capacity = n;
  }
};

// Stable LSD radix sort of keys[0, n), permuting payload alongside: 11-bit digits (6 passes for
// 64-bit keys), all histograms counted in one pass, and digits that every key shares skipped. The
// sorted data ends in `keys`/`payload` (swapped with the scratch arrays as needed).
void radix_sort(std::unique_ptr<uint64_t[]>& keys, std::unique_ptr<uint32_t[]>& payload, std::unique_ptr<uint64_t[]>& keys_scratch,
                std::unique_ptr<uint32_t[]>& payload_scratch, size_t n) {
  constexpr int kBits = 11, kDigits = (64 + kBits - 1) / kBits, kBuckets = 1 << kBits;
  if (n < 2) return;
  std::vector<uint32_t> histogram(static_cast<size_t>(kDigits) * kBuckets, 0);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t key = keys[i];
    for (int digit = 0; digit < kDigits; ++digit) ++histogram[digit * kBuckets + ((key >> (kBits * digit)) & (kBuckets - 1))];
  }
  for (int digit = 0; digit < kDigits; ++digit) {
    uint32_t* counts = histogram.data() + digit * kBuckets;
    const int shift = kBits * digit;
    if (counts[(keys[0] >> shift) & (kBuckets - 1)] == n) continue;  // all keys share this digit
    uint32_t offset = 0;
    for (int b = 0; b < kBuckets; ++b) {
      const uint32_t here = counts[b];
      counts[b] = offset;
      offset += here;
    }
    const uint64_t* in_keys = keys.get();
    const uint32_t* in_payload = payload.get();
    uint64_t* out_keys = keys_scratch.get();
    uint32_t* out_payload = payload_scratch.get();
    for (size_t i = 0; i < n; ++i) {
      const uint32_t slot = counts[(in_keys[i] >> shift) & (kBuckets - 1)]++;
      out_keys[slot] = in_keys[i];
      out_payload[slot] = in_payload[i];
    }
    keys.swap(keys_scratch);
    payload.swap(payload_scratch);
  }
}

// Merges sorted from[left, middle) and from[middle, right) into to[left, right); returns the
// pairs (i in left, j in right) with from[i] > from[j]. Branch-free: the comparison outcome is
// unpredictable on real data.
int64_t merge_counting(const uint32_t* from, uint32_t* to, size_t left, size_t middle, size_t right) {
  int64_t inversions = 0;
  size_t i = left, j = middle, out = left;
  while (i < middle && j < right) {
    const uint32_t a = from[i], b = from[j];
    const bool take_right = b < a;
    to[out++] = take_right ? b : a;
    inversions += take_right ? static_cast<int64_t>(middle - i) : 0;
    j += take_right;
    i += !take_right;
  }
  while (i < middle) to[out++] = from[i++];
  while (j < right) to[out++] = from[j++];
  return inversions;
}

// Sorts values[0, n) ascending and returns the number of strict inversions (pairs i < j with
// values[i] > values[j]). A natural merge sort: ascending runs already present (ties in x come
// sorted by y) are kept; runs shorter than 16 are extended by insertion sort; then runs merge
// pairwise. `buffer` (n entries) is scratch.
int64_t sort_counting_inversions(uint32_t* values, uint32_t* buffer, size_t n) {
  constexpr size_t kMinRun = 16;
  int64_t inversions = 0;
  std::vector<size_t> bounds = {0};  // run starts, then n
  size_t start = 0;
  while (start < n) {
    size_t end = start + 1;
    while (end < n && values[end - 1] <= values[end]) ++end;
    if (end - start < kMinRun) {
      const size_t stop = std::min(n, start + kMinRun);
      for (size_t i = end; i < stop; ++i) {
        const uint32_t value = values[i];
        size_t j = i;
        while (j > start && values[j - 1] > value) {
          values[j] = values[j - 1];
          --j;
        }
        inversions += static_cast<int64_t>(i - j);
        values[j] = value;
      }
      end = stop;
    }
    bounds.push_back(end);
    start = end;
  }
  uint32_t* from = values;
  uint32_t* to = buffer;
  while (bounds.size() > 2) {
    std::vector<size_t> merged = {0};
    size_t r = 0;
    for (; r + 2 < bounds.size(); r += 2) {
      inversions += merge_counting(from, to, bounds[r], bounds[r + 1], bounds[r + 2]);
      merged.push_back(bounds[r + 2]);
    }
    if (r + 1 < bounds.size() && bounds[r] < n) {  // an odd run left over: copy it across
      std::copy(from + bounds[r], from + n, to + bounds[r]);
      merged.push_back(n);
    }
    bounds.swap(merged);
    std::swap(from, to);
  }
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
  thread_local Workspace work;
  work.reserve(n);
  // 1. Sort by y; dense y ranks; pairs tied in y.
  for (size_t i = 0; i < n; ++i) {
    work.keys[i] = ordered_key(y[i]);
    work.index[i] = static_cast<uint32_t>(i);
  }
  radix_sort(work.keys, work.index, work.keys_out, work.payload_out, n);
  uint32_t rank = 0;
  int64_t run = 1;
  for (size_t k = 0; k < n; ++k) {
    if (k > 0 && work.keys[k] != work.keys[k - 1]) {
      ++rank;
      counts.y_ties += tied_pairs(run);
      run = 1;
    } else if (k > 0) {
      ++run;
    }
    work.y_rank[k] = rank;  // rank of the k-th smallest y
  }
  counts.y_ties += tied_pairs(run);
  // 2. Stable sort of the y-ordered sequence by x: order by x, ties by y. Payload: y ranks.
  constexpr size_t kPrefetchDistance = 16;  // the gather is random: fetch ahead
  for (size_t k = 0; k < n; ++k) {
    if (k + kPrefetchDistance < n) __builtin_prefetch(x + work.index[k + kPrefetchDistance]);
    work.keys[k] = ordered_key(x[work.index[k]]);
  }
  radix_sort(work.keys, work.y_rank, work.keys_out, work.payload_out, n);
  const uint64_t* keys = work.keys.get();
  const uint32_t* y_rank = work.y_rank.get();
  int64_t x_run = 1, joint_run = 1;
  for (size_t k = 1; k < n; ++k) {
    if (keys[k] == keys[k - 1]) {
      ++x_run;
      if (y_rank[k] == y_rank[k - 1]) {
        ++joint_run;
      } else {
        counts.joint_ties += tied_pairs(joint_run);
        joint_run = 1;
      }
    } else {
      counts.x_ties += tied_pairs(x_run);
      counts.joint_ties += tied_pairs(joint_run);
      x_run = joint_run = 1;
    }
  }
  counts.x_ties += tied_pairs(x_run);
  counts.joint_ties += tied_pairs(joint_run);
  // 3. Discordant pairs: strict inversions of the y ranks in (x, y) order.
  counts.discordant = sort_counting_inversions(work.y_rank.get(), work.payload_out.get(), n);
  return counts;
}

double kendall_tau_b(const double* x, const double* y, size_t n) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (n == 0) return kNaN;
  const KendallCounts c = kendall_counts(x, y, n);
  if (c.has_nan || c.x_ties == c.total_pairs || c.y_ties == c.total_pairs) return kNaN;
  // Same operation order as scipy: con_minus_dis / sqrt(tot - xtie) / sqrt(tot - ytie).
  const double tau = static_cast<double>(c.concordant_minus_discordant()) / std::sqrt(static_cast<double>(c.total_pairs - c.x_ties)) /
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
