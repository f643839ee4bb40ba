// The one translation unit that compiles Catch2's runner (slow to compile; shared by every test).
// Its main keeps the model's large matrices in the heap first, as the graphcost CLI does.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "common/heap_tuning.h"

int main(int argc, char** argv) {
  graphcost::keep_large_allocations_in_heap();
  return Catch::Session().run(argc, argv);
}
