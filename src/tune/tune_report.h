// A tuning run as JSON, one serializer for the CLI (`tune --json`), the Python package and the
// app's Tune panel: each round's report, each measurement (the journal's line), and the run's
// summary (the best config, the learner, every round).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "tune/tuner.h"

namespace graphcost {

// NaN figures become null.
nlohmann::json round_report_json(const RoundReport& report);
// {"target", "candidates", "oracle", "options", "best": {"config", "seconds"} | null, "learner",
//  "rounds": [...], "interrupted"}
nlohmann::json tune_summary_json(const Tuner& tuner, const std::string& oracle, const std::vector<RoundReport>& rounds, bool interrupted);

}  // namespace graphcost
