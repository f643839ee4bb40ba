// Loads every array of an .npz file `repeat` times; prints one JSON line with the median load time
// and the process's peak resident memory. Driven by npz_load_vs_numpy.py, which runs numpy's
// np.load the same way.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "io/npz_file.h"
#include "machine.h"

namespace {

long resident_kib() {
  FILE* status = std::fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (status != nullptr) {
    if (std::fscanf(status, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(status);
  }
  return resident * 4;
}

}  // namespace

int main(int argc, char** argv) {
  std::fprintf(stderr, "%s\n", graphcost::bench::machine_line(graphcost::bench::measure_machine()).c_str());
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_npz_load FILE.npz [REPEAT]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int repeat = argc > 2 ? std::max(1, std::atoi(argv[2])) : 11;
  const long baseline_kib = resident_kib();
  std::vector<double> seconds;
  size_t total_bytes = 0;
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const graphcost::NpzFile npz = graphcost::read_npz_file(path);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    total_bytes = 0;
    for (const auto& entry : npz.arrays) total_bytes += entry.second.byte_size();
  }
  std::sort(seconds.begin(), seconds.end());
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "{\"median_ms\": %.3f, \"min_ms\": %.3f, \"peak_rss_kib\": %ld, \"baseline_rss_kib\": %ld, "
      "\"array_bytes\": %zu, \"repeat\": %d}\n",
      seconds[seconds.size() / 2] * 1e3, seconds.front() * 1e3, usage.ru_maxrss, baseline_kib, total_bytes, repeat);
  return 0;
}
