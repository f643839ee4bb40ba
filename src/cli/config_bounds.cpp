#include "cli/config_bounds.h"

#include <algorithm>

namespace graphcost {

void add_config_bounds(CLI::App* command, ConfigBounds& bounds) {
  command
      ->add_option("--threads", bounds.threads,
                   "Cores a measurement uses: pinned to as many CPUs, each stored Func's outermost loop parallel")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  command
      ->add_option("--timeout", bounds.timeout,
                   "Seconds a config may take (compiling and timed runs) before it is killed and kept as a failure")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command
      ->add_option("--max-memory-mb", bounds.max_memory_mb, "Memory a config may take, MiB (0: half of this machine's); past it, a failure")
      ->check(CLI::NonNegativeNumber);
  command->add_flag("--paired", bounds.paired,
                    "Time each config alternately with config 0, compiled beside it: labels relative to config 0 at the same moments "
                    "(a second compile and twice the runs a config)");
  command
      ->add_option("--min-seconds", bounds.min_seconds,
                   "Seconds of timed runs a config at least, before its minimum may be called stable (longer: steadier minima)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

void apply_config_bounds(const ConfigBounds& bounds, MeasureOptions& protocol) {
  protocol.threads = bounds.threads;
  protocol.timeout_seconds = bounds.timeout;
  protocol.paired = bounds.paired;
  protocol.min_seconds = bounds.min_seconds;
  protocol.max_seconds = std::max(protocol.max_seconds, bounds.min_seconds);
  if (bounds.max_memory_mb > 0) protocol.memory_bytes = static_cast<uint64_t>(bounds.max_memory_mb) << 20;
}

}  // namespace graphcost
