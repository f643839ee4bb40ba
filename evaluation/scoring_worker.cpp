#include "scoring_worker.h"

#include <algorithm>

#include "common/error_exit.h"
#include "competition_commands.h"

namespace graphcost {

ScoringWorker::Step ScoringWorker::step() {
  Step step;
  try {
    if (!store_) store_.emplace(CompetitionStore::open(db_, false, busy_timeout_));
    if (recovering_) {
      step.put_back = store_->requeue_interrupted();
      recovering_ = false;
    }
    step.finished = score_queued(*store_, solution_, 1);
    failures_ = 0;
  } catch (const std::exception& error) {
    // Whatever this worker held may still be `scoring`: nothing is claimed until it is put back.
    recovering_ = true;
    store_.reset();  // a fresh connection next time: a failed one may hold a broken transaction
    ++failures_;
    step.error = error_message(error);
    step.retry_in = std::chrono::milliseconds(1000) * (1 << std::min(failures_ - 1, 5));
    step.retry_in = std::min(step.retry_in, std::chrono::milliseconds(30000));
  }
  return step;
}

}  // namespace graphcost
