// LiveBoard: the board `serve` shows (competition_server.h), rebuilt by the scoring worker from
// the stored outcomes (stored_leaderboard: nothing is scored twice) and read by every request.
// Readers take the current board and JSON as shared pointers, so a rebuild never waits for them.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "scoring/leaderboard.h"
#include "scoring/solution.h"
#include "store/competition_store.h"

namespace graphcost {

class LiveBoard {
 public:
  // What every rebuild adds to the JSON as "live": the competition's title and deadline, and
  // whether the app is served (serve --app).
  LiveBoard(std::string title, std::string deadline, bool app) : title_(std::move(title)), deadline_(std::move(deadline)), app_(app) {}

  // Ranks what `store` holds and publishes it, with the version number of the rebuild. The JSON
  // shows failed submissions as failed without their errors: those quote the team's file, which
  // only the team sees (GET /api/submissions).
  void rebuild(const CompetitionStore& store, const Solution& solution, bool final_board);
  std::shared_ptr<const Leaderboard> board() const;
  std::shared_ptr<const std::string> json() const;  // leaderboard.json as served

 private:
  const std::string title_, deadline_;
  const bool app_;
  mutable std::mutex mutex_;
  std::shared_ptr<const Leaderboard> board_;
  std::shared_ptr<const std::string> json_;
  int64_t version_ = 0;  // rebuilds so far
};

}  // namespace graphcost
