// GuardedHttpServer's connections (guarded_http_server.h), for the files that implement it: the
// server's shared state (Internals: the thread pool, the parking epoll set, the connection
// counts), a connection (its socket, peer address and the bytes read but not yet used), and the
// non-blocking socket reads that fill a connection's buffer.
#pragma once

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include "common/io_error.h"
#include "http_guard/guarded_http_server.h"

namespace graphcost {

namespace http_guard {

using Clock = std::chrono::steady_clock;

// The address a socket's peer connected from, as text ("127.0.0.1", "::1"), and its port.
std::pair<std::string, int> peer_of(int fd);

// Waits until `fd` is readable (POLLIN) or writable (POLLOUT), at most until `deadline`, and not
// past a server stop (`stopping`, looked at every quarter second).
bool wait_for(int fd, short events, Clock::time_point deadline, const std::atomic<bool>* stopping = nullptr);

}  // namespace http_guard

// ---- connections and their counts ---------------------------------------------------------------

struct GuardedHttpServer::Internals {
  using Clock = http_guard::Clock;

  explicit Internals(const HttpLimits& limits) : limits(limits) {
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (epoll_fd < 0 || wake_fd < 0) {
      const int error = errno;
      if (epoll_fd >= 0) ::close(epoll_fd);
      if (wake_fd >= 0) ::close(wake_fd);
      throw IoError("epoll", "create", error);
    }
    pool = std::make_unique<httplib::ThreadPool>(std::max<size_t>(1, limits.threads));  // once nothing can throw
  }

  const HttpLimits& limits;
  std::unique_ptr<httplib::ThreadPool> pool;
  std::atomic<bool> stopping{false};
  std::mutex shutdown_mutex;
  bool shut = false;

  // Open connections in all and per address.
  std::mutex counts_mutex;
  size_t open = 0;
  std::map<std::string, size_t> per_address;

  // Parked connections: waiting for bytes in one epoll set, each with its deadline.
  struct Parked {
    std::shared_ptr<Connection> connection;
    Clock::time_point deadline;
  };
  std::mutex parked_mutex;
  std::map<int, Parked> parked;
  int epoll_fd = -1, wake_fd = -1;
  std::thread parking_thread;

  // Holds `connection` without a thread until its socket is readable or `deadline` passes.
  void park(std::shared_ptr<Connection> connection, Clock::time_point deadline) {
    std::lock_guard<std::mutex> lock(parked_mutex);
    park_locked(std::move(connection), deadline);
  }
  void park_locked(std::shared_ptr<Connection> connection, Clock::time_point deadline);
  std::map<int, Parked>::iterator unpark(std::map<int, Parked>::iterator it) {
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, it->first, nullptr);
    return parked.erase(it);
  }
  // A refused connection whose client may still be sending: its sending side is shut, and what it
  // sends (up to 1 MiB, for up to a second) is read and dropped before it closes. Closing at once
  // would reset the connection, and a client still sending could lose the answer telling it why.
  void linger(std::shared_ptr<Connection> connection) {
    std::lock_guard<std::mutex> lock(parked_mutex);
    linger_locked(std::move(connection));
  }
  void linger_locked(std::shared_ptr<Connection> connection);
};

struct GuardedHttpServer::Connection {
  using Clock = http_guard::Clock;

  Connection(int fd, Internals& internals) : fd(fd), internals(internals) {
    std::tie(address, port) = http_guard::peer_of(fd);
    last_activity = Clock::now();
  }
  ~Connection() {
    ::shutdown(fd, SHUT_RDWR);
    ::close(fd);
    if (!counted) return;
    std::lock_guard<std::mutex> lock(internals.counts_mutex);
    --internals.open;
    if (--internals.per_address[address] == 0) internals.per_address.erase(address);
  }
  const int fd;
  Internals& internals;
  std::string address;
  int port = 0;
  bool counted = false;
  std::string buffer;  // read, not yet used: the head being read, or pipelined requests
  size_t requests = 0;
  size_t drained = 0;  // lingering after a refusal: bytes read and dropped so far
  bool lingering = false;
  // The trusted proxy's body that a handler did not read: read and dropped before the next request
  // (the proxy sends it whole before it reads the answer; closing would make it answer 502).
  size_t unread_body = 0;
  bool close_after_unread_body = false;
  bool continue_sent = false;       // "100 Continue" sent for the request being read
  Clock::time_point last_activity;  // the end of the last response, or the connection's start
  Clock::time_point head_started;   // the first byte of the head being read
};

namespace http_guard {

// Reads and drops what a lingering connection's client sent (at most 256 KiB a call, under the
// parking lock); false when it is time to close.
bool drain(GuardedHttpServer::Connection& c);

enum class ReadState { Done, Waiting, Closed };

// Drops what arrives of the trusted proxy's unread body, without waiting.
ReadState skip_unread_body(GuardedHttpServer::Connection& c);

// Appends what the socket has, without waiting, until the buffer holds `size` bytes.
ReadState buffer_until(GuardedHttpServer::Connection& c, size_t size);

enum class HeadState { Complete, Waiting, Closed, TooLarge };

// Reads what the socket has without waiting, until the buffer holds a whole head. Sets
// `head_size` (bytes up to and including the blank line) when complete.
HeadState read_head(GuardedHttpServer::Connection& c, const HttpLimits& limits, size_t& head_size);

}  // namespace http_guard

}  // namespace graphcost
