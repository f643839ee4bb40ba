// The JSON API's answers (competition_server.h): a JSON body with its status, an error as
// {"error": message}, and the bearer token a request carries. User data only ever goes inside
// JSON strings; invalid UTF-8 is replaced, never echoed.
#pragma once

#include <httplib.h>

#include <string>

#include <nlohmann/json.hpp>

namespace graphcost {

void send_json(httplib::Response& response, int status, const nlohmann::json& body);
void send_error(httplib::Response& response, int status, const std::string& message);
// The token of "Authorization: Bearer <token>"; "" without one.
std::string bearer_token(const httplib::Request& request);

}  // namespace graphcost
