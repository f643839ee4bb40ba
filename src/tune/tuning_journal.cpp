#include "tune/tuning_journal.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <fstream>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/io_error.h"

namespace graphcost {

nlohmann::json measurement_json(const Measurement& m) {
  nlohmann::json line = {
      {"config", m.config}, {"status", name_of(measurement_status_names(), m.status)}, {"round", m.round}, {"runs", m.runs}};
  if (m.ok()) line["seconds"] = m.seconds;
  line["predicted"] = std::isfinite(m.predicted) ? nlohmann::json(m.predicted) : nlohmann::json(nullptr);
  if (!m.predicted_by.empty()) line["predicted_by"] = m.predicted_by;
  if (!m.message.empty()) line["message"] = m.message;
  return line;
}

Measurement measurement_from_json(const nlohmann::json& line, const std::string& where) {
  Measurement m;
  try {
    m.config = line.at("config").get<int32_t>();
    m.status = value_named(measurement_status_names(), line.at("status").get<std::string>(), "status");
    m.round = line.at("round").get<int>();
    m.runs = line.at("runs").get<std::vector<double>>();
    if (m.ok()) m.seconds = line.at("seconds").get<double>();
    m.predicted = line.at("predicted").is_null() ? NAN : line.at("predicted").get<float>();
    if (line.contains("message")) m.message = line.at("message").get<std::string>();
    if (line.contains("predicted_by")) m.predicted_by = line.at("predicted_by").get<std::map<std::string, float>>();
    // Journals written before "predicted_by" kept weighed's two members in fields of their own.
    if (line.contains("predicted_gnn")) m.predicted_by["gnn"] = line.at("predicted_gnn").get<float>();
    if (line.contains("predicted_ridge")) m.predicted_by["ridge"] = line.at("predicted_ridge").get<float>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where, "measurement", "config, status, round, runs, seconds (ok) and predicted", e.what());
  }
  if (m.status == MeasurementStatus::Stopped)
    throw InputError(where, "status", "ok, failed, timeout or garbage (a stopped one is never journaled)", "stopped");
  if (m.config < 0 || (m.ok() && !(m.seconds > 0 && std::isfinite(m.seconds)))) {
    throw InputError(where, "measurement", "a config index of 0 or more and, when ok, a positive runtime", line.dump());
  }
  return m;
}

TuningJournal read_tuning_journal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "journal", "a tuning journal to resume (written by tune --out)", "no such file");
  TuningJournal journal;
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  const bool ends_with_newline = [&] {
    in.clear();
    in.seekg(-1, std::ios::end);
    char last = 0;
    return in.get(last) && last == '\n';
  }();
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string where = path + ":" + std::to_string(i + 1);
    const nlohmann::json value = nlohmann::json::parse(lines[i], nullptr, false);
    if (value.is_discarded() || !value.is_object()) {
      if (i + 1 == lines.size() && !ends_with_newline && i > 0) {  // cut short by a kill while it was written
        journal.dropped_partial_line = true;
        break;
      }
      throw InputError(where, "journal line", "a JSON object", excerpt(lines[i]));
    }
    if (i == 0) {
      if (!value.contains("graphcost_tune")) throw InputError(where, "header", "{\"graphcost_tune\": 1, ...}", excerpt(lines[i]));
      journal.header = value;
    } else {
      journal.measurements.push_back(measurement_from_json(value, where));
    }
  }
  if (journal.header.is_null()) throw InputError(path, "journal", "a header line", "an empty file");
  return journal;
}

TuningJournalWriter::TuningJournalWriter(const std::string& path, const nlohmann::json& header, bool append) : path_(path) {
  check_output_path(path, {});
  if (!append && ::access(path.c_str(), F_OK) == 0) {
    throw InputError(path, "journal", "no journal yet (or --resume to continue this one)", "a journal from an earlier run");
  }
  file_ = std::fopen(path.c_str(), append ? "ab" : "wb");
  if (file_ == nullptr) throw IoError(path, "open", errno);
  if (!append) write_line(header);
}

TuningJournalWriter::~TuningJournalWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void TuningJournalWriter::write_line(const nlohmann::json& line) {
  const std::string text = line.dump() + "\n";
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0) {
    throw IoError(path_, "write", errno);
  }
}

void TuningJournalWriter::append(const Measurement& measurement) { write_line(measurement_json(measurement)); }

namespace {

// A file's bytes hashed (FNV-1a): a journal names the model its run started from.
std::string file_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  uint64_t hash = 14695981039346656037ull;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) hash = (hash ^ static_cast<unsigned char>(buffer[i])) * 1099511628211ull;
  }
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace

nlohmann::json tuning_journal_header(const TuningTarget& target, const TuneOptions& options, const JournalRun& run) {
  nlohmann::json options_json = options.to_json();
  options_json.erase("budget");
  return {{"graphcost_tune", 2},
          {"target", target.path},
          {"fingerprint", target.fingerprint},
          {"oracle", run.oracle},
          {"hardware", run.hardware},
          {"repeats", run.repeats},
          {"candidates", run.candidates},
          {"kernel", run.kernel.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.kernel)},
          {"model", run.model.empty() ? nlohmann::json(nullptr) : nlohmann::json(file_hash(run.model))},
          {"warm_start", run.warm_start.empty() ? nlohmann::json(nullptr) : nlohmann::json(file_hash(run.warm_start))},
          {"options", options_json},
          {"budget", options.budget},
          {"measure", run.measure}};
}

void check_same_run(const std::string& journal, const nlohmann::json& earlier, const nlohmann::json& now) {
  if (!earlier.contains("options")) {
    std::fprintf(stderr,
                 "warning: %s was written by an older graphcost: only its target and oracle are checked against this run's options\n",
                 journal.c_str());
    for (const char* key : {"fingerprint", "oracle"}) {
      if (earlier.value(key, nlohmann::json()) != now[key]) {
        throw InputError(journal, std::string("header ") + key, now[key].dump() + " (this run's)",
                         earlier.value(key, nlohmann::json()).dump());
      }
    }
    return;
  }
  nlohmann::json a = earlier, b = now;
  for (const char* free : {"budget", "measure", "graphcost_tune", "target"}) a.erase(free), b.erase(free);
  // A run measured by the user's code continues in either front end: Python's measure() or Tuner
  // ("python") and the CLI's --oracle command ("command", whose repeats are its own business).
  for (nlohmann::json* header : {&a, &b}) {
    if (header->value("oracle", "") == "python" || header->value("oracle", "") == "command") {
      (*header)["oracle"] = "measured by the user";
      header->erase("repeats");
    }
  }
  const nlohmann::json was = a.flatten(), is = b.flatten();
  for (const auto& [key, value] : is.items()) {
    const nlohmann::json before = was.value(key, nlohmann::json());
    if (before != value) {
      throw InputError(journal, "header " + key.substr(1), value.dump() + " (this run's: resume with the options the run started with)",
                       before.dump());
    }
  }
  for (const auto& [key, value] : was.items()) {
    if (!is.contains(key)) throw InputError(journal, "header " + key.substr(1), "absent (this run's)", value.dump());
  }
}

}  // namespace graphcost
