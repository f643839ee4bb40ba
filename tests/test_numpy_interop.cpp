// numpy interop: fixtures written by Debian's numpy (dtype x order x savez/savez_compressed, format
// versions 1-3) load bit-exactly; archives written by graphcost load identically in numpy.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "io/npz_file.h"
#include "test_support.h"

using namespace graphcost;

namespace {

std::vector<uint8_t> from_hex(const std::string& hex) {
  std::vector<uint8_t> bytes(hex.size() / 2);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return bytes;
}

template <typename T>
std::vector<uint8_t> as_bytes(const std::vector<T>& values) {
  const auto* p = reinterpret_cast<const uint8_t*>(values.data());
  return std::vector<uint8_t>(p, p + values.size() * sizeof(T));
}

// The array's elements in C order, in its own dtype, as raw bytes.
std::vector<uint8_t> c_order_bytes(const NpyArray& array) {
  switch (array.dtype()) {
    case DType::Bool:
    case DType::UInt8:
      return as_bytes(array.to_vector<uint8_t>("", ""));
    case DType::Int8:
      return as_bytes(array.to_vector<int8_t>("", ""));
    case DType::Int16:
      return as_bytes(array.to_vector<int16_t>("", ""));
    case DType::Int32:
      return as_bytes(array.to_vector<int32_t>("", ""));
    case DType::Int64:
      return as_bytes(array.to_vector<int64_t>("", ""));
    case DType::Float32:
      return as_bytes(array.to_vector<float>("", ""));
    case DType::Float64:
      return as_bytes(array.to_vector<double>("", ""));
  }
  return {};
}

// Fixtures written by numpy into a folder of the calling test's own: CTest runs test cases as
// parallel processes, so a shared folder would be rewritten under another test's feet.
std::string fixtures_dir(const std::string& name) {
  const std::string out = testing::scratch_dir(name);
  std::string output;
  const int status = testing::run_python(testing::source_dir() + "/tests/fixtures/make_numpy_fixtures.py", {out}, output);
  INFO(output);
  REQUIRE(status == 0);
  return out;
}

}  // namespace

TEST_CASE("numpy-written fixtures load bit-exactly", "[npz][numpy]") {
  const std::string dir = fixtures_dir("numpy_fixtures_read");
  std::ifstream manifest_file(dir + "/manifest.json");
  const nlohmann::json manifest = nlohmann::json::parse(manifest_file);
  REQUIRE(manifest.size() >= 8 * 2 * 2 * 6);
  std::map<std::string, NpzFile> archives;
  size_t checked = 0;
  for (const auto& entry : manifest) {
    const std::string file = entry["file"];
    const std::string key = entry["array"];
    INFO(file << ":" << key);
    NpyArray standalone;
    const NpyArray* array = nullptr;
    if (file.size() > 4 && file.substr(file.size() - 4) == ".npy") {
      standalone = NpyArray::parse(testing::read_bytes(dir + "/" + file), file);
      array = &standalone;
    } else {
      if (!archives.count(file)) archives.emplace(file, read_npz_file(dir + "/" + file));
      array = archives.at(file).find(key);
    }
    REQUIRE(array != nullptr);
    CHECK(dtype_name(array->dtype()) == entry["dtype"].get<std::string>());
    CHECK(array->shape() == entry["shape"].get<std::vector<int64_t>>());
    CHECK(array->fortran_order() == entry["fortran_order"].get<bool>());
    CHECK(c_order_bytes(*array) == from_hex(entry["c_order_hex"]));
    ++checked;
  }
  CHECK(checked == manifest.size());
}

TEST_CASE("graphcost-written archives load identically in numpy", "[npz][numpy]") {
  const std::string dir = fixtures_dir("numpy_fixtures_rewrite");
  const std::string out = testing::scratch_dir("rewritten_npz");
  size_t written = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".npz") continue;
    const NpzFile npz = read_npz_file(entry.path().string());
    std::vector<std::pair<std::string, const NpyArray*>> arrays;
    for (const auto& [name, array] : npz.arrays) arrays.emplace_back(name, &array);
    const std::string stem = entry.path().stem().string();
    write_npz(out + "/" + stem + ".stored.npz", arrays, ZipCompression::Stored);
    write_npz(out + "/" + stem + ".deflate.npz", arrays, ZipCompression::Deflate);
    written += 2;
    // And graphcost reads its own output back unchanged.
    const NpzFile again = read_npz_file(out + "/" + stem + ".deflate.npz");
    REQUIRE(again.arrays.size() == npz.arrays.size());
    for (size_t i = 0; i < npz.arrays.size(); ++i) {
      CHECK(again.arrays[i].first == npz.arrays[i].first);
      CHECK(c_order_bytes(again.arrays[i].second) == c_order_bytes(npz.arrays[i].second));
    }
  }
  REQUIRE(written == 2 * (8 * 2 * 2 + 1));
  std::string output;
  const int status = testing::run_python(testing::source_dir() + "/tests/fixtures/check_rewritten_npz.py", {dir, out}, output);
  INFO(output);
  CHECK(status == 0);
  CHECK(output.find(" 0 different") != std::string::npos);
}
