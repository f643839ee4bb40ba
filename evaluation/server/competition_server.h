// `graphcost-eval serve`: a live competition from one database file (competition_store.h) over
// HTTP (cpp-httplib). One process holds
//   - the request threads: pages, the JSON API, uploads. An upload is validated at once (the
//     submission's line/column errors, never a solution value), stored with the daily cap checked
//     in the same transaction, and answered 202 before it is scored;
//   - one scoring worker: claims queued submissions one at a time, scores them, and rebuilds the
//     live board after each (stored_leaderboard: nothing is scored twice). At start it puts back
//     what a killed process left `scoring`;
//   - a signal thread: SIGINT / SIGTERM stop both cleanly.
// Routes (the API is documented in evaluation/README.md):
//   GET  /  /leaderboard.js  /style.css  /submit.html  /submit.js   pages (built into the binary)
//   GET  /data/leaderboard.json  /data/details/<n>.json             what the leaderboard page reads
//   GET  /api/competition  /api/leaderboard  /api/ids               rules, board, public ID list
//   POST /api/submissions            (Bearer token) body: the CSV -> 202 {id, status}
//   GET  /api/submissions[/<id>]     (Bearer token) the team's own submissions
//   PUT  /api/finals                 (Bearer token) body {"submissions": [ids]}
//   GET  /app/...                    the browser app and the in-browser validator (--app DIR)
// Hostile traffic: every connection, head, body and response is bounded in bytes and time before
// cpp-httplib parses it (guarded_http_server.h: 431/411/415/413/408, idle connections parked
// without a thread, per-address connection caps); a token bucket per team (after its token is
// checked), per client address for requests without a token, and per address for unrecognised
// tokens (429); bad or revoked tokens 401; failures logged with an incident number, never quoted
// to the client; user data only ever inside JSON or text nodes; no file-system path built from a
// request except under --app (cpp-httplib refuses "..", the guard control bytes).
// Plain HTTP on 127.0.0.1 by default: TLS and public exposure belong to a reverse proxy
// (docs/deploy.md: nginx in front, --trusted-proxy so limits key on the real client).
#pragma once

#include <cstddef>
#include <string>

namespace graphcost {

struct ServeOptions {
  std::string db;
  std::string bind = "127.0.0.1";
  int port = 8000;
  std::string app_dir;                    // the WebAssembly build's web/ folder (app + validator); "" = none
  size_t max_upload_bytes = 32ull << 20;  // a full TpuGraphs submission is ~5 MB
  int requests_per_minute = 120;          // per token, or per address for requests without one
  int threads = 32;                       // request threads (a connection waiting for bytes holds none)
  int timeout_seconds = 10;               // a body or response with no progress for this long is cut off
  std::string trusted_proxy;              // a reverse proxy's address: its X-Forwarded-For names the client
  int connections_per_address = 32;       // open connections from one client address (the proxy is exempt)
};

// Serves until SIGINT or SIGTERM; returns the exit code. Prints the address when listening.
int run_serve(const ServeOptions& options);

}  // namespace graphcost
