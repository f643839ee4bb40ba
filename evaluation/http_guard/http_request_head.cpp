#include "http_guard/http_request_head.h"

#include <sys/socket.h>

#include <cctype>

#include <nlohmann/json.hpp>

namespace graphcost::http_guard {
namespace {

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

}  // namespace

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

}  // namespace graphcost::http_guard
