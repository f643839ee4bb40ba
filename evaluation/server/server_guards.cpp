// CompetitionServer's guards (competition_server_internal.h): HTTP settings and limits, the
// client behind a trusted proxy, token checks with their rate limits, and errors answered as JSON.
#include <algorithm>
#include <cstdio>
#include <map>

#include "common/error_exit.h"
#include "common/input_error.h"
#include "common/io_error.h"
#include "server/api_responses.h"
#include "server/competition_server_internal.h"

namespace graphcost {

HttpLimits CompetitionServer::http_limits(const ServeOptions& options) {
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
std::string CompetitionServer::client_address(const httplib::Request& request) const {
  if (options_.trusted_proxy.empty() || request.remote_addr != options_.trusted_proxy) return request.remote_addr;
  std::string forwarded = request.get_header_value("X-Forwarded-For");
  forwarded = forwarded.substr(forwarded.rfind(',') == std::string::npos ? 0 : forwarded.rfind(',') + 1);
  forwarded.erase(0, forwarded.find_first_not_of(' '));
  forwarded.erase(forwarded.find_last_not_of(' ') + 1);
  const bool plausible =
      !forwarded.empty() && forwarded.size() <= 45 && forwarded.find_first_not_of("0123456789abcdefABCDEF.:") == std::string::npos;
  return plausible ? forwarded : request.remote_addr;
}

// The team of the request's token, or an answer (401) and nothing.
std::optional<int64_t> CompetitionServer::team_of(const httplib::Request& request, httplib::Response& response) {
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

void CompetitionServer::configure_http() {
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
void CompetitionServer::route_guards() {
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
    response.set_header("Content-Security-Policy",
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

}  // namespace graphcost
