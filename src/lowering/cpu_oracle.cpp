#include "lowering/cpu_oracle.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "common/input_error.h"

namespace graphcost {

namespace {

// The confirmation (cpu_oracle.h): `rounds` alternate re-measurements of config 0 and `best`.
std::string confirm_best(const TuningTarget& target, const MeasureOptions& protocol, int32_t best, std::vector<uint8_t>& reference) {
  const ModuleLayouts program{*target.module, target.computation_first, target.graph};
  constexpr int kRounds = 3;
  ConfigMeasurement zero, found;
  for (int round = 0; round < kRounds; ++round) {
    measure_layout_config(program, 0, protocol, zero, reference);
    if (best != 0) measure_layout_config(program, best, protocol, found, reference);
  }
  if (!zero.failure.empty()) return "confirmation: config 0 failed: " + zero.failure;
  if (best == 0) {
    char line[200];
    std::snprintf(line, sizeof line, "confirmation: the best found is config 0 itself (%.3f ms, re-measured %d times)", zero.best() * 1e3,
                  kRounds);
    return line;
  }
  if (!found.failure.empty()) return "confirmation: config " + std::to_string(best) + " failed on re-measurement: " + found.failure;
  char line[300];
  std::snprintf(line, sizeof line,
                "confirmation (re-measured apart, %d times each, alternately): config %d %.3f ms, config 0 %.3f ms: %.2fx %s than the "
                "module's own layouts",
                kRounds, best, found.best() * 1e3, zero.best() * 1e3,
                found.best() < zero.best() ? zero.best() / found.best() : found.best() / zero.best(),
                found.best() < zero.best() ? "faster" : "slower");
  return line;
}

}  // namespace

Oracle cpu_oracle(const TuningTarget& target, const MeasureOptions& protocol, const std::function<bool()>& stop) {
  if (!target.module) {
    throw InputError(target.path, "--oracle cpu", "a module (HLO text or proto) to lower and run on this CPU",
                     target.space ? "a parameter space (no program to run)" : "a TpuGraphs file (no program to run)");
  }
  if (target.graph.kind != GraphKind::Layout || target.graph.configurable_count() == 0) {
    throw InputError(target.path, "configurable nodes", "a convolution, dot or reshape of rank 2 or more (a layout to choose)", "none");
  }
  pin_to_one_cpu();
  auto reference = std::make_shared<std::vector<uint8_t>>();  // the first measured config's outputs
  Oracle oracle;
  oracle.name = "cpu";
  oracle.measure = [&target, protocol, stop, reference](int32_t config) {
    Measurement measurement;
    measurement.config = config;
    if (stop && stop()) {
      measurement.status = MeasurementStatus::Stopped;
      return measurement;
    }
    ConfigMeasurement result;
    measure_layout_config(ModuleLayouts{*target.module, target.computation_first, target.graph}, config, protocol, result, *reference);
    measurement.runs = result.seconds;
    if (!result.failure.empty()) {
      measurement.status = MeasurementStatus::Failed;
      measurement.message = result.failure;
    } else {
      measurement.seconds = result.best();
    }
    return measurement;
  };
  oracle.confirm = [&target, protocol, reference](int32_t best) { return confirm_best(target, protocol, best, *reference); };
  return oracle;
}

}  // namespace graphcost
