// Oracles: what measures a config for `graphcost tune`.
//   replay    the target's recorded runtimes (a labelled .npz or tuning records): a measurement
//             reveals one; the rest stay unseen by the tuner (the oracle keeps them for scoring the
//             tuner's ranking of what it has not measured).
//   simulate  graphcost's cost simulator on the program rebuilt from the file (simulator/): a stand-in
//             for hardware, deterministic.
//   command   the user's hardware: a shell command per measurement (src/cli/command_oracle.h: it
//             runs processes, so it lives with the command line, not in the browser's library).
//   cpu       this machine's CPU: the module lowered to Halide and timed (src/lowering/cpu_oracle.h:
//             it links Halide, so it lives in graphcost-cpu, which `graphcost tune --oracle cpu` runs).
//   Python    a Python function (the package's tune()).
// Any std::function that measures a config is an oracle.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/named_values.h"
#include "simulator/cost_simulator.h"
#include "tune/tuning_target.h"

namespace graphcost {

// Stopped: the user stopped the run while this config was being measured (Ctrl-C, a stop
// request): not a measurement; never journaled, measured again on resume.
enum class MeasurementStatus { Ok, Failed, Timeout, Garbage, Stopped };
const NameTable<MeasurementStatus>& measurement_status_names();  // "ok", "failed", "timeout", "garbage", "stopped"

struct Measurement {
  int32_t config = 0;
  MeasurementStatus status = MeasurementStatus::Ok;
  double seconds = 0;        // the runtime (the median of the runs), when ok
  std::vector<double> runs;  // each run's seconds (command oracle with repeats)
  std::string message;       // why it failed (exit status, timeout, the garbage line)
  int round = 0;
  float predicted = 0;  // the model's cost for it before it was measured (NaN: none)
  // A combination learner's members' costs for it before it was measured, by name (weighed: "gnn"
  // and "ridge"): a resumed run reads from them how each member ranked past rounds.
  std::map<std::string, float> predicted_by;
  bool ok() const { return status == MeasurementStatus::Ok; }
};

struct Oracle {
  std::string name;
  std::function<Measurement(int32_t config)> measure;
  // Replay only: every candidate's recorded ranking target (seconds; tile: runtime over the
  // normalizer), for scoring the tuner on configs it has not measured. Empty otherwise.
  std::vector<double> truth;
  // Optional: after the run, a separate re-measurement of the best config found against config 0,
  // as a line for the report (the cpu oracle's; empty: none).
  std::function<std::string(int32_t best)> confirm;
};

enum class OracleKind { Replay, Simulate, Command, Cpu };
const NameTable<OracleKind>& oracle_kind_names();  // "replay", "simulate", "command", "cpu"

Oracle replay_oracle(const TuningTarget& target);
Oracle simulate_oracle(const TuningTarget& target, const HardwareModel& hardware);

}  // namespace graphcost
