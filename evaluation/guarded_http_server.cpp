#include "guarded_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/io_error.h"

namespace graphcost {

using Clock = std::chrono::steady_clock;

namespace {

// The address a socket's peer connected from, as text ("127.0.0.1", "::1").
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

// Waits until `fd` is readable (POLLIN) or writable (POLLOUT), at most until `deadline`, and not
// past a server stop (`stopping`, looked at every quarter second).
bool wait_for(int fd, short events, Clock::time_point deadline, const std::atomic<bool>* stopping = nullptr) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || (stopping != nullptr && *stopping)) return false;
    pollfd entry{fd, events, 0};
    const int ready = ::poll(&entry, 1, static_cast<int>(std::min<long long>(left, 250)));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return false;
  }
}

const char* reason_phrase(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 415:
      return "Unsupported Media Type";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

// A refusal written before the library saw the request: a small JSON answer into an empty send
// buffer, so it never waits. The caller then closes, lingering (GuardedHttpServer::linger) when the
// client may still be sending.
void send_refusal(int fd, int status, const std::string& message) {
  const std::string body = nlohmann::json({{"error", message}}).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string response = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) +
                               "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                               "\r\nConnection: close\r\nX-Content-Type-Options: nosniff\r\n" +
                               (status == 503 ? "Retry-After: 10\r\n" : "") + "\r\n" + body;
  if (::send(fd, response.data(), response.size(), MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
  }
}

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// What the guard needs of a request head; the library parses it again, fully.
struct RequestHead {
  std::string method, target, path;
  std::vector<std::pair<std::string, std::string>> headers;  // names lowercased
  std::vector<std::string> values(const std::string& name) const {
    std::vector<std::string> found;
    for (const auto& [key, value] : headers)
      if (key == name) found.push_back(value);
    return found;
  }
};

RequestHead parse_head(const std::string& head) {
  RequestHead parsed;
  size_t line_end = head.find("\r\n");
  const std::string request_line = head.substr(0, line_end);
  const size_t space = request_line.find(' ');
  parsed.method = request_line.substr(0, space);
  if (space != std::string::npos) {
    const size_t second = request_line.find(' ', space + 1);
    parsed.target = request_line.substr(space + 1, second == std::string::npos ? std::string::npos : second - space - 1);
  }
  parsed.path = parsed.target.substr(0, parsed.target.find('?'));
  while (line_end != std::string::npos && line_end + 2 < head.size()) {
    const size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string line = head.substr(start, line_end == std::string::npos ? std::string::npos : line_end - start);
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t") + 1);
    parsed.headers.emplace_back(lowercase(line.substr(0, colon)), value);
  }
  return parsed;
}

// A control byte in the target, raw or percent-encoded (%00 would end a file name early while the
// content type is still taken from the text after it).
bool has_control_byte(const std::string& target) {
  for (size_t i = 0; i < target.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(target[i]);
    if (c < 0x20 || c == 0x7f) return true;
    if (c == '%' && i + 2 < target.size() && std::isxdigit(static_cast<unsigned char>(target[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(target[i + 2]))) {
      const int value = std::stoi(target.substr(i + 1, 2), nullptr, 16);
      if (value < 0x20 || value == 0x7f) return true;
    }
  }
  return false;
}

struct Refusal {
  int status;
  std::string message;
};

// The checks made on a head before any body byte is read; sets `body_length`.
std::optional<Refusal> check_head(const RequestHead& head, const HttpLimits& limits, size_t& body_length) {
  body_length = 0;
  if (has_control_byte(head.target)) return Refusal{400, "the request target holds a control character"};
  if (!head.values("transfer-encoding").empty())
    return Refusal{411, "send the body with a Content-Length (Transfer-Encoding is not accepted)"};
  for (const std::string& encoding : head.values("content-encoding")) {
    if (lowercase(encoding) != "identity")
      return Refusal{415, "compressed request bodies are not accepted (Content-Encoding: " + encoding + ")"};
  }
  const std::vector<std::string> lengths = head.values("content-length");
  if (lengths.size() > 1) return Refusal{400, "more than one Content-Length"};
  if (lengths.empty()) return std::nullopt;
  const std::string& text = lengths[0];
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos)
    return Refusal{400, "Content-Length: expected a decimal byte count, got '" + text.substr(0, 40) + "'"};
  body_length = std::stoull(text);
  const size_t limit = limits.body_limit ? limits.body_limit(head.method, head.path) : 0;
  if (body_length > limit) {
    return Refusal{413, limit == 0 ? head.method + " " + head.path.substr(0, 100) + " takes no body"
                                   : "body too large: at most " + std::to_string(limit) + " bytes on " + head.path};
  }
  return std::nullopt;
}

}  // namespace

// ---- connections and their counts ---------------------------------------------------------------

struct GuardedHttpServer::Internals {
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
  Connection(int fd, Internals& internals) : fd(fd), internals(internals) {
    std::tie(address, port) = peer_of(fd);
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

namespace {

// Reads and drops what a lingering connection's client sent (at most 256 KiB a call, under the
// parking lock); false when it is time to close.
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

enum class ReadState { Done, Waiting, Closed };

// Drops what arrives of the trusted proxy's unread body, without waiting.
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

// Appends what the socket has, without waiting, until the buffer holds `size` bytes.
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

// The library's view of one request on a connection: the buffered bytes first, then the socket,
// never past the request's end (head + Content-Length), so pipelined bytes stay for the next.
class RequestStream final : public httplib::Stream {
 public:
  RequestStream(GuardedHttpServer::Connection& connection, size_t head_size, size_t body_size, const HttpLimits& limits,
                const std::atomic<bool>& stopping)
      : c_(connection),
        head_size_(head_size),
        end_(head_size + body_size),
        limits_(limits),
        stopping_(stopping),
        started_(Clock::now()),
        bytes_per_second_(std::max<size_t>(1, limits.min_bytes_per_second)) {}

  bool is_readable() const override { return position_ < c_.buffer.size() || wait_for(c_.fd, POLLIN, Clock::now() + limits_.io_timeout); }
  bool is_writable() const override { return wait_for(c_.fd, POLLOUT, Clock::now() + limits_.io_timeout, &stopping_); }

  ssize_t read(char* data, size_t size) override {
    if (position_ >= end_) return 0;
    size = std::min(size, end_ - position_);
    // Whatever was written before (an interim "100 Continue") is not the response: its clock
    // starts after the request's last read.
    written_ = 0;
    if (position_ < c_.buffer.size()) {
      const size_t n = std::min(size, c_.buffer.size() - position_);
      std::memcpy(data, c_.buffer.data() + position_, n);
      position_ += n;
      return static_cast<ssize_t>(n);
    }
    // The body's deadline grows with what has arrived: a slow sender is cut off, a large upload is not.
    const size_t body_read = position_ - head_size_;
    const Clock::time_point deadline =
        std::min(Clock::now() + limits_.io_timeout, started_ + limits_.io_timeout + std::chrono::seconds(body_read / bytes_per_second_));
    if (!wait_for(c_.fd, POLLIN, deadline, &stopping_)) return -1;
    const ssize_t n = ::recv(c_.fd, data, size, 0);
    if (n <= 0) return -1;
    position_ += static_cast<size_t>(n);
    return n;
  }

  // All of `size`, or -1: the library writes a whole response body in one call and takes any
  // positive count as done. The deadline grows with what was written, as a body's does.
  ssize_t write(const char* data, size_t size) override {
    if (written_ == 0) response_started_ = Clock::now();
    for (size_t sent = 0; sent < size;) {
      const Clock::time_point deadline = std::min(
          Clock::now() + limits_.io_timeout, response_started_ + limits_.io_timeout + std::chrono::seconds(written_ / bytes_per_second_));
      if (!wait_for(c_.fd, POLLOUT, deadline, &stopping_)) return -1;
      const ssize_t n = ::send(c_.fd, data + sent, size - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
      if (n <= 0) return -1;
      sent += static_cast<size_t>(n), written_ += static_cast<size_t>(n);
    }
    return static_cast<ssize_t>(size);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = c_.address;
    port = c_.port;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    ip.clear(), port = 0;
    if (getsockname(c_.fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return;
    char text[INET6_ADDRSTRLEN] = {};
    if (address.ss_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
      inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text), port = ntohs(v4->sin_port);
    } else {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
      inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text), port = ntohs(v6->sin6_port);
    }
    ip = text;
  }
  socket_t socket() const override { return c_.fd; }

  // Whether the whole request was taken (else its unread body is still in the socket).
  bool whole_request_read() const { return position_ >= end_ || end_ <= c_.buffer.size(); }
  // The request's bytes still in the socket (a body the handler did not read).
  size_t unread_in_socket() const { return end_ - std::min(end_, std::max(position_, c_.buffer.size())); }
  // Drops the request's bytes from the connection's buffer, keeping what follows it.
  void drop_request_bytes() { c_.buffer.erase(0, std::min(end_, c_.buffer.size())); }

 private:
  GuardedHttpServer::Connection& c_;
  const size_t head_size_, end_;
  const HttpLimits& limits_;
  const std::atomic<bool>& stopping_;
  const Clock::time_point started_;
  const size_t bytes_per_second_;
  Clock::time_point response_started_;
  size_t position_ = 0, written_ = 0;
};

// The library's listen loop hands each accepted socket to its task queue: this one runs the task
// at once, on the listen thread. The task (process_and_close_socket) only counts the connection
// and parks it, so an accepted socket is counted and capped at once instead of waiting, uncounted,
// for a busy pool.
class AdmitAtOnce final : public httplib::TaskQueue {
 public:
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override {}
};

enum class HeadState { Complete, Waiting, Closed, TooLarge };

// Reads what the socket has without waiting, until the buffer holds a whole head. Sets
// `head_size` (bytes up to and including the blank line) when complete.
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

}  // namespace

// ---- the server -----------------------------------------------------------------------------------

GuardedHttpServer::GuardedHttpServer(HttpLimits limits) : limits_(std::move(limits)), internals_(std::make_unique<Internals>(limits_)) {
  Internals& in = *internals_;
  new_task_queue = [] { return new AdmitAtOnce(); };
  // Only for the Keep-Alive header the library writes: this class enforces both.
  set_keep_alive_max_count(limits_.max_requests_per_connection);
  set_keep_alive_timeout(limits_.idle_timeout.count());
  epoll_event wake{};
  wake.events = EPOLLIN;
  wake.data.fd = in.wake_fd;
  epoll_ctl(in.epoll_fd, EPOLL_CTL_ADD, in.wake_fd, &wake);
  // The parking thread: resumes readable connections on the pool, drains lingering ones itself,
  // and closes those past their deadline.
  in.parking_thread = std::thread([this, &in] {
    epoll_event events[64];
    while (!in.stopping) {
      const int ready = epoll_wait(in.epoll_fd, events, 64, 250);
      std::vector<std::shared_ptr<Connection>> resume;
      std::lock_guard<std::mutex> lock(in.parked_mutex);
      for (int i = 0; i < ready; ++i) {
        auto it = in.parked.find(events[i].data.fd);
        if (it == in.parked.end()) continue;
        if (it->second.connection->lingering) {
          if (!drain(*it->second.connection)) in.unpark(it);
          continue;
        }
        resume.push_back(std::move(it->second.connection));
        in.unpark(it);
      }
      const Clock::time_point now = Clock::now();
      for (auto it = in.parked.begin(); it != in.parked.end();) {
        if (it->second.deadline > now) {
          ++it;
          continue;
        }
        std::shared_ptr<Connection> c = std::move(it->second.connection);
        it = in.unpark(it);
        // A head begun but not finished in time hears why; an idle connection just closes.
        if (!c->lingering && !c->buffer.empty()) {
          send_refusal(c->fd, 408, "the request did not arrive in time");
          in.linger_locked(std::move(c));
        }
      }
      for (std::shared_ptr<Connection>& c : resume) in.pool->enqueue([this, c]() mutable { serve(std::move(c)); });
    }
  });
}

GuardedHttpServer::~GuardedHttpServer() { shut_down(); }

bool GuardedHttpServer::from_trusted_proxy(const Connection& connection) const {
  return !limits_.trusted_proxy.empty() && connection.address == limits_.trusted_proxy;
}

void GuardedHttpServer::shut_down() {
  Internals& in = *internals_;
  stop();
  std::lock_guard<std::mutex> once(in.shutdown_mutex);  // a second caller returns when the first is done
  if (in.shut) return;
  in.shut = true;
  in.stopping = true;  // requests in flight end at their next wait (a quarter second at most)
  const uint64_t one = 1;
  if (::write(in.wake_fd, &one, sizeof one) < 0) {
  }
  in.parking_thread.join();
  {
    std::lock_guard<std::mutex> lock(in.parked_mutex);
    in.parked.clear();  // closes them
  }
  in.pool->shutdown();  // runs what is queued (each sees `stopping` and closes) and joins
  ::close(in.epoll_fd);
  ::close(in.wake_fd);
}

// On the listen thread (AdmitAtOnce): counts the connection against the caps and parks it until
// it sends something. Never waits.
bool GuardedHttpServer::process_and_close_socket(socket_t sock) {
  Internals& in = *internals_;
  auto connection = std::make_shared<Connection>(sock, in);
  if (sock >= FD_SETSIZE) {  // the library refuses such sockets with a 500 (it checks them for select())
    send_refusal(sock, 503, "the server has too many open files: try again shortly");
    return true;
  }
  {
    std::lock_guard<std::mutex> lock(in.counts_mutex);
    const bool exempt = from_trusted_proxy(*connection);
    size_t& from_address = in.per_address[connection->address];
    if (in.open >= limits_.max_connections || (!exempt && from_address >= limits_.max_connections_per_address)) {
      if (from_address == 0) in.per_address.erase(connection->address);
      const std::string why = in.open >= limits_.max_connections ? "the server has too many open connections: try again shortly"
                                                                 : "too many open connections from your address (at most " +
                                                                       std::to_string(limits_.max_connections_per_address) + ")";
      send_refusal(sock, 503, why);
      return true;  // the connection closes as it goes out of scope
    }
    ++in.open, ++from_address;
    connection->counted = true;
  }
  in.park(std::move(connection), Clock::now() + limits_.idle_timeout);
  return true;
}

void GuardedHttpServer::serve(std::shared_ptr<Connection> connection) {
  Internals& in = *internals_;
  Connection& c = *connection;
  auto park_until = [&](Clock::time_point deadline) { in.park(std::move(connection), deadline); };
  while (!in.stopping) {
    if (c.unread_body > 0) {  // the rest of a body the trusted proxy sent, before its next request
      const ReadState skipped = skip_unread_body(c);
      if (skipped == ReadState::Closed) return;
      if (skipped == ReadState::Waiting) return park_until(c.last_activity + limits_.io_timeout);
      if (c.close_after_unread_body) return;
    }
    size_t head_size = 0;
    switch (read_head(c, limits_, head_size)) {
      case HeadState::Closed:
        return;
      case HeadState::TooLarge:
        send_refusal(c.fd, 431,
                     "request head too large: at most " + std::to_string(limits_.max_head_bytes) + " bytes and " +
                         std::to_string(limits_.max_header_lines) + " header lines");
        return in.linger(std::move(connection));
      case HeadState::Waiting:
        return park_until(c.buffer.empty() ? c.last_activity + limits_.idle_timeout : c.head_started + limits_.head_timeout);
      case HeadState::Complete:
        break;
    }
    const RequestHead head = parse_head(c.buffer.substr(0, head_size));
    size_t body_size = 0;
    if (const std::optional<Refusal> refusal = check_head(head, limits_, body_size)) {
      send_refusal(c.fd, refusal->status, refusal->message);
      return in.linger(std::move(connection));
    }
    // A small body (final picks, a small upload) arrives whole before the request takes a thread,
    // so trickling it holds none; a large one (an upload) is read by its handler once the token is
    // checked.
    if (body_size <= kBufferedBodyBytes) {
      // A client that asked may wait for "100 Continue" before it sends the body (the library
      // answers it again later: several 1xx answers are allowed).
      const std::vector<std::string> expect = head.values("expect");
      if (!c.continue_sent && c.buffer.size() < head_size + body_size && !expect.empty() && lowercase(expect[0]) == "100-continue") {
        static const char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
        if (::send(c.fd, kContinue, sizeof kContinue - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) return;
        c.continue_sent = true;
      }
      const ReadState body = buffer_until(c, head_size + body_size);
      if (body == ReadState::Closed) return;
      if (body == ReadState::Waiting) return park_until(c.head_started + limits_.head_timeout);
    }
    c.continue_sent = false;
    switch (serve_one_request(c, head_size, body_size)) {
      case NextStep::KeepAlive:
        c.last_activity = Clock::now();
        if (!c.buffer.empty()) c.head_started = c.last_activity;  // a pipelined head: its clock starts now
        break;
      case NextStep::Close:
        return;
      case NextStep::Linger:
        return in.linger(std::move(connection));
    }
  }
}

GuardedHttpServer::NextStep GuardedHttpServer::serve_one_request(Connection& c, size_t head_size, size_t body_size) {
  RequestStream stream(c, head_size, body_size, limits_, internals_->stopping);
  const bool last = ++c.requests >= limits_.max_requests_per_connection || internals_->stopping;
  bool client_closes = false;
  // Several byte ranges would make one response many times its file: they are ignored (RFC 9110
  // lets a server answer a range request with the whole representation).
  const bool answered = process_request(stream, last, client_closes, [](httplib::Request& request) {
    if (request.ranges.size() > 1) {
      request.ranges.clear();
      request.headers.erase("Range");  // the file handler answers 206 to any Range header
    }
  });
  if (!stream.whole_request_read()) {  // a body the handler refused to read
    if (!answered || !from_trusted_proxy(c)) return NextStep::Linger;
    // The proxy sends the whole body before it reads the answer: take the rest, then go on.
    c.unread_body = stream.unread_in_socket();
    c.close_after_unread_body = last || client_closes;
    c.buffer.clear();  // every buffered byte was this request's
    c.last_activity = Clock::now();
    return NextStep::KeepAlive;
  }
  if (!answered || last || client_closes) return NextStep::Close;
  stream.drop_request_bytes();
  return NextStep::KeepAlive;
}

}  // namespace graphcost
