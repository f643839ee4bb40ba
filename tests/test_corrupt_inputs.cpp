// Corrupt-input corpus: a real file truncated at 16 points, flipped bytes, a bad CRC, an npy header
// claiming 1e12 elements, a member whose declared size is 1000x its data. Every case must end in an
// InputError (or, for harmless flips, an identical graph): no crash, no hang (ctest timeout), no
// allocation above 100 MB. Each case runs in a forked child whose address space is capped at its
// size before the load + 100 MB (RLIMIT_AS catches malloc and mmap alike, touched or not); sanitizer
// builds cannot cap address space, so there ASAN_OPTIONS=max_allocation_size_mb=100 (set by CTest)
// does the same job, with every buffer going through malloc.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "common/input_error.h"
#include "data/tpu_graph.h"
#include "test_support.h"

using namespace graphcost;

namespace {

const char* kLayoutFile = "npz/layout/xla/default/test/cd708819d3f5103afd6460b15e74eaf3.npz";

bool same_graph(const TpuGraph& a, const TpuGraph& b) {
  return a.node_features == b.node_features && a.node_opcodes == b.node_opcodes && a.edges.size() == b.edges.size() &&
         std::memcmp(a.edges.data(), b.edges.data(), a.edges.size() * sizeof(Edge)) == 0 &&
         a.layout_config_features == b.layout_config_features && a.configurable_nodes == b.configurable_nodes &&
         a.config_runtime_ns == b.config_runtime_ns && a.node_splits == b.node_splits;
}

constexpr uint64_t kAllocationLimit = 100ull << 20;

enum class Outcome { Identical, Refused, Different, OutOfMemory, OtherException, Crashed };

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::Identical:
      return "loaded identically";
    case Outcome::Refused:
      return "refused with InputError";
    case Outcome::Different:
      return "loaded a DIFFERENT graph";
    case Outcome::OutOfMemory:
      return "allocated over the 100 MB limit";
    case Outcome::OtherException:
      return "threw something other than InputError";
    case Outcome::Crashed:
      return "crashed";
  }
  return "?";
}

struct LoadResult {
  Outcome outcome;
  std::string message;  // the InputError text, when refused
};

// Loads `bytes` as a TpuGraph in a child process with at most 100 MB more address space; a loaded
// graph is compared with `reference` (if given).
LoadResult load_in_child(const std::vector<uint8_t>& bytes, const std::string& name, const TpuGraph* reference = nullptr) {
  const testing::ChildResult child = testing::run_in_child(kAllocationLimit, [&](std::string& message) {
    try {
      const TpuGraph graph = tpu_graph_from_npz(read_npz(ByteSource::view_memory(name, bytes.data(), bytes.size())), name);
      return static_cast<int>(reference == nullptr || same_graph(graph, *reference) ? Outcome::Identical : Outcome::Different);
    } catch (const InputError& error) {
      message = error.what();
      return static_cast<int>(Outcome::Refused);
    }
  });
  if (child.crashed) return {Outcome::Crashed, child.output};
  if (child.exit_code == 101) return {Outcome::OutOfMemory, child.output};
  if (child.exit_code == 102) return {Outcome::OtherException, child.output};
  return {static_cast<Outcome>(child.exit_code), child.output};
}

// Offset of the central directory header of `member` in a zip written without zip64 central extras.
size_t central_entry(const std::vector<uint8_t>& bytes, const std::string& member) {
  for (size_t i = 0; i + 46 + member.size() <= bytes.size(); ++i) {
    if (bytes[i] == 'P' && bytes[i + 1] == 'K' && bytes[i + 2] == 1 && bytes[i + 3] == 2 &&
        std::memcmp(&bytes[i + 46], member.data(), member.size()) == 0) {
      return i;
    }
  }
  FAIL("no central directory entry for " << member);
  return 0;
}

uint32_t get_u32(const std::vector<uint8_t>& bytes, size_t at) {
  uint32_t value;
  std::memcpy(&value, &bytes[at], 4);
  return value;
}
void put_u32(std::vector<uint8_t>& bytes, size_t at, uint32_t value) { std::memcpy(&bytes[at], &value, 4); }

}  // namespace

TEST_CASE("the intact file loads within the allocation limit", "[corrupt]") {
  SKIP_WITHOUT_REAL_DATA();
  const std::vector<uint8_t> bytes = testing::read_bytes(testing::real_file(kLayoutFile));
  const LoadResult result = load_in_child(bytes, "intact.npz");
  INFO(result.message);
  CHECK(outcome_name(result.outcome) == std::string(outcome_name(Outcome::Identical)));
}

TEST_CASE("a real file truncated at 16 points is refused", "[corrupt]") {
  SKIP_WITHOUT_REAL_DATA();
  const std::vector<uint8_t> bytes = testing::read_bytes(testing::real_file(kLayoutFile));
  const std::string dir = testing::scratch_dir("truncated");
  const size_t n = bytes.size();
  const std::vector<size_t> cuts = {0, 1, 4, 21, 22, 30, 100, n / 8, n / 4, n / 3, n / 2, 2 * n / 3, n - 200, n - 23, n - 22, n - 1};
  REQUIRE(cuts.size() == 16);
  for (size_t cut : cuts) {
    INFO("truncated to " << cut << " of " << n << " bytes");
    const std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + cut);
    const LoadResult result = load_in_child(truncated, "truncated.npz");
    CHECK(outcome_name(result.outcome) == std::string(outcome_name(Outcome::Refused)));
    CHECK_THAT(result.message, Catch::Contains("truncated.npz"));
    // The same through the file reader.
    const std::string path = dir + "/cut_" + std::to_string(cut) + ".npz";
    testing::write_bytes(path, truncated);
    CHECK_THROWS_AS(load_tpu_graph(path), InputError);
  }
}

