#include "competition_server.h"

#include <fcntl.h>
#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/error_exit.h"
#include "common/input_error.h"
#include "common/io_error.h"
#include "competition_commands.h"
#include "competition_store.h"
#include "embedded_site.h"
#include "guarded_http_server.h"
#include "scoring/leaderboard.h"
#include "scoring/solution.h"
#include "scoring/submission.h"
#include "scoring_worker.h"

namespace graphcost {
namespace {

using Clock = std::chrono::steady_clock;

// The live board: rebuilt by the worker, read by every request.
struct LiveBoard {
  std::mutex mutex;
  std::shared_ptr<const Leaderboard> board;
  std::shared_ptr<const std::string> json;
  int64_t version = 0;  // rebuilds so far
};

// A token bucket per key: `per_minute` requests a minute, bursts up to a quarter of that. Keys
// are addresses and verified team ids, never anything a client can make up freely.
class RateLimiter {
 public:
  explicit RateLimiter(int per_minute) : per_second_(per_minute / 60.0), capacity_(std::max(4.0, per_minute / 4.0)) {}

  bool allow(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    const Clock::time_point now = Clock::now();
    if (buckets_.size() > 100000) forget_full_buckets(now);
    auto [it, inserted] = buckets_.try_emplace(key, Bucket{capacity_, now});
    Bucket& bucket = it->second;
    if (!inserted) {
      const double elapsed = std::chrono::duration<double>(now - bucket.last).count();
      bucket.tokens = std::min(capacity_, bucket.tokens + elapsed * per_second_);
      bucket.last = now;
    }
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

 private:
  // Buckets that would be full again are the same as no bucket: many distinct addresses cost
  // memory only while they keep sending.
  void forget_full_buckets(Clock::time_point now) {
    for (auto it = buckets_.begin(); it != buckets_.end();) {
      const double elapsed = std::chrono::duration<double>(now - it->second.last).count();
      it = it->second.tokens + elapsed * per_second_ >= capacity_ ? buckets_.erase(it) : std::next(it);
    }
  }

  struct Bucket {
    double tokens;
    Clock::time_point last;
  };
  const double per_second_, capacity_;
  std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;
};

void send_json(httplib::Response& response, int status, const nlohmann::json& body) {
  response.status = status;
  response.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "application/json");
}

void send_error(httplib::Response& response, int status, const std::string& message) { send_json(response, status, {{"error", message}}); }

std::string bearer_token(const httplib::Request& request) {
  const std::string header = request.get_header_value("Authorization");
  const std::string prefix = "Bearer ";
  return header.compare(0, prefix.size(), prefix) == 0 ? header.substr(prefix.size()) : std::string();
}

nlohmann::json submission_json(const StoredSubmission& s, bool final_board, const std::vector<int64_t>& picks) {
  nlohmann::json item = {{"id", s.id},
                         {"submitted_at", s.submitted_at},
                         {"status", submission_status_name(s.status)},
                         {"picked", std::count(picks.begin(), picks.end(), s.id) > 0}};
  if (s.status == SubmissionStatus::Scored) {
    item["public"] = s.public_score ? nlohmann::json(*s.public_score) : nlohmann::json(nullptr);
    if (final_board) item["private"] = s.private_score ? nlohmann::json(*s.private_score) : nlohmann::json(nullptr);
  }
  if (s.status == SubmissionStatus::Failed) item["error"] = s.error;
  return item;
}

// One SQLite connection per request thread, opened on its first request: WAL lets readers run
// beside a writer, and writers wait for each other (5 s busy timeout) inside SQLite, so no request
// waits on another's lock in this process.
class ConnectionPerThread {
 public:
  explicit ConnectionPerThread(std::string db) : db_(std::move(db)) {}
  CompetitionStore& get() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<CompetitionStore>& store = stores_[std::this_thread::get_id()];
    if (!store) store = std::make_unique<CompetitionStore>(CompetitionStore::open(db_, false));
    return *store;
  }

