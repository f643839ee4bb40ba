// ServerLock: one `serve` per database (competition_server.h). An exclusive flock on the database
// file itself, so any name of it (a symlink, a hard link, another relative path) meets the same
// lock; released by the kernel when the process ends, however it ends. Two workers on one queue
// would take each other's submissions. flock locks are apart from the POSIX locks SQLite takes,
// and the descriptor stays open until every SQLite connection has closed (closing it earlier
// would not drop SQLite's locks, but a POSIX lock held through it would be).
#pragma once

#include <string>

namespace graphcost {

class ServerLock {
 public:
  // Takes the lock on `db`, or throws: InputError for a missing file or one another server holds,
  // IoError when the system refuses.
  explicit ServerLock(const std::string& db);
  ~ServerLock();
  ServerLock(const ServerLock&) = delete;
  ServerLock& operator=(const ServerLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace graphcost
