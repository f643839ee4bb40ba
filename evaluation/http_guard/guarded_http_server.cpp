#include "http_guard/guarded_http_server.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>
#include <vector>

#include "http_guard/guarded_connection.h"
#include "http_guard/http_request_head.h"

namespace graphcost {

using http_guard::buffer_until;
using http_guard::check_head;
using http_guard::Clock;
using http_guard::drain;
using http_guard::HeadState;
using http_guard::lowercase;
using http_guard::parse_head;
using http_guard::read_head;
using http_guard::ReadState;
using http_guard::Refusal;
using http_guard::RequestHead;
using http_guard::send_refusal;
using http_guard::skip_unread_body;

namespace {

// The library's listen loop hands each accepted socket to its task queue: this one runs the task
// at once, on the listen thread. The task (process_and_close_socket) only counts the connection
// and parks it, so an accepted socket is counted and capped at once instead of waiting, uncounted,
// for a busy pool.
class AdmitAtOnce final : public httplib::TaskQueue {
 public:
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override {}
};

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

}  // namespace graphcost
