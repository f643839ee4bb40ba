// The request head as GuardedHttpServer (guarded_http_server.h) reads it before cpp-httplib sees
// the request: parsed just enough to check it (method, target, path, headers), checked (control
// bytes in the target, Transfer-Encoding, Content-Encoding, Content-Length against the route's
// limit), and a refusal written straight to the socket when it fails.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "http_guard/guarded_http_server.h"

namespace graphcost::http_guard {

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

// The head's bytes (request line and headers, without the blank line or with it) parsed.
RequestHead parse_head(const std::string& head);

// A control byte in the target, raw or percent-encoded (%00 would end a file name early while the
// content type is still taken from the text after it).
bool has_control_byte(const std::string& target);

struct Refusal {
  int status;
  std::string message;
};

// The checks made on a head before any body byte is read; sets `body_length`.
std::optional<Refusal> check_head(const RequestHead& head, const HttpLimits& limits, size_t& body_length);

// A refusal written before the library saw the request: a small JSON answer into an empty send
// buffer, so it never waits. The caller then closes, lingering (GuardedHttpServer::linger) when the
// client may still be sending.
void send_refusal(int fd, int status, const std::string& message);

// ASCII letters lowercased (header names and tokens).
std::string lowercase(std::string text);

}  // namespace graphcost::http_guard
