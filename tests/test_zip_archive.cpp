#include <catch2/catch.hpp>

#include <filesystem>

#include "common/input_error.h"
#include "io/zip_archive.h"
#include "test_support.h"

using namespace graphcost;

namespace {

std::vector<uint8_t> text_bytes(const std::string& text) { return std::vector<uint8_t>(text.begin(), text.end()); }
std::vector<uint8_t> bytes_of(const ByteBuffer& buffer) { return std::vector<uint8_t>(buffer.data(), buffer.data() + buffer.size()); }

std::string write_archive(const std::string& path, ZipCompression compression) {
  ZipWriter writer(path);
  const std::vector<uint8_t> a = text_bytes("hello, zip"), b(100000, 7);
  writer.add("a.txt", {{a.data(), a.size()}}, compression);
  writer.add("b.bin", {{b.data(), 50000}, {b.data() + 50000, 50000}}, compression);
  writer.add("empty", {}, compression);
  writer.finish();
  return path;
}

}  // namespace

TEST_CASE("zip round trip, stored and deflated, with multi-part members", "[zip]") {
  const std::string dir = testing::scratch_dir("zip_round_trip");
  for (ZipCompression compression : {ZipCompression::Stored, ZipCompression::Deflate}) {
    const std::string path = write_archive(dir + "/archive.zip", compression);
    CHECK_FALSE(std::filesystem::exists(path + ".partial"));
    ZipReader reader(ByteSource::open_file(path));
    REQUIRE(reader.members().size() == 3);
    CHECK(bytes_of(reader.read(*reader.find("a.txt"))) == text_bytes("hello, zip"));
    CHECK(bytes_of(reader.read(*reader.find("b.bin"))) == std::vector<uint8_t>(100000, 7));
    CHECK(reader.read(*reader.find("empty")).empty());
    CHECK(reader.find("missing") == nullptr);
    if (compression == ZipCompression::Deflate) CHECK(reader.find("b.bin")->compressed_size < 1000);
  }
}

TEST_CASE("a member read in pieces gives the same bytes as a whole read, checked at the end", "[zip]") {
  const std::string dir = testing::scratch_dir("zip_pieces");
  std::vector<uint8_t> varied(300000);
  for (size_t i = 0; i < varied.size(); ++i) varied[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  for (ZipCompression compression : {ZipCompression::Stored, ZipCompression::Deflate}) {
    ZipWriter writer(dir + "/pieces.zip");
    writer.add("varied", {{varied.data(), varied.size()}}, compression);
    writer.add("empty", {}, compression);
    writer.finish();
    ZipReader reader(ByteSource::open_file(dir + "/pieces.zip"));
    for (size_t piece : {size_t{1}, size_t{4096}, size_t{65537}, size_t{1} << 20}) {
      std::vector<uint8_t> joined;
      size_t calls = 0, largest = 0;
      reader.read_in_pieces(*reader.find("varied"), piece, [&](const uint8_t* data, size_t size) {
        joined.insert(joined.end(), data, data + size);
        ++calls;
        largest = std::max(largest, size);
      });
      CHECK(joined == varied);
      CHECK(largest <= piece);
      CHECK(calls >= varied.size() / piece);
    }
    size_t empty_calls = 0;
    reader.read_in_pieces(*reader.find("empty"), 100, [&](const uint8_t*, size_t) { ++empty_calls; });
    CHECK(empty_calls == 0);
  }
  // A corrupt deflated member: the pieces stop with the archive's and the member's names.
  ZipWriter writer(dir + "/corrupt.zip");
  writer.add("varied", {{varied.data(), varied.size()}}, ZipCompression::Deflate);
  writer.finish();
  std::vector<uint8_t> bytes = testing::read_bytes(dir + "/corrupt.zip");
  for (size_t i = 200; i < 260; ++i) bytes[i] ^= 0x5a;
  ZipReader corrupt(ByteSource::view_memory("corrupt.zip", bytes.data(), bytes.size()));
  CHECK_THROWS_WITH(corrupt.read_in_pieces(corrupt.members()[0], 4096, [](const uint8_t*, size_t) {}),
                    Catch::Contains("corrupt.zip") && Catch::Contains("varied"));
}

TEST_CASE("zip writer output is deterministic", "[zip]") {
  const std::string dir = testing::scratch_dir("zip_deterministic");
  write_archive(dir + "/one.zip", ZipCompression::Deflate);
  write_archive(dir + "/two.zip", ZipCompression::Deflate);
  CHECK(testing::read_bytes(dir + "/one.zip") == testing::read_bytes(dir + "/two.zip"));
}

TEST_CASE("an abandoned zip writer leaves no file behind", "[zip]") {
  const std::string dir = testing::scratch_dir("zip_abandoned");
  {
    ZipWriter writer(dir + "/never.zip");
    const std::vector<uint8_t> a = text_bytes("x");
    writer.add("a", {{a.data(), a.size()}}, ZipCompression::Stored);
  }
  CHECK(std::filesystem::is_empty(dir));
}

TEST_CASE("zip reader refuses non-zip data, duplicates, and bad CRCs with precise errors", "[zip]") {
  SECTION("not a zip") {
    const std::vector<uint8_t> junk(1000, 'x');
    CHECK_THROWS_WITH(ZipReader(ByteSource::view_memory("junk.npz", junk.data(), junk.size())),
                      Catch::Contains("junk.npz") && Catch::Contains("end of central directory"));
  }
  SECTION("tiny file") {
    const std::vector<uint8_t> tiny(5, 0);
    CHECK_THROWS_WITH(ZipReader(ByteSource::view_memory("tiny.npz", tiny.data(), tiny.size())),
                      Catch::Contains("at least 22 bytes") && Catch::Contains("5 bytes"));
  }
  const std::string dir = testing::scratch_dir("zip_refusals");
  SECTION("duplicate member names") {
    // Write two members, then rename the second one in both headers to the first's name.
    ZipWriter writer(dir + "/dup.zip");
    const std::vector<uint8_t> a = text_bytes("one"), b = text_bytes("two");
    writer.add("x.npy", {{a.data(), a.size()}}, ZipCompression::Stored);
    writer.add("y.npy", {{b.data(), b.size()}}, ZipCompression::Stored);
    writer.finish();
    std::vector<uint8_t> bytes = testing::read_bytes(dir + "/dup.zip");
    for (size_t i = 0; i + 5 <= bytes.size(); ++i) {
      if (std::string(bytes.begin() + i, bytes.begin() + i + 5) == "y.npy") bytes[i] = 'x';
    }
    CHECK_THROWS_WITH(ZipReader(ByteSource::view_memory("dup.zip", bytes.data(), bytes.size())),
                      Catch::Contains("unique member names") && Catch::Contains("x.npy"));
  }
  SECTION("bad CRC in a stored member") {
    ZipWriter writer(dir + "/crc.zip");
    const std::vector<uint8_t> a = text_bytes("payload!");
    writer.add("p.npy", {{a.data(), a.size()}}, ZipCompression::Stored);
    writer.finish();
    std::vector<uint8_t> bytes = testing::read_bytes(dir + "/crc.zip");
    for (size_t i = 0; i + 8 <= bytes.size(); ++i) {
      if (std::string(bytes.begin() + i, bytes.begin() + i + 8) == "payload!") bytes[i] = 'P';
    }
    ZipReader reader(ByteSource::view_memory("crc.zip", bytes.data(), bytes.size()));
    CHECK_THROWS_WITH(reader.read(reader.members()[0]),
                      Catch::Contains("crc.zip") && Catch::Contains("p.npy") && Catch::Contains("CRC-32"));
  }
}
