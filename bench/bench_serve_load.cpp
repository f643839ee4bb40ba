// Load on a running `graphcost-eval serve` (bench/serve_load.sh sets it up): N clients for T
// seconds, each with its own team token, each in a loop of
//   upload the submission (POST /api/submissions) -> poll its status every 20 ms until scored ->
//   fetch the live board (GET /api/leaderboard).
// Prints the machine, the counts, and medians / 95th percentiles of the upload answer (202), the
// time from upload to scored, and the board fetch; JSON with --json.
//   bench_serve_load --url http://127.0.0.1:PORT --tokens FILE --submission FILE [--clients 50] [--seconds 60]
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "machine.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

struct Samples {
  std::mutex mutex;
  std::vector<double> upload_ms, scored_ms, board_ms;
  int refused = 0, failed = 0, errors = 0;
  std::vector<std::string> error_kinds;
  void error(const std::string& what) {  // callers hold the mutex
    ++errors;
    if (error_kinds.size() < 5) error_kinds.push_back(what);
  }
};

std::string describe(const httplib::Result& result, const char* request) {
  return std::string(request) + ": " + (result ? "HTTP " + std::to_string(result->status) : httplib::to_string(result.error()));
}

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(q * static_cast<double>(values.size() - 1) + 0.5)];
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Load on graphcost-eval serve: clients that upload, wait for the score and read the board"};
  std::string url, tokens_path, submission_path, json_path;
  int clients = 50, seconds = 60;
  app.add_option("--url", url, "server, e.g. http://127.0.0.1:8000")->required();
  app.add_option("--tokens", tokens_path, "one team token per line (one per client)")->required();
  app.add_option("--submission", submission_path, "the CSV every client uploads")->required();
  app.add_option("--clients", clients)->check(CLI::Range(1, 1000));
  app.add_option("--seconds", seconds)->check(CLI::Range(1, 3600));
  app.add_option("--json", json_path, "also write the figures as JSON");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::string> tokens;
  {
    std::ifstream in(tokens_path);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) tokens.push_back(line);
    }
  }
  if (static_cast<int>(tokens.size()) < clients) {
    std::fprintf(stderr, "error: %s holds %zu tokens, fewer than --clients %d\n", tokens_path.c_str(), tokens.size(), clients);
    return 2;
  }
  const std::string submission = read_file(submission_path);
  const graphcost::bench::Machine machine = graphcost::bench::measure_machine();
  std::printf("%s\n", graphcost::bench::machine_line(machine).c_str());

  Samples samples;
  const Clock::time_point end = Clock::now() + std::chrono::seconds(seconds);
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      httplib::Client client(url);
      client.set_read_timeout(30, 0);
      const httplib::Headers auth = {{"Authorization", "Bearer " + tokens[static_cast<size_t>(c)]}};
      while (Clock::now() < end) {
        const Clock::time_point start = Clock::now();
        httplib::Result upload = client.Post("/api/submissions", auth, submission, "text/csv");
        const double upload_ms = ms_since(start);
        if (!upload || upload->status != 202) {
          std::lock_guard<std::mutex> lock(samples.mutex);
          if (upload && upload->status == 429) ++samples.refused;
          else samples.error(describe(upload, "upload"));
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
          continue;
        }
        const long long id = nlohmann::json::parse(upload->body)["id"].get<long long>();
        std::string status = "queued";
        while (status == "queued" || status == "scoring") {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          httplib::Result poll = client.Get(("/api/submissions/" + std::to_string(id)).c_str(), auth);
          if (!poll || poll->status != 200) {
            std::lock_guard<std::mutex> lock(samples.mutex);
            samples.error(describe(poll, "poll"));
            status = "error";
            break;
          }
          status = nlohmann::json::parse(poll->body)["status"].get<std::string>();
        }
        const double scored_ms = ms_since(start);
        const Clock::time_point board_start = Clock::now();
        httplib::Result board = client.Get("/api/leaderboard");
        const double board_ms = ms_since(board_start);
        std::lock_guard<std::mutex> lock(samples.mutex);
        samples.upload_ms.push_back(upload_ms);
        if (status == "scored") samples.scored_ms.push_back(scored_ms);
        else if (status == "failed") ++samples.failed;
        if (board && board->status == 200) samples.board_ms.push_back(board_ms);
        else samples.error(describe(board, "board"));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  auto line = [](const char* what, const std::vector<double>& values) {
    std::printf("%-22s %7zu   median %8.1f ms   p95 %8.1f ms   max %8.1f ms\n", what, values.size(), percentile(values, 0.5),
                percentile(values, 0.95), values.empty() ? 0.0 : *std::max_element(values.begin(), values.end()));
  };
  std::printf("%d clients, %d s, %zu-byte submission: %.1f submissions scored per second\n", clients, seconds, submission.size(),
              static_cast<double>(samples.scored_ms.size()) / seconds);
  line("upload answered (202)", samples.upload_ms);
  line("upload -> scored", samples.scored_ms);
  line("board fetched", samples.board_ms);
  std::printf("refused (429) %d, failed %d, errors %d\n", samples.refused, samples.failed, samples.errors);
  for (const std::string& kind : samples.error_kinds) std::printf("  error: %s\n", kind.c_str());
  if (!json_path.empty()) {
    nlohmann::json json = {{"machine", graphcost::bench::machine_json(machine)},
                           {"clients", clients},
                           {"seconds", seconds},
                           {"scored", samples.scored_ms.size()},
                           {"upload_median_ms", percentile(samples.upload_ms, 0.5)},
                           {"scored_median_ms", percentile(samples.scored_ms, 0.5)},
                           {"scored_p95_ms", percentile(samples.scored_ms, 0.95)},
                           {"board_median_ms", percentile(samples.board_ms, 0.5)},
                           {"refused", samples.refused},
                           {"failed", samples.failed},
                           {"errors", samples.errors}};
    std::ofstream(json_path) << json.dump(2) << "\n";
  }
  return samples.errors == 0 ? 0 : 1;
}
