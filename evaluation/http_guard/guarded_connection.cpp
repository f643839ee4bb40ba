#include "http_guard/guarded_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

namespace graphcost {

using http_guard::Clock;

void GuardedHttpServer::Internals::park_locked(std::shared_ptr<Connection> connection, Clock::time_point deadline) {
  if (stopping) return;  // the connection closes
  epoll_event event{};
  event.events = EPOLLIN | EPOLLRDHUP;
  event.data.fd = connection->fd;
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, connection->fd, &event) != 0) return;
  const int fd = connection->fd;
  parked[fd] = {std::move(connection), deadline};
}

void GuardedHttpServer::Internals::linger_locked(std::shared_ptr<Connection> connection) {
  connection->lingering = true;
  ::shutdown(connection->fd, SHUT_WR);
  park_locked(std::move(connection), Clock::now() + std::chrono::seconds(1));
}

namespace http_guard {

std::pair<std::string, int> peer_of(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return {"", 0};
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    return {text, ntohs(v4->sin_port)};
  }
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
  inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
  std::string ip = text;
  if (ip.rfind("::ffff:", 0) == 0 && ip.find('.') != std::string::npos) ip = ip.substr(7);  // an IPv4 client on a v6 socket
  return {ip, ntohs(v6->sin6_port)};
}

bool wait_for(int fd, short events, Clock::time_point deadline, const std::atomic<bool>* stopping) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || (stopping != nullptr && *stopping)) return false;
    pollfd entry{fd, events, 0};
    const int ready = ::poll(&entry, 1, static_cast<int>(std::min<long long>(left, 250)));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return false;
  }
}

bool drain(GuardedHttpServer::Connection& c) {
  char sink[16384];
  for (size_t this_call = 0; this_call < (256u << 10);) {
    const ssize_t n = ::recv(c.fd, sink, sizeof sink, MSG_DONTWAIT);
    if (n > 0) {
      c.drained += static_cast<size_t>(n), this_call += static_cast<size_t>(n);
      if (c.drained > (1u << 20)) return false;
      continue;
    }
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
  }
  return true;
}

ReadState skip_unread_body(GuardedHttpServer::Connection& c) {
  char sink[16384];
  while (c.unread_body > 0) {
    const ssize_t n = ::recv(c.fd, sink, std::min(sizeof sink, c.unread_body), MSG_DONTWAIT);
    if (n > 0) {
      c.unread_body -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return ReadState::Waiting;
    if (n < 0 && errno == EINTR) continue;
    return ReadState::Closed;
  }
  return ReadState::Done;
}

ReadState buffer_until(GuardedHttpServer::Connection& c, size_t size) {
  char chunk[16384];
  while (c.buffer.size() < size) {
    const ssize_t n = ::recv(c.fd, chunk, std::min(sizeof chunk, size - c.buffer.size()), MSG_DONTWAIT);
    if (n > 0) {
      c.buffer.append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return ReadState::Waiting;
    if (n < 0 && errno == EINTR) continue;
    return ReadState::Closed;
  }
  return ReadState::Done;
}

HeadState read_head(GuardedHttpServer::Connection& c, const HttpLimits& limits, size_t& head_size) {
  for (;;) {
    const size_t end = c.buffer.find("\r\n\r\n");
    const size_t scanned = std::min(end == std::string::npos ? c.buffer.size() : end, limits.max_head_bytes);
    const size_t lines = static_cast<size_t>(std::count(c.buffer.begin(), c.buffer.begin() + static_cast<long>(scanned), '\n'));
    if (lines > limits.max_header_lines) return HeadState::TooLarge;
    if (end != std::string::npos) {
      head_size = end + 4;
      return head_size > limits.max_head_bytes ? HeadState::TooLarge : HeadState::Complete;
    }
    if (c.buffer.size() > limits.max_head_bytes) return HeadState::TooLarge;
    char chunk[16384];
    const ssize_t n = ::recv(c.fd, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n > 0) {
      if (c.buffer.empty()) c.head_started = Clock::now();
      c.buffer.append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return HeadState::Waiting;
    if (n < 0 && errno == EINTR) continue;
    return HeadState::Closed;
  }
}

}  // namespace http_guard

}  // namespace graphcost
