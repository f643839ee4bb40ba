// How much memory reading input files may take: the bound behind the npz reader's memory policy
// (docs/architecture.md). Every .npz member's inflated size is charged against it before any of its
// data is inflated, so a small archive that declares huge arrays is refused up front.
//
// The limit is GRAPHCOST_MEMORY_LIMIT when set (a size: 512MiB, 4GiB, 1.5GB, 1000000), otherwise
// half of the machine's physical memory. A front end may set it from a flag instead.
#pragma once

#include <cstdint>
#include <string>

namespace graphcost {

// "256MiB", "4GiB", "1.5GB", "2k", "1000000" (bytes): binary (KiB, MiB, GiB, TiB) and decimal (kB,
// MB, GB, TB) units, case-insensitive, "B" optional. Throws InputError naming `what` otherwise.
uint64_t parse_byte_size(const std::string& text, const std::string& what);
// "1.5 GiB": for messages.
std::string format_byte_size(uint64_t bytes);

uint64_t physical_memory_bytes();
// The limit in force (see above); the environment variable is read once.
uint64_t input_memory_limit();
void set_input_memory_limit(uint64_t bytes);

}  // namespace graphcost
