// ScoringWorker: the live server's scorer, one step at a time (competition_server.cpp runs it in a
// loop on its own thread). A step scores at most one queued submission on the worker's own
// connection to the database.
//
// A failing database (full disk, a lock held too long, an I/O error) can leave the submission the
// worker holds in `scoring`, where it counts toward the team's cap and cannot be picked. So after
// any failure the worker is recovering: its next steps first put back everything left in
// `scoring` (one transaction), and claim nothing until that has succeeded. Each failed step says
// when to try again: 1, 2, 4 ... 30 s apart. `competition status` shows how long a submission has
// been in `scoring`.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "scoring/solution.h"
#include "store/competition_store.h"

namespace graphcost {

class ScoringWorker {
 public:
  ScoringWorker(std::string db, const Solution& solution, std::chrono::milliseconds busy_timeout = std::chrono::milliseconds(5000))
      : db_(std::move(db)), solution_(solution), busy_timeout_(busy_timeout) {}

  struct Step {
    int finished = 0;                       // submissions scored or failed by this step (0 or 1)
    int put_back = 0;                       // submissions a recovery returned to the queue
    std::string error;                      // what failed ("" = nothing)
    std::chrono::milliseconds retry_in{0};  // when error: wait this long before the next step
  };
  Step step();

  bool recovering() const { return recovering_; }
  // The worker's connection (opened on first use); nothing while the database cannot be opened.
  CompetitionStore* store() { return store_ ? &*store_ : nullptr; }

 private:
  const std::string db_;
  const Solution& solution_;
  const std::chrono::milliseconds busy_timeout_;
  std::optional<CompetitionStore> store_;
  bool recovering_ = true;  // a server starting up puts back what a stopped one left
  int failures_ = 0;        // in a row
};

}  // namespace graphcost
