#include "cli/gen_command.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>

#include <unistd.h>

#include <vector>

#include "cli_options/seed_option.h"

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

CLI::App* add_gen_command(CLI::App& app, GenOptions& gen) {
  CLI::App* gen_command = app.add_subcommand("gen", "Write a synthetic TpuGraphs tree (a TPU-like cost simulator labels it)");
  gen_command->add_option("--out", gen.generator.out, "output folder (gets npz/... and solution_test.csv)")->required();
  gen_command->add_option("--graphs", gen.generator.graphs, "number of files, spread over the collections")->check(CLI::PositiveNumber);
  add_seed_option(gen_command, gen.generator.seed, "same seed, same bytes");
  gen_command
      ->add_option("--collections", gen.generator.collections,
                   "subset of tile:xla layout:xla:random layout:xla:default layout:nlp:random layout:nlp:default")
      ->delimiter(',');
  gen_command->add_option("--max-nodes", gen.generator.max_nodes, "largest program size (nodes)")->check(CLI::Range(200, 1000000));
  gen_command
      ->add_option("--min-nodes", gen.generator.min_nodes,
                   "smallest layout program (nodes; draws sizes in [min, max], grows bert graphs to the drawn size; default none)")
      ->check(CLI::Range(0, 1000000));
  gen_command->add_option("--max-configurable", gen.generator.max_configurable, "cap on configurable nodes per layout graph")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  gen_command->add_option("--layout-configs", gen.generator.layout_configs, "configs per layout file")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000000));
  gen_command->add_option("--threads", gen.generator.threads, "worker threads")->capture_default_str()->check(CLI::Range(1, 64));
  gen_command->add_option("--programs", gen.generator.programs_dir,
                          "a folder of XLA HLO text modules (.hlo/.txt): real program structures beside the synthetic families");
  gen_command->add_option("--program-share", gen.generator.program_share, "with --programs: the share of layout graphs drawn from them")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  gen_command->add_flag("-q,--quiet", gen.quiet, "no progress on stderr");
  return gen_command;
}

}  // namespace graphcost
