#include <catch2/catch.hpp>

#include <filesystem>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "test_support.h"

using namespace graphcost;
namespace fs = std::filesystem;

namespace {
std::string text_of(const std::string& path) {
  const std::vector<uint8_t> bytes = testing::read_bytes(path);
  return std::string(bytes.begin(), bytes.end());
}
}  // namespace

TEST_CASE("atomic files appear whole on commit and not at all otherwise", "[atomic_file]") {
  const std::string dir = testing::scratch_dir("atomic_file");
  const std::string path = dir + "/out.csv";
  write_file_atomically(path, "one\n");
  CHECK(text_of(path) == "one\n");
  {
    AtomicFile file(path);
    file.write("two\n");
    CHECK(text_of(path) == "one\n");  // the old content until commit
  }                                   // abandoned: no commit
  CHECK(text_of(path) == "one\n");
  CHECK_FALSE(fs::exists(path + ".partial"));
  AtomicFile file(path);
  file.write("three: 0123456789\n");
  file.overwrite(7, "ABC", 3);
  file.commit();
  CHECK(text_of(path) == "three: ABC3456789\n");
}

TEST_CASE("an atomic file refuses a folder and the inputs of its run, before creating anything", "[atomic_file]") {
  const std::string dir = testing::scratch_dir("atomic_file_refusals");
  CHECK_THROWS_WITH(write_file_atomically(dir, "x"), Catch::Contains("expected a file path to write, got a directory"));
  const std::string input = dir + "/input.npz";
  write_file_atomically(input, "data");
  fs::create_symlink(input, dir + "/alias.npz");
  CHECK_THROWS_WITH(write_file_atomically(input, "csv", {input}), Catch::Contains("got the input file itself"));
  CHECK_THROWS_WITH(write_file_atomically(dir + "/alias.npz", "csv", {input}), Catch::Contains("got the input file " + input));
  CHECK(text_of(input) == "data");
  for (const auto& entry : fs::directory_iterator(dir)) CHECK(entry.path().extension() != ".partial");
}
