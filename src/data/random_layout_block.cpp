#include "data/random_layout_block.h"

#include <algorithm>
#include <vector>

#include "common/internal_error.h"

namespace graphcost {

void draw_random_layout_block(int8_t* block, int rank, std::mt19937_64& random) {
  check_invariant(rank >= 0 && rank <= 6, "a layout block's tensor has rank 0..6");
  std::fill(block, block + 6, static_cast<int8_t>(-1));
  if (rank == 0 || random() % 25 == 0) return;
  std::vector<int8_t> order(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) order[static_cast<size_t>(i)] = static_cast<int8_t>(i);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random() % i]);
  const int length = rank <= 2 ? rank : 2 + static_cast<int>(random() % static_cast<uint64_t>(rank - 1));
  std::copy(order.begin(), order.begin() + std::min(length, 6), block);
}

}  // namespace graphcost
