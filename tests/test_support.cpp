#include "test_support.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace graphcost::testing {

std::string source_dir() { return GRAPHCOST_SOURCE_DIR; }

std::string data_dir() {
  const char* override_dir = std::getenv("GRAPHCOST_DATA");
  const std::string dir = override_dir != nullptr && *override_dir != '\0'
                              ? std::string(override_dir)
                              : source_dir() + "/../shared/data";
  if (!std::filesystem::is_directory(dir + "/tpugraphs")) {
    throw std::runtime_error("TpuGraphs test data not found at " + dir +
                             "/tpugraphs (set GRAPHCOST_DATA to the shared data folder)");
  }
  return dir;
}

std::string real_file(const std::string& relative) { return data_dir() + "/tpugraphs/" + relative; }

std::string scratch_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(GRAPHCOST_TEST_SCRATCH) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

int run_python(const std::string& script, const std::vector<std::string>& args, std::string& output) {
  std::string command = std::string(GRAPHCOST_PYTHON) + " '" + script + "'";
  for (const std::string& arg : args) command += " '" + arg + "'";
  command += " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  output.clear();
  char buffer[4096];
  size_t got;
  while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, got);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace graphcost::testing
