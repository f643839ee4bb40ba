#include <catch2/catch.hpp>

#include "common/input_error.h"
#include "io/npz_file.h"
#include "test_support.h"

using namespace graphcost;

namespace {

// An archive of two arrays: "small" (3 floats) and "big" (1,000,000 floats, deflated zeros).
std::string two_arrays(const std::string& name) {
  const std::string path = testing::scratch_dir(name) + "/two.npz";
  const NpyArray small = NpyArray::from_values<float>({3}, std::vector<float>{1, 2, 3});
  const NpyArray big = NpyArray::from_values<float>({1000000}, std::vector<float>(1000000, 0.0f));
  write_npz(path, {{"small", &small}, {"big", &big}}, ZipCompression::Deflate);
  return path;
}

}  // namespace

TEST_CASE("npz: only the arrays asked for are inflated, the others still listed", "[npz]") {
  const std::string path = two_arrays("npz_only");
  NpzReadOptions options;
  options.only = {"small"};
  const NpzFile npz = read_npz_file(path, options);
  REQUIRE(npz.arrays.size() == 1);
  CHECK(npz.find("small") != nullptr);
  CHECK(npz.find("big") == nullptr);
  CHECK(npz.names == std::vector<std::string>{"small", "big"});
  // Corrupt the big member's data: reading only "small" still works, reading all does not.
  std::vector<uint8_t> bytes = testing::read_bytes(path);
  bytes[bytes.size() / 2] ^= 0xff;
  testing::write_bytes(path, bytes);
  CHECK_NOTHROW(read_npz_file(path, options));
  CHECK_THROWS_AS(read_npz_file(path), InputError);
}

TEST_CASE("npz: the declared sizes are charged against the memory limit before inflating", "[npz]") {
  const std::string path = two_arrays("npz_limit");
  NpzReadOptions options;
  options.memory_limit = 1000000;  // the big array alone is 4,000,128 bytes with its header
  CHECK_THROWS_WITH(read_npz_file(path, options), Catch::Contains("two.npz: member 'big.npy': expected at most 977 KiB of arrays in all") &&
                                                      Catch::Contains("got 3.81 MiB for this array"));
  options.memory_limit = 5000000;
  CHECK(read_npz_file(path, options).arrays.size() == 2);
}

TEST_CASE("npz: a header may refuse an array before its data is inflated", "[npz]") {
  const std::string path = two_arrays("npz_check_header");
  NpzReadOptions options;
  std::vector<std::string> seen;
  options.check_header = [&](const std::string& name, const NpyHeader& header) {
    seen.push_back(name);
    if (header.data_bytes > 1000) throw InputError("", name, "at most 1000 bytes", std::to_string(header.data_bytes));
  };
  CHECK_THROWS_WITH(read_npz_file(path, options),
                    Catch::Contains("two.npz: member 'big.npy': big: expected at most 1000 bytes, got 4000000"));
  CHECK(seen == std::vector<std::string>{"small", "big"});
}

TEST_CASE("npy headers are read from a prefix, with the total size they declare", "[npz][npy]") {
  const NpyArray array = NpyArray::from_values<int64_t>({4, 5}, std::vector<int64_t>(20, 7));
  const std::vector<uint8_t> header = array.header_bytes();
  const NpyHeader parsed = NpyArray::parse_header(header.data(), header.size(), "a.npy");
  CHECK(parsed.shape == std::vector<int64_t>{4, 5});
  CHECK(parsed.dtype == DType::Int64);
  CHECK(parsed.data_offset == header.size());
  CHECK(parsed.total_bytes() == header.size() + 160);
  CHECK_THROWS_WITH(NpyArray::parse_header(header.data(), 20, "a.npy"), Catch::Contains("header length"));
}

TEST_CASE("npz: a member whose npy header is longer than the first read still loads", "[npz]") {
  // A version 2.0 header padded to 6,000 bytes: more than the 4 KiB first read of each member.
  std::string dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }";
  dict += std::string(6000 - 12 - dict.size() - 1, ' ') + "\n";
  std::string member = std::string("\x93NUMPY\x02\x00", 8);
  for (int shift = 0; shift < 32; shift += 8) member += static_cast<char>((dict.size() >> shift) & 0xff);
  member += dict;
  for (const int64_t value : {7, 8, 9}) member.append(reinterpret_cast<const char*>(&value), 8);
  const std::string path = testing::scratch_dir("npz_long_header") + "/long.npz";
  ZipWriter writer(path);
  writer.add("values.npy", {{reinterpret_cast<const uint8_t*>(member.data()), member.size()}}, ZipCompression::Deflate);
  writer.finish();
  const NpzFile npz = read_npz_file(path);
  REQUIRE(npz.find("values") != nullptr);
  CHECK(npz.find("values")->to_vector<int64_t>("long.npz", "values") == std::vector<int64_t>{7, 8, 9});
}

TEST_CASE("npz: an empty array (no buffer) is written with its CRC and reads back", "[npz]") {
  // zlib's crc32_z(crc, NULL, 0) restarts at 0: an imported module with nothing configurable has a
  // (1, 0, 18) node_config_feat, and its member once carried CRC 0.
  const NpyArray empty = NpyArray::from_converted_values<float>({1, 0, 18}, std::vector<int8_t>{});
  for (const ZipCompression compression : {ZipCompression::Deflate, ZipCompression::Stored}) {
    const std::string path = testing::scratch_dir("npz_empty_array") + "/empty.npz";
    write_npz(path, {{"node_config_feat", &empty}}, compression);
    const NpzFile npz = read_npz_file(path);
    REQUIRE(npz.find("node_config_feat") != nullptr);
    CHECK(npz.find("node_config_feat")->shape() == std::vector<int64_t>{1, 0, 18});
  }
}
