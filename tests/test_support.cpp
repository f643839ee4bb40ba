#include "test_support.h"

#include "synth/dataset_generator.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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
  return override_dir != nullptr && *override_dir != '\0' ? std::string(override_dir) : source_dir() + "/../shared/data";
}

bool real_data_present() { return std::filesystem::is_directory(data_dir() + "/tpugraphs"); }

std::string real_file(const std::string& relative) { return data_dir() + "/tpugraphs/" + relative; }

std::string scratch_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(GRAPHCOST_TEST_SCRATCH) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string generate_tree(const std::string& name, const std::string& collection, int graphs, uint64_t seed, int max_nodes,
                          int layout_configs) {
  GeneratorOptions options;
  options.out = scratch_dir(name);
  options.graphs = graphs;
  options.seed = seed;
  options.collections = {collection};
  options.max_nodes = max_nodes;
  options.layout_configs = layout_configs;
  options.threads = 1;
  generate_dataset(options);
  return options.out;
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

bool sanitized_build() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

namespace {

uint64_t address_space_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  }
  return 0;
}

}  // namespace

ChildResult run_in_child(uint64_t extra_bytes, const std::function<int(std::string& output)>& body) {
  int channel[2];
  if (pipe(channel) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    close(channel[0]);
    if (!sanitized_build()) {
      const rlim_t limit = address_space_bytes() + extra_bytes;
      const struct rlimit cap = {limit, limit};
      setrlimit(RLIMIT_AS, &cap);
    }
    std::string output;
    int code = 0;
    try {
      code = body(output);
    } catch (const std::bad_alloc&) {
      output = "std::bad_alloc: allocation over the limit";
      code = 101;
    } catch (const std::exception& error) {
      output = std::string("unexpected exception: ") + error.what();
      code = 102;
    }
    size_t written = 0;
    while (written < output.size()) {
      const ssize_t got = write(channel[1], output.data() + written, output.size() - written);
      if (got <= 0) break;
      written += static_cast<size_t>(got);
    }
    close(channel[1]);
    _exit(code);
  }
  close(channel[1]);
  ChildResult result;
  char buffer[4096];
  ssize_t got;
  while ((got = read(channel[0], buffer, sizeof buffer)) > 0) result.output.append(buffer, static_cast<size_t>(got));
  close(channel[0]);
  int status = 0;
  waitpid(child, &status, 0);
  result.crashed = !WIFEXITED(status);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace graphcost::testing
