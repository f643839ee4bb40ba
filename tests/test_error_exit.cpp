// The error policy (common/error_exit.h): each kind of failure reaches the user as its own exit code.
#include <catch2/catch.hpp>

#include <filesystem>
#include <new>
#include <stdexcept>
#include <system_error>

#include "common/atomic_file.h"
#include "common/error_exit.h"
#include "common/input_error.h"
#include "common/internal_error.h"
#include "common/io_error.h"
#include "common/named_values.h"
#include "test_support.h"

using namespace graphcost;

TEST_CASE("each kind of failure has its exit code", "[error_exit]") {
  CHECK(report_error(InputError("a.npz", "node_feat", "shape (n, 140)", "shape (3, 70)")) == kExitBadInput);
  CHECK(report_error(IoError("out.csv", "write", ENOSPC)) == kExitSystemError);
  CHECK(report_error(std::filesystem::filesystem_error("create folder", std::make_error_code(std::errc::permission_denied))) ==
        kExitSystemError);
  CHECK(report_error(std::bad_alloc()) == kExitSystemError);
  CHECK(report_error(InternalError("no parameter head.weight")) == kExitInternalError);
  CHECK(report_error(std::runtime_error("anything else")) == kExitInternalError);  // never passed off as the user's input
  // The text the app shows is the CLI's.
  CHECK(error_message(InternalError("no parameter x")) == "internal error, please report: no parameter x");
  CHECK(error_message(IoError("out.csv", "write", ENOSPC)) == "out.csv: write: No space left on device");
  CHECK(error_message(std::bad_alloc()).rfind("out of memory (", 0) == 0);
  CHECK(error_message(InputError("a\x1b.npz", "f", "x", "y")) == "a\\x1b.npz: f: expected x, got y");
}

TEST_CASE("an I/O error names the path, the operation and the system's reason", "[error_exit]") {
  CHECK(std::string(IoError("/tmp/x.csv", "write", ENOSPC).what()) == "/tmp/x.csv: write: No space left on device");
  CHECK(std::string(IoError("/tmp/x.csv", "read", 0, "short read").what()) == "/tmp/x.csv: read: short read");
  // A folder where files cannot be made: creating the partial file fails with the system's reason.
  CHECK_THROWS_AS(write_file_atomically("/proc/graphcost-out.csv", "y"), IoError);
  // A folder that is a file, or none at all: the path is the user's mistake, said before writing.
  const std::string dir = testing::scratch_dir("error_exit");
  write_file_atomically(dir + "/plain", "x");
  CHECK_THROWS_WITH(write_file_atomically(dir + "/plain/out.csv", "y"), Catch::Contains("/plain', which is not a folder"));
  CHECK_THROWS_WITH(write_file_atomically(dir + "/missing/out.csv", "y"), Catch::Contains("got no folder '"));
}

TEST_CASE("named values: text becomes an enum once; unknown names are refused with the valid ones", "[error_exit]") {
  enum class Colour { Red, Green };
  const NameTable<Colour> names = {{"red", Colour::Red}, {"green", Colour::Green}};
  CHECK(value_named(names, "green", "colour") == Colour::Green);
  CHECK(name_of(names, Colour::Red) == "red");
  CHECK(names_in(names) == std::vector<std::string>{"red", "green"});
  CHECK_THROWS_WITH(value_named(names, "blue\x1b", "colour"), "<input>: colour: expected one of red, green, got 'blue\\x1b'");
}