TEST_CASE("flipped bytes give an error or, in unchecked fields, the identical graph", "[corrupt]") {
  SKIP_WITHOUT_REAL_DATA();
  const std::vector<uint8_t> bytes = testing::read_bytes(testing::real_file(kLayoutFile));
  const TpuGraph original =
      tpu_graph_from_npz(read_npz(ByteSource::view_memory("original.npz", bytes.data(), bytes.size())), "original.npz");
  std::mt19937_64 random(12345);
  int refused = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<uint8_t> flipped = bytes;
    // Half the flips land in the last 2 KB (central directory and end records), half anywhere.
    const size_t position =
        trial % 2 == 0 ? random() % flipped.size() : flipped.size() - 1 - random() % std::min<size_t>(2048, flipped.size());
    flipped[position] ^= static_cast<uint8_t>(1 + random() % 255);
    INFO("flipped byte " << position);
    const LoadResult result = load_in_child(flipped, "flipped.npz", &original);
    INFO(result.message);
    CHECK((result.outcome == Outcome::Identical || result.outcome == Outcome::Refused));
    if (result.outcome == Outcome::Refused) {
      ++refused;
      CHECK_THAT(result.message, Catch::Contains("flipped.npz"));
    }
  }
  CHECK(refused > 150);
}

TEST_CASE("a bad CRC in the central directory is refused", "[corrupt]") {
  SKIP_WITHOUT_REAL_DATA();
  std::vector<uint8_t> bytes = testing::read_bytes(testing::real_file(kLayoutFile));
  const size_t entry = central_entry(bytes, "node_opcode.npy");
  put_u32(bytes, entry + 16, get_u32(bytes, entry + 16) ^ 0x5a5a5a5au);
  const LoadResult result = load_in_child(bytes, "crc.npz");
  CHECK(result.outcome == Outcome::Refused);
  CHECK_THAT(result.message, Catch::Contains("node_opcode.npy") && Catch::Contains("CRC-32"));
}

TEST_CASE("a member declaring 1000x its data is refused without allocating it", "[corrupt]") {
  SKIP_WITHOUT_REAL_DATA();
  std::vector<uint8_t> bytes = testing::read_bytes(testing::real_file(kLayoutFile));
  const size_t entry = central_entry(bytes, "node_config_feat.npy");
  const uint32_t real_size = get_u32(bytes, entry + 24);
  // Declared uncompressed size x1000 (kept under 4 GiB's zip64 marker by capping).
  const uint64_t claimed = std::min<uint64_t>(uint64_t(real_size) * 1000, 0xFFFFFFF0u);
  REQUIRE(claimed > kAllocationLimit);
  put_u32(bytes, entry + 24, static_cast<uint32_t>(claimed));
  const LoadResult result = load_in_child(bytes, "bloated.npz");
  INFO(outcome_name(result.outcome));
  CHECK(result.outcome == Outcome::Refused);
  CHECK_THAT(result.message, Catch::Contains("node_config_feat.npy") && Catch::Contains(std::to_string(claimed)));
}

TEST_CASE("an npy header claiming 1e12 elements is refused before allocating", "[corrupt]") {
  SKIP_WITHOUT_REAL_DATA();
  const NpzFile real = read_npz_file(testing::real_file(kLayoutFile));
  const std::string dir = testing::scratch_dir("huge_header");
  // node_feat.npy: header says (1e12, 140), data is 4 KB.
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000, 140), }";
  std::string text = std::string("\x93NUMPY\x01\x00", 8);
  text += static_cast<char>(dict.size() + 1);
  text += '\0';
  text += dict + "\n" + std::string(4096, '\0');
  const std::vector<uint8_t> member(text.begin(), text.end());
  const std::string path = dir + "/huge.npz";
  {
    ZipWriter writer(path);
    writer.add("node_feat.npy", {{member.data(), member.size()}}, ZipCompression::Deflate);
    for (const auto& [name, array] : real.arrays) {
      if (name == "node_feat") continue;
      const std::vector<uint8_t> header = array.header_bytes();
      writer.add(name + ".npy", {{header.data(), header.size()}, {array.data(), array.byte_size()}}, ZipCompression::Deflate);
    }
    writer.finish();
  }
  const LoadResult result = load_in_child(testing::read_bytes(path), "huge.npz");
  CHECK(result.outcome == Outcome::Refused);
  // Refused from the zip directory: the header's size is not the member's.
  CHECK_THAT(result.message, Catch::Contains("node_feat.npy") && Catch::Contains("shape (1000000000000, 140) of float32") &&
                                 Catch::Contains("got 4180 bytes in the zip directory"));
}

TEST_CASE("the allocation limit itself works: a 200 MB buffer is refused in the child", "[corrupt]") {
  if (testing::sanitized_build()) return;  // ASan enforces its own limit by aborting
  const testing::ChildResult child = testing::run_in_child(kAllocationLimit, [](std::string&) {
    ByteBuffer big(200u << 20);
    return 0;
  });
  CHECK(child.exit_code == 101);
}
