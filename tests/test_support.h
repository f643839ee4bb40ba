// Helpers shared by the Catch2 tests: where the real TpuGraphs files are, scratch folders, and
// running Debian's python3 (numpy) as an oracle.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace graphcost::testing {

// $GRAPHCOST_DATA, else <source>/../shared/data. A test that reads it starts with
// SKIP_WITHOUT_REAL_DATA(): without the folder it warns "skipped: no TpuGraphs data ..." and
// returns, and CTest reports it as skipped (SKIP_REGULAR_EXPRESSION in tests/CMakeLists.txt).
std::string data_dir();
bool real_data_present();
std::string real_file(const std::string& relative_to_tpugraphs);  // data_dir()/tpugraphs/<path>
// A fresh empty directory under the build tree, named after the test.
std::string scratch_dir(const std::string& name);
// A small `graphcost gen` tree in scratch_dir(name): `graphs` labelled-or-hidden files of one
// collection, one worker thread (deterministic). Returns the tree's root.
std::string generate_tree(const std::string& name, const std::string& collection, int graphs, uint64_t seed, int max_nodes,
                          int layout_configs);
std::vector<uint8_t> read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes);
// Runs `/usr/bin/python3 <script> args...` (the GRAPHCOST_PYTHON cache variable); returns the exit
// code, with stdout+stderr in `output`.
int run_python(const std::string& script, const std::vector<std::string>& args, std::string& output);
std::string source_dir();

// True in AddressSanitizer builds (which cannot cap address space; CTest gives them
// ASAN_OPTIONS=max_allocation_size_mb=100 instead).
bool sanitized_build();

struct ChildResult {
  bool crashed = false;  // killed by a signal (e.g. a sanitizer abort)
  int exit_code = 0;     // body's return value
  std::string output;    // what body put in its output string
};
// Runs `body` in a forked child whose address space may grow by at most `extra_bytes` beyond its
// size at the fork (any malloc or mmap past that fails: std::bad_alloc). Not capped under ASan.
ChildResult run_in_child(uint64_t extra_bytes, const std::function<int(std::string& output)>& body);

}  // namespace graphcost::testing

#define SKIP_WITHOUT_REAL_DATA()                                                                                                     \
  do {                                                                                                                               \
    if (!graphcost::testing::real_data_present()) {                                                                                  \
      WARN("skipped: no TpuGraphs data at " << graphcost::testing::data_dir() << " (set GRAPHCOST_DATA to the shared data folder)"); \
      return;                                                                                                                        \
    }                                                                                                                                \
  } while (0)
