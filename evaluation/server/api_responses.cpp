#include "server/api_responses.h"

namespace graphcost {

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

}  // namespace graphcost
