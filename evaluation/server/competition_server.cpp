#include "server/competition_server.h"

#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>

#include "common/error_exit.h"
#include "common/input_error.h"
#include "common/io_error.h"
#include "scoring/submission.h"
#include "scoring_worker.h"
#include "server/competition_server_internal.h"

namespace graphcost {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

CompetitionServer::CompetitionServer(const ServeOptions& options)
    : options_(options),
      lock_(options.db),
      stores_(options.db),
      settings_(stores_.get().settings()),
      solution_(parse_solution(stores_.get().solution_csv(), options.db + " (solution)")),
      ids_csv_(id_list_csv(solution_)),
      limiter_(options.requests_per_minute),
      address_limiter_(options.requests_per_minute * kAddressAllowance),
      bad_token_limiter_(kBadTokensPerMinute),
      board_(settings_.title, settings_.deadline, !options.app_dir.empty()),
      server_(http_limits(options)) {}

int CompetitionServer::run(const sigset_t& signals) {
  rebuild_board(stores_.get());
  routes();
  // The listening socket: SO_REUSEADDR (a restart right after a stop binds again) but not
  // cpp-httplib's default SO_REUSEPORT (a second server on the same port would silently share
  // it); and a backlog of 1,024 instead of the library's 5, which under 50 clients overflowed
  // and cost connections seconds of SYN retries or a reset.
  int listening_socket = -1;
  server_.set_socket_options([&listening_socket](socket_t socket) {
    const int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listening_socket = socket;
  });
  int port = options_.port;
  if (port == 0) {
    port = server_.bind_to_any_port(options_.bind);
    if (port < 0) throw IoError(options_.bind, "listen on any port", errno);
  } else if (!server_.bind_to_port(options_.bind, port)) {
    throw IoError(options_.bind + ":" + std::to_string(port), "listen", errno);
  }
  if (listening_socket >= 0 && ::listen(listening_socket, 1024) != 0) throw IoError(options_.bind, "listen (backlog 1024)", errno);
  std::thread worker([this] { work(); });
  std::thread signal_thread([this, signals, listening_socket] {
    int received = 0;
    sigwait(&signals, &received);
    if (received != 0 && !stopping_) std::printf("serve: %s received, stopping\n", received == SIGINT ? "SIGINT" : "SIGTERM");
    stop();
    // The library's stop() does nothing before its listen loop has begun; a shut listening
    // socket ends the loop whenever it runs (accept fails).
    if (listening_socket >= 0) ::shutdown(listening_socket, SHUT_RDWR);
  });
  std::printf("serve: '%s' on http://%s:%d/ (board, submit.html, api/%s); Ctrl-C stops\n", printable(settings_.title).c_str(),
              options_.bind.c_str(), port, options_.app_dir.empty() ? "" : ", app/");
  std::fflush(stdout);
  if (!stopping_) server_.listen_after_bind();
  stop();
  server_.shut_down();
  pthread_kill(signal_thread.native_handle(), SIGTERM);  // wakes sigwait when the server ended on its own
  signal_thread.join();
  worker.join();
  return 0;
}

void CompetitionServer::stop() {
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    stopping_ = true;
  }
  queue_changed_.notify_all();
  server_.stop();
}

// The routes by concern: HTTP settings, guards before any route (server_guards.cpp), static pages,
// boards (page_routes.cpp), and the token-holding teams' submissions and final picks
// (submission_routes.cpp, each request authenticated by team_of).
void CompetitionServer::routes() {
  configure_http();
  route_guards();
  route_static_pages();
  route_boards();
  route_submissions();
}

// ---- the scoring worker ------------------------------------------------------------------

void CompetitionServer::work() {
  ScoringWorker worker(options_.db, solution_);
  int64_t seen_version = -1;
  bool seen_closed = false, board_stale = true;
  Clock::time_point built = Clock::now();
  while (!stopping_) {
    const ScoringWorker::Step step = worker.step();
    if (step.put_back > 0)
      std::printf("serve: %d submission%s left in scoring (a stopped server, or a failed store): queued again\n", step.put_back,
                  step.put_back == 1 ? "" : "s");
    std::chrono::milliseconds wait = step.finished > 0 ? std::chrono::milliseconds(0) : std::chrono::milliseconds(1000);
    if (!step.error.empty()) {
      // A busy or failing database, or a scorer bug: the worker puts back what it held before it
      // claims anything else, and retries with backoff rather than leave the competition without a scorer.
      std::fprintf(stderr, "serve: scoring worker: %s (retrying in %lld s)\n", step.error.c_str(),
                   static_cast<long long>(step.retry_in.count() / 1000));
      wait = step.retry_in;
    } else {
      try {
        // The board after a scored submission (at most once a second while a queue drains: a
        // rebuild reads every stored outcome); after another connection's change (an upload, a
        // final pick, an organiser's command); and when the deadline passes.
        const int64_t version = worker.store()->data_version();
        board_stale = board_stale || step.finished > 0 || version != seen_version || closed() != seen_closed;
        if (board_stale && (step.finished == 0 || Clock::now() - built >= std::chrono::seconds(1))) {
          seen_closed = rebuild_board(*worker.store());
          seen_version = version;  // read before the rebuild: a change during it is seen next time
          board_stale = false;
          built = Clock::now();
        }
      } catch (const std::exception& error) {
        std::fprintf(stderr, "serve: rebuilding the board: %s (retrying in 1 s)\n", error_message(error).c_str());
        wait = std::chrono::milliseconds(1000);
      }
    }
    std::fflush(stdout), std::fflush(stderr);
    if (wait.count() == 0) continue;
    std::unique_lock<std::mutex> lock(queue_mutex_);
    // An upload wakes an idle worker at once; a recovering one keeps its backoff.
    queue_changed_.wait_for(lock, wait, [this, &step] { return stopping_ || (step.error.empty() && uploads_waiting_ > 0); });
    uploads_waiting_ = 0;
  }
}

// Returns whether the board it built is the final one.
bool CompetitionServer::rebuild_board(const CompetitionStore& store) {
  const bool final_board = closed();
  board_.rebuild(store, solution_, final_board);
  return final_board;
}

int run_serve(const ServeOptions& options) {
  // Signals go to one thread that stops the server; every other thread blocks them, including
  // the request threads the server starts as it is built.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // A file-size limit (RLIMIT_FSIZE) reached by the database is a write error to handle, not a
  // reason to die.
  signal(SIGXFSZ, SIG_IGN);
  CompetitionServer server(options);
  return server.run(signals);
}

}  // namespace graphcost
