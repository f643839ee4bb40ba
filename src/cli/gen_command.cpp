#include "cli/gen_command.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>

#include <unistd.h>

#include <vector>

namespace graphcost {
namespace {

volatile std::sig_atomic_t interrupted = 0;
void on_interrupt(int) { interrupted = 1; }

}  // namespace

int run_gen_command(const GenOptions& options) {
  const bool interactive = isatty(STDERR_FILENO) != 0;
  const auto start = std::chrono::steady_clock::now();
  auto last_line = start;
  // Ctrl-C stops after the files in progress; finished files and the solution of the finished
  // test files are kept.
  std::signal(SIGINT, on_interrupt);
  const GeneratorProgress progress = [&](size_t done, size_t total, const std::string& file) {
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const double eta = done > 0 ? elapsed / static_cast<double>(done) * static_cast<double>(total - done) : 0;
    if (!options.quiet && !file.empty()) {
      if (interactive) {
        std::fprintf(stderr, "\r\033[K[%zu/%zu] %.0fs elapsed, ~%.0fs left  %s", done, total, elapsed, eta, file.c_str());
      } else if (now - last_line > std::chrono::seconds(5) || done == total) {
        std::fprintf(stderr, "gen: %zu/%zu files, %.0fs elapsed, ~%.0fs left\n", done, total, elapsed, eta);
        last_line = now;
      }
    }
    return interrupted == 0;
  };
  const GeneratorReport report = generate_dataset(options.generator, progress);
  std::signal(SIGINT, SIG_DFL);
  if (!options.quiet && interactive) std::fprintf(stderr, "\r\033[K");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("wrote %zu files to %s/npz in %.1f s%s\n", report.files.size(), options.generator.out.c_str(), seconds,
              interrupted ? " (interrupted)" : "");
  if (!report.solution_path.empty()) std::printf("test-split solution: %s\n", report.solution_path.c_str());
  for (const std::string& program : report.programs) std::printf("program: %s\n", program.c_str());
  for (const std::string& program : report.skipped_programs) std::printf("program left out: %s\n", program.c_str());
  if (!report.programs.empty()) {
    size_t from_programs = 0;
    for (const GeneratedFile& file : report.files) from_programs += file.family.rfind("hlo:", 0) == 0;
    std::printf("%zu of %zu files hold an imported program\n", from_programs, report.files.size());
  }
  for (const char* search : {"default", "random"}) {
    std::vector<double> gaps;
    for (const GeneratedFile& file : report.files) {
      if (file.best_vs_default > 0 && file.collection.find(search) != std::string::npos) gaps.push_back(file.best_vs_default);
    }
    if (gaps.empty()) continue;
    std::sort(gaps.begin(), gaps.end());
    std::printf("layout:*:%s files: best sampled config / compiler default runtime: median %.2f, best %.2f\n", search,
                gaps[gaps.size() / 2], gaps.front());
  }
  return interrupted ? 130 : 0;
}

}  // namespace graphcost
