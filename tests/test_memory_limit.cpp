#include <catch2/catch.hpp>

#include "common/input_error.h"
#include "common/memory_limit.h"

using namespace graphcost;

TEST_CASE("byte sizes in binary and decimal units", "[memory_limit]") {
  CHECK(parse_byte_size("256MiB", "--memory-budget") == 256ull << 20);
  CHECK(parse_byte_size("4GiB", "x") == 4ull << 30);
  CHECK(parse_byte_size("4 gib", "x") == 4ull << 30);
  CHECK(parse_byte_size("1.5GB", "x") == 1500000000ull);
  CHECK(parse_byte_size("2k", "x") == 2000);
  CHECK(parse_byte_size("512KiB", "x") == 512 * 1024);
  CHECK(parse_byte_size("1000000", "x") == 1000000);
  CHECK_THROWS_WITH(parse_byte_size("lots", "GRAPHCOST_MEMORY_LIMIT"),
                    "GRAPHCOST_MEMORY_LIMIT: expected a size such as 512MiB, 4GiB, 1.5GB or 1000000 (bytes), got 'lots'");
  CHECK_THROWS_AS(parse_byte_size("-1GiB", "x"), InputError);
  CHECK_THROWS_AS(parse_byte_size("0", "x"), InputError);
  CHECK_THROWS_AS(parse_byte_size("3PiB", "x"), InputError);
  CHECK(format_byte_size(512) == "512 bytes");
  CHECK(format_byte_size(3ull << 30) == "3 GiB");
}

TEST_CASE("the input memory limit defaults to half of physical memory", "[memory_limit]") {
  const uint64_t before = input_memory_limit();
  CHECK(before > 0);
  set_input_memory_limit(123456789);
  CHECK(input_memory_limit() == 123456789);
  set_input_memory_limit(before);
}
