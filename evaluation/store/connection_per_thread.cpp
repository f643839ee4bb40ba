#include "store/connection_per_thread.h"

namespace graphcost {

CompetitionStore& ConnectionPerThread::get() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<CompetitionStore>& store = stores_[std::this_thread::get_id()];
  if (!store) store = std::make_unique<CompetitionStore>(CompetitionStore::open(db_, false));
  return *store;
}

}  // namespace graphcost
