#include "tune/oracles.h"

#include <cmath>
#include <memory>

#include "common/input_error.h"
#include "simulator/program_from_graph.h"

namespace graphcost {

const NameTable<MeasurementStatus>& measurement_status_names() {
  static const NameTable<MeasurementStatus> names = {{"ok", MeasurementStatus::Ok},
                                                     {"failed", MeasurementStatus::Failed},
                                                     {"timeout", MeasurementStatus::Timeout},
                                                     {"garbage", MeasurementStatus::Garbage},
                                                     {"stopped", MeasurementStatus::Stopped}};
  return names;
}

const NameTable<OracleKind>& oracle_kind_names() {
  static const NameTable<OracleKind> names = {
      {"replay", OracleKind::Replay}, {"simulate", OracleKind::Simulate}, {"command", OracleKind::Command}, {"cpu", OracleKind::Cpu}};
  return names;
}

Oracle replay_oracle(const TuningTarget& target) {
  if (!target.recorded()) {
    throw InputError(target.path, "runtimes", "recorded runtimes to replay (a labelled .npz or tuning records)",
                     "none (hidden: use --oracle simulate or --oracle command)");
  }
  Oracle oracle;
  oracle.name = "replay";
  if (target.space) {  // a space: its ok configs' times (every repeat), the others' failures as they were
    const std::shared_ptr<const ParameterSpace> space = target.space;
    for (const SpaceConfig& config : space->configs) oracle.truth.push_back(config.outcome == ConfigOutcome::Ok ? config.seconds : NAN);
    oracle.measure = [space](int32_t config) {
      const SpaceConfig& recorded = space->configs[static_cast<size_t>(config)];
      Measurement m;
      m.config = config;
      if (recorded.outcome == ConfigOutcome::Ok) {
        m.seconds = recorded.seconds;
        m.runs = recorded.repeats.empty() ? std::vector<double>{m.seconds} : recorded.repeats;
      } else {
        m.status = MeasurementStatus::Failed;
        m.message = "the file records this config's " + name_of(config_outcome_names(), recorded.outcome) + " failure";
      }
      return m;
    };
    return oracle;
  }
  oracle.truth = config_ranking_targets(target.graph);
  const TpuGraph* graph = &target.graph;
  oracle.measure = [graph](int32_t config) {
    Measurement m;
    m.config = config;
    m.seconds = static_cast<double>(graph->config_runtime_ns[static_cast<size_t>(config)]) * 1e-9;
    m.runs = {m.seconds};
    return m;
  };
  return oracle;
}

Oracle simulate_oracle(const TuningTarget& target, const HardwareModel& hardware) {
  if (target.space) {
    throw InputError(target.path, "oracle", "replay or command for a parameter space (the simulator prices TPU programs)", "simulate");
  }
  Oracle oracle;
  oracle.name = "simulate";
  const TpuGraph* graph = &target.graph;
  if (graph->kind == GraphKind::Layout) {
    RebuiltProgram rebuilt = rebuild_program(*graph);
    auto program = std::make_shared<LayoutProgram>(std::move(rebuilt.nodes), rebuilt.configurable, hardware);
    oracle.measure = [graph, program](int32_t config) {
      const size_t width = static_cast<size_t>(graph->configurable_count()) * kLayoutConfigFeatureCount;
      const auto first = graph->layout_config_features.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(config) * width);
      Measurement m;
      m.config = config;
      m.seconds = program->runtime(std::vector<int8_t>(first, first + static_cast<std::ptrdiff_t>(width)));
      m.runs = {m.seconds};
      return m;
    };
  } else {
    auto kernel = std::make_shared<TileKernel>(rebuild_tile_kernel(*graph));
    auto tiles = std::make_shared<std::vector<std::vector<int64_t>>>(tiles_of_configs(*graph));
    oracle.measure = [kernel, tiles, hardware](int32_t config) {
      Measurement m;
      m.config = config;
      m.seconds = tile_runtime(*kernel, (*tiles)[static_cast<size_t>(config)], hardware);
      m.runs = {m.seconds};
      return m;
    };
  }
  return oracle;
}

}  // namespace graphcost
