// The real-hardware oracle of `graphcost tune --oracle command --measure 'CMD'` (tune/oracles.h):
// for each config, its JSON description (tune/tuning_target.h: describe_config) is written to
// WORK/config-N.json and, for a target read from HLO text, the module with the config's layouts to
// WORK/config-N.hlo (hlo/hlo_layout_writer.h); then `/bin/sh -c 'CMD "$@"' sh JSON [HLO]` runs in a
// process group of its own, its stderr kept in WORK/config-N.log. The last non-empty line of its
// stdout is the runtime in seconds. A non-zero exit or a signal (failed), no answer within the
// timeout (timeout: the group is killed) or a last line that is not a positive finite number
// (garbage) is a failed measurement with its reason; with repeats R it runs R times and keeps the
// median, failing when any run fails. POSIX processes: native builds only (not the browser).
#pragma once

#include <functional>
#include <string>

#include "tune/oracles.h"

namespace graphcost {

struct CommandOracleOptions {
  std::string command;
  std::string work_dir;  // created if missing; the files stay (the user may look at them)
  double timeout_seconds = 600;
  int repeats = 1;
  std::function<bool()> stop;  // polled while a run waits: true kills it (the measurement comes back with status Stopped)
};

Oracle command_oracle(const TuningTarget& target, const CommandOracleOptions& options);

}  // namespace graphcost
