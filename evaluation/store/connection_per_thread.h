// ConnectionPerThread: `serve`'s request threads each with their own SQLite connection to the
// competition database (competition_store.h), opened on the thread's first request. WAL lets
// readers run beside a writer, and writers wait for each other (5 s busy timeout) inside SQLite,
// so no request waits on another's lock in this process; a mutex guards only the map of them.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "store/competition_store.h"

namespace graphcost {

class ConnectionPerThread {
 public:
  explicit ConnectionPerThread(std::string db) : db_(std::move(db)) {}
  // The calling thread's connection (InputError as CompetitionStore::open on the first call).
  CompetitionStore& get();

 private:
  const std::string db_;
  std::mutex mutex_;
  std::map<std::thread::id, std::unique_ptr<CompetitionStore>> stores_;
};

}  // namespace graphcost
