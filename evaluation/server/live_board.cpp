#include "server/live_board.h"

#include <nlohmann/json.hpp>

#include "competition_commands.h"

namespace graphcost {

void LiveBoard::rebuild(const CompetitionStore& store, const Solution& solution, bool final_board) {
  auto board = std::make_shared<const Leaderboard>(stored_leaderboard(store, solution, final_board));
  nlohmann::json json = leaderboard_json(*board);
  for (nlohmann::json& item : json["submissions"]) {
    if (item.contains("message")) item["message"] = item["status"] == "invalid" ? "failed validation (the team sees why)" : "";
  }
  std::lock_guard<std::mutex> lock(mutex_);
  json["live"] = {{"title", title_}, {"deadline", deadline_}, {"version", ++version_}, {"app", app_}};
  json_ = std::make_shared<const std::string>(json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  board_ = std::move(board);
}

std::shared_ptr<const Leaderboard> LiveBoard::board() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return board_;
}

std::shared_ptr<const std::string> LiveBoard::json() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return json_;
}

}  // namespace graphcost
