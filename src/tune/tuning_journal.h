// The journal of a tuning run: every measurement on disk before the next one starts, so that Ctrl-C
// or a kill loses none and `tune --resume` measures nothing twice.
//
// Format: JSON lines. The first is the header, {"graphcost_tune": 1, "target": PATH,
// "fingerprint": ..., "oracle": ..., "options": {every option that shapes the run: TuneOptions::
// to_json}, ...}; then one line per measurement, {"config": C, "status":
// "ok"|"failed"|"timeout"|"garbage", "seconds": S, "runs": [...], "round": R, "predicted": P,
// "predicted_by": {"gnn": G, "ridge": R}, "message": "..."} ("predicted_by" only with a learner that
// combines others: weighed, blend). Each line is flushed and fsynced as it is written.
// A last line cut short by a kill is dropped on reading (with a warning); any other bad line is an
// InputError naming the file and the line.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tune/oracles.h"

namespace graphcost {

struct TuningJournal {
  nlohmann::json header;
  std::vector<Measurement> measurements;
  bool dropped_partial_line = false;
};

// Reads a journal (InputError on a bad file).
TuningJournal read_tuning_journal(const std::string& path);

class TuningJournalWriter {
 public:
  // A new journal with `header` (InputError when `path` exists: resume it, or remove it), or, with
  // `append`, an existing one continued.
  TuningJournalWriter(const std::string& path, const nlohmann::json& header, bool append);
  ~TuningJournalWriter();
  TuningJournalWriter(const TuningJournalWriter&) = delete;
  TuningJournalWriter& operator=(const TuningJournalWriter&) = delete;
  void append(const Measurement& measurement);  // on disk (fsync) when it returns; IoError otherwise
  const std::string& path() const { return path_; }

 private:
  void write_line(const nlohmann::json& line);
  std::string path_;
  std::FILE* file_ = nullptr;
};

nlohmann::json measurement_json(const Measurement& measurement);
Measurement measurement_from_json(const nlohmann::json& line, const std::string& where);

}  // namespace graphcost
