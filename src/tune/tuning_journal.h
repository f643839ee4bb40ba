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
#include "tune/tuner.h"

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

// What a journal's header says of the run besides the target and the options: the oracle's name
// and settings, and the files it started from (named in the header by a hash of their bytes).
struct JournalRun {
  std::string oracle;                // "replay", "simulate", "command", "python"
  nlohmann::json hardware, repeats;  // simulate's hardware, command's repeats (null otherwise)
  int candidates = 1000;             // a module target's candidates
  std::string model, warm_start;     // paths, or empty
  std::string kernel;                // a module target's instruction tuned apart (--kernel), or empty
  std::string measure;               // the measure command (not compared on resume: a path in it may move)
};

// The header of a run's journal: everything that shapes the run. A resume compares all of it but
// the budget (a run may be given more measurements) and the measure command.
nlohmann::json tuning_journal_header(const TuningTarget& target, const TuneOptions& options, const JournalRun& run);
// InputError naming the first field of `earlier` (a journal's header) that differs from `now`'s.
void check_same_run(const std::string& journal, const nlohmann::json& earlier, const nlohmann::json& now);

nlohmann::json measurement_json(const Measurement& measurement);
Measurement measurement_from_json(const nlohmann::json& line, const std::string& where);

}  // namespace graphcost
