// CompetitionServer's public routes (competition_server_internal.h): the site's pages, the live
// board, a scored submission's details, the competition's rules and the public ID list.
#include <string>

#include "competition_commands.h"
#include "server/api_responses.h"
#include "server/competition_server_internal.h"
#include "server/embedded_site.h"

namespace graphcost {

// The site's pages (site/, compiled into the binary).
void CompetitionServer::route_static_pages() {
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
void CompetitionServer::route_boards() {
  auto send_board = [this](const httplib::Request&, httplib::Response& response) {
    const std::shared_ptr<const std::string> json = board_.json();
    response.set_header("Cache-Control", "no-store");
    response.set_content(*json, "application/json");
  };
  server_.Get("/data/leaderboard.json", send_board);
  server_.Get("/api/leaderboard", send_board);

  server_.Get(R"(/data/details/(\d{1,9})\.json)", [this](const httplib::Request& request, httplib::Response& response) {
    const int number = std::stoi(request.matches[1]);
    const std::shared_ptr<const Leaderboard> board = board_.board();
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

}  // namespace graphcost
