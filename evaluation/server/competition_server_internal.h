// CompetitionServer: the class behind run_serve (competition_server.h), for the files that define
// its parts by concern:
//   competition_server.cpp  start, stop, signals, and the scoring worker's loop
//   server_guards.cpp       HTTP settings and limits, client addresses, tokens, rate limits, errors
//   page_routes.cpp         the site's pages and the public reads (boards, details, rules, IDs)
//   submission_routes.cpp   a team's uploads, its submissions and its final picks
// Its parts of its own: ServerLock, ConnectionPerThread, RateLimiter, LiveBoard, GuardedHttpServer.
#pragma once

#include <httplib.h>
#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "http_guard/guarded_http_server.h"
#include "scoring/solution.h"
#include "server/competition_server.h"
#include "server/live_board.h"
#include "server/rate_limiter.h"
#include "server/server_lock.h"
#include "store/competition_store.h"
#include "store/connection_per_thread.h"

namespace graphcost {

class CompetitionServer {
 public:
  explicit CompetitionServer(const ServeOptions& options);
  // `signals` (SIGINT, SIGTERM) are blocked in every thread: the server's own thread waits for them.
  int run(const sigset_t& signals);

 private:
  void stop();
  bool closed(const std::string& now = utc_now()) const { return now >= settings_.deadline; }

  // The scoring worker (competition_server.cpp).
  void work();
  bool rebuild_board(const CompetitionStore& store);

  // Guards (server_guards.cpp).
  static HttpLimits http_limits(const ServeOptions& options);
  std::string client_address(const httplib::Request& request) const;
  std::optional<int64_t> team_of(const httplib::Request& request, httplib::Response& response);
  void configure_http();
  void route_guards();
  // An address may send this many times a token's requests: pages, polls and the public routes
  // of everyone behind one address (a reverse proxy: say so in the README) share its bucket.
  static constexpr int kAddressAllowance = 10;
  // Requests with a wrong token an address may send a minute: guessing is slow, and a flood of
  // them does not touch the buckets of the teams behind the same address.
  static constexpr int kBadTokensPerMinute = 60;

  // The routes by concern.
  void routes();
  void route_static_pages();  // page_routes.cpp
  void route_boards();
  void route_submissions();  // submission_routes.cpp
  void upload(const httplib::Request& request, httplib::Response& response, const httplib::ContentReader& read_content);
  void list_submissions(const httplib::Request& request, httplib::Response& response);
  void show_submission(const httplib::Request& request, httplib::Response& response);
  void pick_finals(const httplib::Request& request, httplib::Response& response);
  static constexpr size_t kMaxFinalsBody = 4096;

  const ServeOptions options_;
  ServerLock lock_;
  ConnectionPerThread stores_;  // the request threads' connections; the worker opens its own
  const CompetitionSettings settings_;
  const Solution solution_;
  const std::string ids_csv_;
  RateLimiter limiter_;            // per team, after its token is checked
  RateLimiter address_limiter_;    // per client address, requests without a token
  RateLimiter bad_token_limiter_;  // per client address, requests whose token is not recognised
  std::atomic<long long> incidents_{0};
  LiveBoard board_;
  std::mutex queue_mutex_;
  std::condition_variable queue_changed_;
  int uploads_waiting_ = 0;
  std::atomic<bool> stopping_{false};
  GuardedHttpServer server_;  // last: built after, and torn down before, everything its handlers use
};

}  // namespace graphcost
