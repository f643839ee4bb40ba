#include "server/server_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "common/input_error.h"
#include "common/io_error.h"

namespace graphcost {

ServerLock::ServerLock(const std::string& db) : path_(db) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0 && errno == ENOENT)
    throw InputError(db, "", "a competition database (graphcost-eval competition init creates one)", "no such file");
  if (fd_ < 0) throw IoError(path_, "open", errno);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd_);
    if (error == EWOULDBLOCK)
      throw InputError(db, "", "a database no other graphcost-eval serve is running on", "one is (the file is locked by another server)");
    throw IoError(path_, "lock", error);
  }
}

ServerLock::~ServerLock() { ::close(fd_); }

}  // namespace graphcost
