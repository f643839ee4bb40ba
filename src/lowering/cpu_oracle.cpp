#include "lowering/cpu_oracle.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>

#include "common/input_error.h"
#include "lowering/autoschedule.h"

namespace graphcost {

namespace {

// Halide's autoscheduler `name` on the module's own layouts (autoschedule.h), measured by the
// protocol into `result`; its schedule's source is kept in `source`.
void measure_autoscheduled(const TuningTarget& target, const std::string& name, const MeasureOptions& protocol, ConfigMeasurement& result,
                           std::string& source, std::vector<uint8_t>& reference) {
  measure_lowered(
      [&] {
        LoweredComputation lowered = lower_computation(*target.module, target.module->entry, nullptr, Scheduling::Unscheduled);
        source = autoschedule(lowered, name, protocol.threads);
        return lowered;
      },
      protocol, result, reference);
}

// "Adams2019 12.345 ms (1.20x config 90's; 2.1 s to schedule and compile)": one anchor's line.
std::string anchor_line(const std::string& name, const ConfigMeasurement& anchor, int rounds, const ConfigMeasurement& found,
                        int32_t best) {
  if (!anchor.failure.empty()) {
    std::string why = anchor.failure;
    while (!why.empty() && std::isspace(static_cast<unsigned char>(why.back()))) why.pop_back();  // Halide's errors end in newlines
    return "  Halide's " + name + ": not measured: " + why;
  }
  char line[300];
  std::snprintf(line, sizeof line,
                "  Halide's %s (its own model, no measurement): %.3f ms, %.2fx config %d's (%.1f s to schedule and compile)", name.c_str(),
                anchor.best() * 1e3, anchor.best() / found.best(), best, anchor.compile_seconds / rounds);
  return line;
}

// The confirmation (cpu_oracle.h): `rounds` alternate re-measurements of config 0 and `best`, and
// of the autoschedulers' schedules when asked.
std::string confirm_best(const TuningTarget& target, const MeasureOptions& protocol, int32_t best, bool against_autoschedulers,
                         std::vector<uint8_t>& reference) {
  const ModuleLayouts program{*target.module, target.computation_first, target.graph};
  constexpr int kRounds = 3;
  ConfigMeasurement zero, found;
  const std::vector<std::string> anchors = against_autoschedulers ? autoscheduler_names() : std::vector<std::string>{};
  std::vector<ConfigMeasurement> anchored(anchors.size());
  std::vector<std::string> sources(anchors.size());
  for (int round = 0; round < kRounds; ++round) {
    measure_layout_config(program, 0, protocol, zero, reference);
    if (best != 0) measure_layout_config(program, best, protocol, found, reference);
    for (size_t a = 0; a < anchors.size(); ++a) {
      if (anchored[a].failure.empty()) measure_autoscheduled(target, anchors[a], protocol, anchored[a], sources[a], reference);
    }
  }
  if (!zero.failure.empty()) return "confirmation: config 0 failed: " + zero.failure;
  if (!found.failure.empty()) return "confirmation: config " + std::to_string(best) + " failed on re-measurement: " + found.failure;
  char line[300];
  if (best == 0) {
    std::snprintf(line, sizeof line, "confirmation: the best found is config 0 itself (%.3f ms, re-measured %d times)", zero.best() * 1e3,
                  kRounds);
  } else {
    std::snprintf(line, sizeof line,
                  "confirmation (re-measured apart, %d times each, alternately): config %d %.3f ms, config 0 %.3f ms: %.2fx %s than the "
                  "module's own layouts",
                  kRounds, best, found.best() * 1e3, zero.best() * 1e3,
                  found.best() < zero.best() ? zero.best() / found.best() : found.best() / zero.best(),
                  found.best() < zero.best() ? "faster" : "slower");
  }
  std::string text = line;
  if (against_autoschedulers && anchors.empty()) text += "\n  no autoscheduler: this Halide package ships none";
  for (size_t a = 0; a < anchors.size(); ++a) text += "\n" + anchor_line(anchors[a], anchored[a], kRounds, best == 0 ? zero : found, best);
  return text;
}

}  // namespace

Oracle cpu_oracle(const TuningTarget& target, const MeasureOptions& protocol, const std::function<bool()>& stop,
                  bool against_autoschedulers) {
  if (!target.module) {
    throw InputError(target.path, "--oracle cpu", "a module (HLO text or proto) to lower and run on this CPU",
                     target.space ? "a parameter space (no program to run)" : "a TpuGraphs file (no program to run)");
  }
  if (target.graph.kind != GraphKind::Layout || target.graph.configurable_count() == 0) {
    throw InputError(target.path, "configurable nodes", "a convolution, dot or reshape of rank 2 or more (a layout to choose)", "none");
  }
  pin_to_cpus(protocol.threads);
  auto reference = std::make_shared<std::vector<uint8_t>>();               // the first measured config's outputs
  auto measured = std::make_shared<std::map<std::string, Measurement>>();  // by program_key: each program timed once
  Oracle oracle;
  oracle.name = "cpu";
  oracle.measure = [&target, protocol, stop, reference, measured](int32_t config) {
    Measurement measurement;
    measurement.config = config;
    if (stop && stop()) {
      measurement.status = MeasurementStatus::Stopped;
      return measurement;
    }
    const ModuleLayouts program{*target.module, target.computation_first, target.graph};
    const std::string key = program_key(layout_lowering(program, protocol), config, protocol);
    if (const auto same = measured->find(key); !key.empty() && same != measured->end()) {
      measurement.seconds = same->second.seconds;
      measurement.message =
          "the same program as config " + std::to_string(same->second.config) + " (its lowered statements equal): not timed again";
      return measurement;
    }
    ConfigMeasurement result;
    measure_layout_config(program, config, protocol, result, *reference);
    measurement.runs = result.seconds;
    if (!result.failure.empty()) {
      measurement.status = MeasurementStatus::Failed;
      measurement.message = result.failure;
    } else {
      measurement.seconds = result.best();
      if (!key.empty()) measured->emplace(key, measurement);
    }
    return measurement;
  };
  oracle.confirm = [&target, protocol, against_autoschedulers, reference](int32_t best) {
    return confirm_best(target, protocol, best, against_autoschedulers, *reference);
  };
  return oracle;
}

}  // namespace graphcost
