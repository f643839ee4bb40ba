// Scoring benchmark. Two modes, each printing one JSON line:
//   bench_scoring make DIR SEED      writes DIR/solution.csv and DIR/submission.csv of full size:
//                                    844 tile graphs (10-3000 configs), 16 xla + 34 nlp layout
//                                    graphs of 1,000 configs: 894 IDs as on Kaggle's test set
//   bench_scoring score DIR REPEAT   median time to read the solution, validate the submission and
//                                    score it (in process, `repeat` times)
//   bench_scoring tau FILE.npz REPEAT  median time of kendall_tau_b on arrays x, y of FILE
// Driven by scoring_vs_python.py, which times the Python peers in the same run.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "io/npz_file.h"
#include "machine.h"
#include "metrics/kendall_tau.h"
#include "scoring/scorer.h"
#include "scoring/solution.h"
#include "scoring/submission.h"

using namespace graphcost;

namespace {

template <typename Action>
double median_ms(int repeat, Action&& action) {
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    action();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int make(const std::string& dir, uint64_t seed) {
  std::mt19937_64 random(seed);
  Solution solution;
  std::vector<SubmissionRow> rows;
  auto add = [&](const std::string& id, int configs) {
    SolutionEntry entry;
    entry.id = id;
    entry.collection = id.substr(0, id.rfind(':'));
    entry.usage = random() % 2 ? Usage::Public : Usage::Private;
    std::vector<int32_t> order(static_cast<size_t>(configs));
    for (int c = 0; c < configs; ++c) {
      entry.runtime_ns.push_back(1000000 + static_cast<int64_t>(random() % 500000));
      if (entry.is_tile()) entry.normalizer_ns.push_back(1200000);
      order[static_cast<size_t>(c)] = c;
    }
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random() % i]);
    solution.entries.push_back(std::move(entry));
    rows.push_back({id, order});
  };
  for (int i = 0; i < 844; ++i)
    add("tile:xla:t" + std::to_string(i), static_cast<int>(std::exp(std::log(10.0) + (random() % 1000) / 1000.0 * std::log(300.0))));
  for (const char* search : {"default", "random"}) {
    for (int i = 0; i < 8; ++i) add(std::string("layout:xla:") + search + ":x" + std::to_string(i), 1000);
    for (int i = 0; i < 17; ++i) add(std::string("layout:nlp:") + search + ":n" + std::to_string(i), 1000);
  }
  solution.rebuild_index();
  write_solution(solution, dir + "/solution.csv");
  write_submission_file(dir + "/submission.csv", rows);
  std::printf("{\"ids\": %zu}\n", solution.entries.size());
  return 0;
}

int score(const std::string& dir, int repeat) {
  double overall = 0;
  const double ms = median_ms(repeat, [&] {
    const Solution solution = read_solution(dir + "/solution.csv");
    const SubmissionCheck check = check_submission_file(dir + "/submission.csv", solution);
    if (!check.valid()) {
      std::fprintf(stderr, "%s", check.format_errors("submission.csv").c_str());
      std::exit(1);
    }
    overall = score_submission(solution, check).public_board.overall;
  });
  std::printf("{\"median_ms\": %.3f, \"public_overall\": %.12f}\n", ms, overall);
  return 0;
}

int tau(const std::string& file, int repeat) {
  const NpzFile npz = read_npz_file(file);
  const std::vector<double> x = npz.find("x")->to_vector<double>(file, "x");
  const std::vector<double> y = npz.find("y")->to_vector<double>(file, "y");
  double value = 0;
  const double ms = median_ms(repeat, [&] { value = kendall_tau_b(x.data(), y.data(), x.size()); });
  std::printf("{\"median_ms\": %.3f, \"tau_b\": %.17g, \"n\": %zu}\n", ms, value, x.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "make") std::fprintf(stderr, "%s\n", graphcost::bench::machine_line(graphcost::bench::measure_machine()).c_str());
  if (mode == "make" && argc == 4) return make(argv[2], std::strtoull(argv[3], nullptr, 10));
  if (mode == "score" && argc == 4) return score(argv[2], std::atoi(argv[3]));
  if (mode == "tau" && argc == 4) return tau(argv[2], std::atoi(argv[3]));
  std::fprintf(stderr, "usage: bench_scoring make DIR SEED | score DIR REPEAT | tau FILE.npz REPEAT\n");
  return 2;
}
