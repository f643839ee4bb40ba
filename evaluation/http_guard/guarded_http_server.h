// GuardedHttpServer: cpp-httplib's Server (Debian's compiled 0.11.4) with its connection handling
// replaced, so that every request is bounded in bytes and in time before the library parses it.
// The library keeps what it does well (request parsing, routing, responses); this class owns the
// sockets:
//   - A request's head (request line + headers) is read here first, into a per-connection
//     buffer: at most `max_head_bytes` and `max_header_lines` (431 otherwise), within
//     `head_timeout` of its first byte (408). Only a complete, bounded head reaches the library.
//   - From the head alone, before any body byte is read: Transfer-Encoding is refused (411: the
//     length must be known), Content-Encoding other than identity is refused (415: no gzip
//     bombs), and Content-Length above the route's limit (`body_limit(method, path)`, 0 for routes
//     that take no body) is refused (413). A target with an encoded or raw control byte (%00...) is
//     refused (400). Multiple byte ranges are ignored (the whole file, 200): a response is never
//     larger than its file.
//   - A body of at most 64 KiB (final picks, a small upload) is read whole before the request
//     takes a request thread. Larger bodies (uploads) are read by their handler, after the token
//     is checked, within a deadline that grows with their size (`min_bytes_per_second`); so are
//     responses, written whole or not at all. A body the handler did not read closes the
//     connection (lingering: its bytes are never parsed as the next request); from the trusted
//     proxy, which sends whole bodies before it reads the answer, the rest is read and dropped
//     and the connection goes on.
//   - A connection waiting for bytes (new, idle between requests, a slow sender's partial head
//     or small body) holds no thread: it is parked in one epoll set and resumed on a request thread
//     when readable, or closed at its deadline. So idle and slow clients cannot starve the
//     request threads.
//   - Connections are counted on the listen thread as they are accepted, capped in all
//     (`max_connections`) and per client address (`max_connections_per_address`; the trusted
//     proxy is exempt: it carries many clients). Over a cap, the connection gets a 503 and is
//     closed.
//   - Pipelined requests are answered in order: bytes after one request stay in the buffer for the
//     next.
//   - shut_down() ends requests in flight at their next wait (a quarter second at most).
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace graphcost {

struct HttpLimits {
  size_t max_head_bytes = 32 * 1024;  // nginx's default large_client_header_buffers (4 x 8k)
  size_t max_header_lines = 100;
  std::chrono::seconds head_timeout{10};     // from a head's first byte to its end
  std::chrono::seconds idle_timeout{5};      // a kept-alive connection between requests
  std::chrono::seconds io_timeout{10};       // a body or response with no progress
  size_t min_bytes_per_second = 16 * 1024;   // bodies and responses: deadline = io_timeout + size / this
  size_t max_requests_per_connection = 100;  // keep-alive requests before the connection closes
  size_t max_connections = 768;              // open at once: sockets stay below FD_SETSIZE (1,024), which the library checks
  size_t max_connections_per_address = 32;
  std::string trusted_proxy;  // address exempt from the per-address cap ("" = none)
  size_t threads = 32;        // request threads (parked connections hold none)
  // The largest body a route takes: 0 = none. Called with the method and the raw path (no query).
  std::function<size_t(const std::string& method, const std::string& path)> body_limit;
};

class GuardedHttpServer : public httplib::Server {
 public:
  explicit GuardedHttpServer(HttpLimits limits);
  ~GuardedHttpServer() override;
  GuardedHttpServer(const GuardedHttpServer&) = delete;
  GuardedHttpServer& operator=(const GuardedHttpServer&) = delete;

  // Stops listening, closes every parked connection and waits for the request threads. Safe to
  // call more than once and from any thread (a signal handler thread, say).
  void shut_down();

  struct Connection;  // a socket, its address and the bytes read but not yet used

 private:
  bool process_and_close_socket(socket_t sock) override;
  void serve(std::shared_ptr<Connection> connection);
  bool from_trusted_proxy(const Connection& connection) const;
  enum class NextStep { KeepAlive, Close, Linger };
  NextStep serve_one_request(Connection& connection, size_t head_size, size_t body_size);
  static constexpr size_t kBufferedBodyBytes = 64 * 1024;  // bodies up to this arrive whole before a thread is taken

  struct Internals;  // the thread pool, the epoll set, the connection counts
  HttpLimits limits_;
  std::unique_ptr<Internals> internals_;
};

}  // namespace graphcost