 private:
  const std::string db_;
  std::mutex mutex_;
  std::map<std::thread::id, std::unique_ptr<CompetitionStore>> stores_;
};

// One server per database: an exclusive flock on the database file itself, so any name of it (a
// symlink, a hard link, another relative path) meets the same lock; released by the kernel when
// the process ends, however it ends. Two workers on one queue would take each other's
// submissions. flock locks are apart from the POSIX locks SQLite takes, and the descriptor stays
// open until every SQLite connection has closed (closing it earlier would not drop SQLite's locks,
// but a POSIX lock held through it would be).
class ServerLock {
 public:
  explicit ServerLock(const std::string& db) : path_(db) {
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
  ~ServerLock() { ::close(fd_); }
  ServerLock(const ServerLock&) = delete;
  ServerLock& operator=(const ServerLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

class CompetitionServer {
 public:
  CompetitionServer(const ServeOptions& options)
      : options_(options),
        lock_(options.db),
        stores_(options.db),
        settings_(stores_.get().settings()),
        solution_(parse_solution(stores_.get().solution_csv(), options.db + " (solution)")),
        ids_csv_(id_list_csv(solution_)),
        limiter_(options.requests_per_minute),
        address_limiter_(options.requests_per_minute * kAddressAllowance),
        bad_token_limiter_(kBadTokensPerMinute),
        server_(http_limits(options)) {}

  // `signals` (SIGINT, SIGTERM) are blocked in every thread: the server's own thread waits for them.
  int run(const sigset_t& signals) {
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

 private:
  void stop() {
    {
      std::lock_guard<std::mutex> lock(queue_mutex_);
      stopping_ = true;
    }
    queue_changed_.notify_all();
    server_.stop();
  }

  bool closed(const std::string& now = utc_now()) const { return now >= settings_.deadline; }

  static HttpLimits http_limits(const ServeOptions& options) {
    HttpLimits limits;
    limits.threads = static_cast<size_t>(options.threads);
    limits.io_timeout = limits.head_timeout = std::chrono::seconds(options.timeout_seconds);
    limits.idle_timeout = std::min(limits.idle_timeout, limits.io_timeout);
    limits.trusted_proxy = options.trusted_proxy;
    limits.max_connections_per_address = static_cast<size_t>(options.connections_per_address);
    // Bodies only where a route reads one: an upload, and final picks.
    limits.body_limit = [max_upload = options.max_upload_bytes](const std::string& method, const std::string& path) -> size_t {
      if (method == "POST" && path == "/api/submissions") return max_upload;
      if (method == "PUT" && path == "/api/finals") return kMaxFinalsBody;
      return 0;
    };
    return limits;
  }

  // The client a request is from: its peer address, or behind the trusted proxy the address the
  // proxy put last in X-Forwarded-For (the proxy sets the header: a client cannot choose it).
  std::string client_address(const httplib::Request& request) const {
    if (options_.trusted_proxy.empty() || request.remote_addr != options_.trusted_proxy) return request.remote_addr;
    std::string forwarded = request.get_header_value("X-Forwarded-For");
    forwarded = forwarded.substr(forwarded.rfind(',') == std::string::npos ? 0 : forwarded.rfind(',') + 1);
    forwarded.erase(0, forwarded.find_first_not_of(' '));
    forwarded.erase(forwarded.find_last_not_of(' ') + 1);
    const bool plausible =
        !forwarded.empty() && forwarded.size() <= 45 && forwarded.find_first_not_of("0123456789abcdefABCDEF.:") == std::string::npos;
    return plausible ? forwarded : request.remote_addr;
  }
  // An address may send this many times a token's requests: pages, polls and the public routes
  // of everyone behind one address (a reverse proxy: say so in the README) share its bucket.
  static constexpr int kAddressAllowance = 10;
  // Requests with a wrong token an address may send a minute: guessing is slow, and a flood of
  // them does not touch the buckets of the teams behind the same address.
  static constexpr int kBadTokensPerMinute = 60;

  // ---- the scoring worker ------------------------------------------------------------------

  void work() {
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

  // Returns whether the board it built is the final one. The served board shows failed
  // submissions as failed without their errors: those quote the team's file, which only the team
  // sees (GET /api/submissions).
  bool rebuild_board(const CompetitionStore& store) {
    const bool final_board = closed();
    auto board = std::make_shared<const Leaderboard>(stored_leaderboard(store, solution_, final_board));
    nlohmann::json json = leaderboard_json(*board);
    for (nlohmann::json& item : json["submissions"]) {
      if (item.contains("message")) item["message"] = item["status"] == "invalid" ? "failed validation (the team sees why)" : "";
    }
    std::lock_guard<std::mutex> lock(board_.mutex);
    json["live"] = {
        {"title", settings_.title}, {"deadline", settings_.deadline}, {"version", ++board_.version}, {"app", !options_.app_dir.empty()}};
    board_.json = std::make_shared<const std::string>(json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    board_.board = std::move(board);
    return final_board;
  }

  // ---- requests ----------------------------------------------------------------------------

  // The team of the request's token, or an answer (401) and nothing.
  std::optional<int64_t> team_of(const httplib::Request& request, httplib::Response& response) {
    const std::string token = bearer_token(request);
    if (token.empty()) {
      response.set_header("WWW-Authenticate", "Bearer");
      send_error(response, 401, "missing token: send the header 'Authorization: Bearer <your team's token>'");
      return std::nullopt;
    }
    const std::optional<int64_t> team = stores_.get().team_for_token(token);
    if (!team && !bad_token_limiter_.allow(client_address(request))) {
      response.set_header("Retry-After", "60");
      send_error(response, 429,
                 "too many unrecognised tokens from your address: at most " + std::to_string(kBadTokensPerMinute) + " a minute");
      return std::nullopt;
    }
    if (!team) {
      response.set_header("WWW-Authenticate", "Bearer error=\"invalid_token\"");
      send_error(response, 401, "token not recognised: unknown, mistyped or revoked (ask the organiser for a new one)");
      return std::nullopt;
    }
    if (!limiter_.allow("team " + std::to_string(*team))) {
      response.set_header("Retry-After", "10");
      send_error(response, 429, "too many requests: at most " + std::to_string(options_.requests_per_minute) + " a minute per team");
      return std::nullopt;
    }
    return team;
  }

  // The routes by concern: HTTP settings, guards before any route, static pages, boards, and the
  // token-holding teams' submissions and final picks (authenticate() above).
  void routes() {
    configure_http();
    route_guards();
    route_static_pages();
    route_boards();
    route_submissions();
  }

  void configure_http() {
    // Connections, heads, bodies and their deadlines: GuardedHttpServer (http_limits above).
    server_.set_payload_max_length(options_.max_upload_bytes);
    server_.set_default_headers({{"X-Content-Type-Options", "nosniff"}, {"Referrer-Policy", "no-referrer"}});
    for (const auto& [extension, type] : std::map<std::string, std::string>{{"wasm", "application/wasm"},
                                                                            {"js", "text/javascript"},
                                                                            {"json", "application/json"},
                                                                            {"data", "application/octet-stream"},
                                                                            {"npz", "application/octet-stream"}}) {
      server_.set_file_extension_and_mimetype_mapping(extension, type);
    }
    if (!options_.app_dir.empty() && !server_.set_mount_point("/app", options_.app_dir)) {
      throw InputError(options_.app_dir, "--app", "a folder (the WebAssembly build's web/ folder)", "not a folder");
    }
  }

  // Rate limits and the pages' security policy, before any route; errors answered as JSON.
  void route_guards() {
    server_.set_pre_routing_handler([this](const httplib::Request& request, httplib::Response& response) {
      // Requests with a token are limited per team once the token is checked (team_of), so a flood
      // from a team's address (or its proxy) cannot lock the team out.
      const bool public_api = request.path.rfind("/api/", 0) == 0 || request.path.rfind("/data/", 0) == 0;
      if (public_api && !request.has_header("Authorization")) {
        if (!address_limiter_.allow(client_address(request))) {
          response.set_header("Retry-After", "10");
          send_error(response, 429,
                     "too many requests: at most " + std::to_string(options_.requests_per_minute * kAddressAllowance) +
                         " a minute from one address");
          return httplib::Server::HandlerResponse::Handled;
        }
      }
      // The same policy on the site and the app: scripts from this server only (WebAssembly
      // compiled by the browser), no plugins, no framing. The app adds blob: images (its
      // screenshots) and workers.
      response.set_header(
          "Content-Security-Policy",
          "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; "
          "img-src 'self' data: blob:; worker-src 'self' blob:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'");
      return httplib::Server::HandlerResponse::Unhandled;
    });
    // The details of a failure (SQL, the database's path) go to the log; the client gets a number to quote.
    server_.set_exception_handler([this](const httplib::Request& request, httplib::Response& response, std::exception_ptr error) {
      std::string message = "unknown exception";
      bool store_failed = false;
      try {
        std::rethrow_exception(error);
      } catch (const IoError& e) {
        message = error_message(e);
        store_failed = true;
      } catch (const std::exception& e) {
        message = error_message(e);
      } catch (...) {
      }
      const long long incident = ++incidents_;
      std::fprintf(stderr, "serve: incident %lld: %s %s: %s\n", incident, request.method.c_str(), printable(request.path).c_str(),
                   message.c_str());
      std::fflush(stderr);
      if (store_failed) {
        response.set_header("Retry-After", "30");
        send_error(response, 503,
                   "the competition's database is busy or failing (incident " + std::to_string(incident) +
                       ", logged): nothing was changed, try again shortly");
        return;
      }
      send_error(response, 500, "internal error (incident " + std::to_string(incident) + ", logged): please report the number");
    });
    server_.set_error_handler([](const httplib::Request&, httplib::Response& response) {
      if (!response.body.empty()) return;
      const char* reason = response.status == 413 ? "upload too large" : response.status == 404 ? "no such page" : "request refused";
      send_error(response, response.status, reason);
    });
  }

  // The site's pages (site/, compiled into the binary).
  void route_static_pages() {
    for (size_t i = 0; i < kEmbeddedSiteCount; ++i) {
      const EmbeddedFile& file = kEmbeddedSite[i];
      const std::string path = std::string("/") + file.name;
      auto serve_file = [&file](const httplib::Request&, httplib::Response& response) {
        response.set_header("Cache-Control", "no-cache");
        response.set_content(reinterpret_cast<const char*>(file.bytes), file.size,
                             (std::string(file.content_type) + "; charset=utf-8").c_str());
      };
      server_.Get(path, serve_file);
      if (std::string(file.name) == "index.html") server_.Get("/", serve_file);
    }
  }

  // Public reads: the live board, a scored submission's details, the competition, the ID list.
  void route_boards() {
    auto send_board = [this](const httplib::Request&, httplib::Response& response) {
      std::shared_ptr<const std::string> json;
      {
        std::lock_guard<std::mutex> lock(board_.mutex);
        json = board_.json;
      }
      response.set_header("Cache-Control", "no-store");
      response.set_content(*json, "application/json");
    };
    server_.Get("/data/leaderboard.json", send_board);
    server_.Get("/api/leaderboard", send_board);

    server_.Get(R"(/data/details/(\d{1,9})\.json)", [this](const httplib::Request& request, httplib::Response& response) {
      const int number = std::stoi(request.matches[1]);
      std::shared_ptr<const Leaderboard> board;
      {
        std::lock_guard<std::mutex> lock(board_.mutex);
        board = board_.board;
      }
      for (const SubmissionRecord& record : board->submissions) {
        if (record.number != number || record.status != EntryStatus::Scored) continue;
        if (!stores_.get().report_json(record.number)) break;  // being scored again (rescore)
        response.set_header("Cache-Control", "no-store");
        send_json(response, 200, stored_detail(stores_.get(), record, board->final_board));
        return;
      }
      send_error(response, 404, "no scored submission " + std::to_string(number) + " on the board");
    });

    server_.Get("/api/competition", [this](const httplib::Request&, httplib::Response& response) {
      send_json(response, 200,
                {{"title", settings_.title},
                 {"deadline", settings_.deadline},
                 {"open", !closed()},
                 {"daily_cap", settings_.daily_cap},
                 {"finals", settings_.finals},
                 {"graphs", solution_.entries.size()},
                 {"max_upload_bytes", options_.max_upload_bytes}});
    });
    // The public ID list (IDs and config counts, as the test files hold them) for the in-browser
    // pre-check: the same validator, without a single runtime.
    server_.Get("/api/ids", [this](const httplib::Request&, httplib::Response& response) { response.set_content(ids_csv_, "text/csv"); });
  }

  // A team's uploads, its submissions and its final picks: each request authenticated by token.
  void route_submissions() {
    // The body is read here rather than by cpp-httplib: `curl --data-binary` labels it a form
    // (application/x-www-form-urlencoded), which cpp-httplib would cap at 8 KiB and parse.
    server_.Post("/api/submissions", [this](const httplib::Request& request, httplib::Response& response,
                                            const httplib::ContentReader& read_content) {
      const std::optional<int64_t> team = team_of(request, response);
      if (!team) return;
      if (closed()) {
        send_error(response, 403, "the competition closed at " + settings_.deadline + ": no more submissions");
        return;
      }
      std::string body;
      bool too_large = request.get_header_value<uint64_t>("Content-Length") > options_.max_upload_bytes;
      const bool whole = !too_large && read_content([&](const char* data, size_t length) {
        too_large = body.size() + length > options_.max_upload_bytes;
        if (!too_large) body.append(data, length);
        return !too_large;
      });
      if (too_large) {
        send_error(response, 413, "upload too large: at most " + std::to_string(options_.max_upload_bytes >> 20) + " MiB");
        return;
      }
      if (!whole) {
        send_error(response, 400, "the upload did not arrive whole (connection closed or timed out): nothing was stored");
        return;
      }
      const SubmissionCheck check = check_submission_text(body, solution_);
      const std::string now = utc_now();  // the time stored: on time by its own stamp, or refused
      if (closed(now)) {
        send_error(response, 403, "the competition closed at " + settings_.deadline + ": no more submissions");
        return;
      }
      if (!check.valid()) {
        nlohmann::json errors = nlohmann::json::array();
        for (const SubmissionError& error : check.errors) {
          errors.push_back({{"line", error.line}, {"column", error.column}, {"message", error.message}});
        }
        send_json(response, 400,
                  {{"error", "invalid submission: nothing was stored and it does not count toward the daily cap"},
                   {"errors", errors},
                   {"error_count", check.error_count},
                   {"text", check.format_errors("submission")}});
        return;
      }
      const std::optional<int64_t> id = stores_.get().accept_submission(*team, body, now);
      if (!id) {
        response.set_header("Retry-After", "3600");
        send_error(response, 429,
                   "daily cap reached: " + std::to_string(settings_.daily_cap) + " submissions per UTC day (failed ones do not count)");
        return;
      }
      {
        std::lock_guard<std::mutex> lock(queue_mutex_);
        ++uploads_waiting_;
      }
      queue_changed_.notify_one();
      send_json(response, 202, {{"id", *id}, {"status", "queued"}, {"rows", check.rows}});
    });

    server_.Get("/api/submissions", [this](const httplib::Request& request, httplib::Response& response) {
      const std::optional<int64_t> team = team_of(request, response);
      if (!team) return;
      nlohmann::json list = nlohmann::json::array();
      CompetitionStore& store = stores_.get();
      const std::string name = store.team_name(*team);
      const std::vector<int64_t> picks = store.finals(*team);
      const bool final_board = closed();
      for (const StoredSubmission& s : store.submissions(false, *team)) list.push_back(submission_json(s, final_board, picks));
      send_json(response, 200, {{"team", name}, {"finals_allowed", settings_.finals}, {"submissions", list}});
    });

    server_.Get(R"(/api/submissions/(\d{1,18}))", [this](const httplib::Request& request, httplib::Response& response) {
      const std::optional<int64_t> team = team_of(request, response);
      if (!team) return;
      const int64_t id = std::stoll(request.matches[1]);
      CompetitionStore& store = stores_.get();
      const std::optional<StoredSubmission> s = store.submission(id);
      if (!s || s->team_id != *team) {  // another team's submission is as absent as a missing one
        send_error(response, 404, "your team has no submission " + std::to_string(id));
        return;
      }
      send_json(response, 200, submission_json(*s, closed(), store.finals(*team)));
    });

    server_.Put("/api/finals", [this](const httplib::Request& request, httplib::Response& response) {
      const std::optional<int64_t> team = team_of(request, response);
      if (!team) return;
      if (closed()) {
        send_error(response, 403, "the competition closed at " + settings_.deadline + ": final picks are fixed");
        return;
      }
      if (request.body.size() > kMaxFinalsBody) {
        send_error(response, 413, "final picks: a body of at most " + std::to_string(kMaxFinalsBody) + " bytes");
        return;
      }
      std::vector<int64_t> ids;
      const nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
      if (body.is_discarded() || !body.is_object() || !body.contains("submissions") || !body["submissions"].is_array()) {
        send_error(response, 400, "expected a JSON body {\"submissions\": [ids]}");
        return;
      }
      for (const nlohmann::json& id : body["submissions"]) {
        if (!id.is_number_integer()) {
          send_error(response, 400, std::string("final picks: expected submission ids (integers), got a JSON ") + id.type_name());
          return;
        }
        if (id.is_number_unsigned() && id.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
          send_error(response, 400, "final picks: no submission has the id " + id.dump());
          return;
        }
        ids.push_back(id.get<int64_t>());
      }
      if (closed()) {
        send_error(response, 403, "the competition closed at " + settings_.deadline + ": final picks are fixed");
        return;
      }
      try {
        stores_.get().set_finals(*team, ids);
      } catch (const InputError& error) {
        send_error(response, 400, error.what());
        return;
      }
      send_json(response, 200, {{"finals", ids}});
    });
  }

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

}  // namespace

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
