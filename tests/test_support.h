// Helpers shared by the Catch2 tests: where the real TpuGraphs files are, scratch folders, and
// running Debian's python3 (numpy) as an oracle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace graphcost::testing {

// $GRAPHCOST_DATA, else <source>/../shared/data. Tests fail (not skip) when it is missing.
std::string data_dir();
std::string real_file(const std::string& relative_to_tpugraphs);  // data_dir()/tpugraphs/<path>
// A fresh empty directory under the build tree, named after the test.
std::string scratch_dir(const std::string& name);
std::vector<uint8_t> read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes);
// Runs `/usr/bin/python3 <script> args...` (the GRAPHCOST_PYTHON cache variable); returns the exit
// code, with stdout+stderr in `output`.
int run_python(const std::string& script, const std::vector<std::string>& args, std::string& output);
std::string source_dir();

}  // namespace graphcost::testing
