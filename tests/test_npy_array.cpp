#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "common/input_error.h"
#include "io/npy_array.h"

using namespace graphcost;

namespace {

// A .npy file with a hand-written header dict (version 1.0) followed by `data_bytes` zero bytes.
std::vector<uint8_t> npy_with_header(const std::string& dict, size_t data_bytes, int major = 1) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  const std::string header = dict + "\n";
  if (major == 1) {
    out.push_back(static_cast<uint8_t>(header.size()));
    out.push_back(static_cast<uint8_t>(header.size() >> 8));
  } else {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  }
  out.insert(out.end(), header.begin(), header.end());
  out.resize(out.size() + data_bytes, 0);
  return out;
}

std::vector<uint8_t> serialize(const NpyArray& array) {
  std::vector<uint8_t> bytes = array.header_bytes();
  bytes.insert(bytes.end(), array.data(), array.data() + array.byte_size());
  return bytes;
}

}  // namespace

TEST_CASE("npy header variants numpy may write are accepted", "[npy]") {
  const NpyArray a = NpyArray::parse(npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24), "a.npy");
  CHECK(a.dtype() == DType::Float32);
  CHECK(a.shape() == std::vector<int64_t>{2, 3});
  const NpyArray scalar = NpyArray::parse(npy_with_header("{'descr':'<i8','fortran_order':False,'shape':()}", 8), "s.npy");
  CHECK(scalar.rank() == 0);
  CHECK(scalar.element_count() == 1);
  const NpyArray vector = NpyArray::parse(npy_with_header("{\"shape\": (5,), \"fortran_order\": True, \"descr\": \"|u1\"}", 5, 2), "v.npy");
  CHECK(vector.shape() == std::vector<int64_t>{5});
  const NpyArray py2 = NpyArray::parse(npy_with_header("{'descr': '|b1', 'fortran_order': False, 'shape': (3L, 1L), }", 3, 3), "p.npy");
  CHECK(py2.element_count() == 3);
}

TEST_CASE("npy refusals name the header key, expected and actual", "[npy]") {
  auto refuses = [](const std::string& dict, size_t data, const std::string& needle1, const std::string& needle2) {
    INFO(dict);
    CHECK_THROWS_WITH(NpyArray::parse(npy_with_header(dict, data), "x.npy"),
                      Catch::Contains("x.npy") && Catch::Contains(needle1) && Catch::Contains(needle2));
  };
  refuses("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8, "'descr'", "big-endian");
  refuses("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", 16, "'descr'", "unpickling");
  refuses("{'descr': '<U5', 'fortran_order': False, 'shape': (2,), }", 40, "'descr'", "unsupported dtype");
  refuses("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8, "'descr'", "structured");
  refuses("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }", 8, "data", "1000000000000 elements");
  refuses("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", 8, "shape", "2^63");
  refuses("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 8, "12 bytes", "8 bytes of data");
  refuses("{'descr': '<f4', 'fortran_order': False, }", 8, "header", "missing 'shape'");
  refuses("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", 8, "header", "'extra'");
  refuses("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", 8, "fortran_order", "True or False");
  refuses("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", 8, "shape", "non-negative");
  refuses("['descr']", 8, "header", "'{'");
  CHECK_THROWS_WITH(NpyArray::parse(std::vector<uint8_t>{'n', 'o', 't', 'n', 'p', 'y', 1, 0, 0, 0}, "x.npy"), Catch::Contains("magic"));
  std::vector<uint8_t> future = npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", 0);
  future[6] = 4;
  CHECK_THROWS_WITH(NpyArray::parse(future, "x.npy"), Catch::Contains("version") && Catch::Contains("4.0"));
}

TEST_CASE("Fortran-order arrays come out in C order", "[npy]") {
  // Shape (2, 3, 4) stored Fortran: element (i, j, k) at i + 2 j + 6 k.
  std::vector<int32_t> fortran(24);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) fortran[i + 2 * j + 6 * k] = 100 * i + 10 * j + k;
  const NpyArray array = NpyArray::from_values<int32_t>({2, 3, 4}, fortran, true);
  const std::vector<int32_t> c = array.to_vector<int32_t>("", "");
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) CHECK(c[(i * 3 + j) * 4 + k] == 100 * i + 10 * j + k);
  const NpyArray reread = NpyArray::parse(serialize(array), "f.npy");
  CHECK(reread.fortran_order());
  CHECK(reread.to_vector<int64_t>("", "") == std::vector<int64_t>(c.begin(), c.end()));
}

TEST_CASE("dtype conversions are lossless or refused", "[npy]") {
  const NpyArray big = NpyArray::from_values<int64_t>({2}, {1, int64_t(1) << 40});
  CHECK(big.to_vector<int64_t>("", "") == std::vector<int64_t>{1, int64_t(1) << 40});
  CHECK_THROWS_WITH(big.to_vector<int32_t>("f.npz", "edge_index"),
                    Catch::Contains("f.npz: edge_index") && Catch::Contains("int32") && Catch::Contains("1099511627776"));
  const NpyArray negative = NpyArray::from_values<int32_t>({1}, {-1});
  CHECK_THROWS(negative.to_vector<uint8_t>("", ""));
  CHECK(negative.to_vector<int8_t>("", "") == std::vector<int8_t>{-1});
  const NpyArray doubles = NpyArray::from_values<double>({3}, {0.5, -2.0, 1e-3});
  const std::vector<float> floats = doubles.to_vector<float>("", "");
  CHECK(floats[0] == 0.5f);
  CHECK(floats[2] == static_cast<float>(1e-3));
  CHECK_THROWS(NpyArray::from_values<double>({1}, {1e300}).to_vector<float>("", ""));
  CHECK(std::isnan(NpyArray::from_values<double>({1}, {std::nan("")}).to_vector<float>("", "")[0]));
  CHECK_THROWS(NpyArray::from_values<double>({1}, {0.5}).to_vector<int64_t>("", ""));
  CHECK(NpyArray::from_values<double>({1}, {3.0}).to_vector<int64_t>("", "") == std::vector<int64_t>{3});
  CHECK_THROWS(NpyArray::from_values<int64_t>({1}, {(int64_t(1) << 53) + 1}).to_vector<double>("", ""));
  // Values that round up past the source type's range (INT64_MAX -> 2^63) are refused, not UB.
  CHECK_THROWS(NpyArray::from_values<int64_t>({1}, {std::numeric_limits<int64_t>::max()}).to_vector<float>("", ""));
  CHECK_THROWS(NpyArray::from_values<int32_t>({1}, {std::numeric_limits<int32_t>::max()}).to_vector<float>("", ""));
  CHECK(NpyArray::from_values<int64_t>({1}, {std::numeric_limits<int64_t>::min()}).to_vector<double>("", "")[0] == -0x1p63);
}

TEST_CASE("npy headers are padded to 64 bytes and round trip", "[npy]") {
  const NpyArray array = NpyArray::from_values<float>({2, 2}, {1, 2, 3, 4});
  const std::vector<uint8_t> header = array.header_bytes();
  CHECK(header.size() % 64 == 0);
  CHECK(header.back() == '\n');
  const NpyArray reread = NpyArray::parse(serialize(array), "r.npy");
  CHECK(reread.to_vector<float>("", "") == std::vector<float>{1, 2, 3, 4});
  CHECK(reread.shape_text() == "(2, 2)");
  CHECK(NpyArray::from_values<float>({3}, {1, 2, 3}).shape_text() == "(3,)");
}
