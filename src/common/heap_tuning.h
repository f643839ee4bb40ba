// Training and inference allocate and free multi-megabyte matrices for every layer of every step.
// glibc would map and unmap each one (page faults and zeroing on every use, 15-25% of a forward
// pass); keep_large_allocations_in_heap() tells it to keep them in the heap instead. Programs that
// run the model call it first thing in main(); elsewhere (and outside glibc) it does nothing.
#pragma once

namespace graphcost {

void keep_large_allocations_in_heap();

}  // namespace graphcost
