// libFuzzer target: arbitrary bytes as a submission CSV against a small fixed solution (a tile
// graph and two layout graphs). Validation must never crash; valid inputs must score.
#include <cstddef>
#include <cstdint>
#include <string>

#include "scoring/scorer.h"
#include "scoring/submission.h"

namespace {

graphcost::Solution make_solution() {
  graphcost::Solution solution;
  auto add = [&](const std::string& id, int configs, graphcost::Usage usage) {
    graphcost::SolutionEntry entry;
    entry.id = id;
    entry.collection = id.substr(0, id.rfind(':'));
    entry.usage = usage;
    for (int i = 0; i < configs; ++i) {
      entry.runtime_ns.push_back(100 + (i * 37) % 11);
      if (entry.is_tile()) entry.normalizer_ns.push_back(100);
    }
    solution.entries.push_back(entry);
  };
  add("tile:xla:a", 12, graphcost::Usage::Public);
  add("layout:xla:default:b", 6, graphcost::Usage::Public);
  add("layout:nlp:random:c", 3, graphcost::Usage::Private);
  solution.rebuild_index();
  return solution;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const graphcost::Solution solution = make_solution();
  const std::string text(reinterpret_cast<const char*>(data), size);
  const graphcost::SubmissionCheck check = graphcost::check_submission_text(text, solution);
  if (check.valid()) (void)graphcost::score_submission(solution, check);
  (void)check.format_errors("fuzz.csv");
  return 0;
}
