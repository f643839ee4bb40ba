// One request on a guarded connection (guarded_http_server.h): the library's view of it
// (RequestStream: the buffered head first, then the socket, never past the request's end, with
// deadlines that grow with what has moved) and what happens to the connection after it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "http_guard/guarded_connection.h"

namespace graphcost {

using http_guard::Clock;

namespace {

using http_guard::wait_for;

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

}  // namespace

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
