#include "lowering/measure_configs.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>

#include <sched.h>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "data/node_features.h"
#include "hlo/fusion_kernels.h"
#include "lowering/child_message.h"
#include "lowering/hlo_to_halide.h"
#include "lowering/isolated_call.h"
#include "lowering/parallel_schedule.h"
#include "lowering/run_lowered.h"
#include "lowering/tile_schedule.h"

namespace graphcost {

std::string cpu_description() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::map<std::string, std::string> fields;
  std::string line;
  while (std::getline(cpuinfo, line) && !line.empty()) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    fields.emplace(key, colon + 2 <= line.size() ? line.substr(colon + 2) : "");
  }
  std::istringstream flags(fields["flags"]);
  std::string flag;
  bool avx512 = false;
  while (flags >> flag) avx512 = avx512 || flag == "avx512f";
  return (fields["model name"].empty() ? "an unnamed CPU" : fields["model name"]) + " family " + fields["cpu family"] + " model " +
         fields["model"] + (avx512 ? " (AVX-512)" : "");
}

namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

double ConfigMeasurement::best() const { return median(pass_minimum); }

double ConfigMeasurement::paired_best(double config0) const {
  if (batch_reference.size() != pass_minimum.size() || pass_minimum.empty()) return best();
  std::vector<double> relative;
  for (size_t k = 0; k < pass_minimum.size(); ++k) relative.push_back(pass_minimum[k] / batch_reference[k] * config0);
  return median(relative);
}

int pin_to_cpus(int count) {
  cpu_set_t allowed, chosen;
  CPU_ZERO(&allowed);
  CPU_ZERO(&chosen);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return -1;
  int taken = 0;
  for (int cpu = CPU_SETSIZE - 1; cpu >= 0 && taken < count; --cpu) {
    if (CPU_ISSET(cpu, &allowed)) CPU_SET(cpu, &chosen), ++taken;
  }
  return taken > 0 && sched_setaffinity(0, sizeof(chosen), &chosen) == 0 ? taken : -1;
}

std::vector<double> drift_corrected_pass(const std::vector<ConfigMeasurement>& results, size_t pass) {
  std::vector<double> runtimes(results.size(), NAN);
  if (results.empty() || !results[0].failure.empty()) return runtimes;
  const double zero = results[0].best();
  for (size_t c = 1; c < results.size(); ++c) {
    const ConfigMeasurement& result = results[c];
    if (result.failure.empty() && pass < result.pass_minimum.size() && pass < result.batch_reference.size()) {
      runtimes[c] = result.pass_minimum[pass] / result.batch_reference[pass] * zero;
    }
  }
  return runtimes;
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Config `config`'s rows as a schedule: configurable node j's three minor_to_major blocks.
LayoutSchedule schedule_of(const ModuleLayouts& program, int64_t config) {
  const TpuGraph& graph = program.graph;
  const std::vector<int32_t>& first = program.computation_first;
  LayoutSchedule schedule;
  const size_t nc = graph.configurable_nodes.size();
  for (size_t j = 0; j < nc; ++j) {
    const int32_t node = graph.configurable_nodes[j];
    const size_t computation = static_cast<size_t>(std::upper_bound(first.begin(), first.end(), node) - first.begin()) - 1;
    LayoutChoice choice;
    const int8_t* row = graph.layout_config_features.data() + (static_cast<size_t>(config) * nc + j) * kLayoutConfigFeatureCount;
    for (size_t block = 0; block < 3; ++block) {
      for (size_t k = 0; k < 6 && row[block * 6 + k] >= 0; ++k) choice[block].push_back(row[block * 6 + k]);
    }
    schedule[{static_cast<int32_t>(computation), node - first[computation]}] = choice;
  }
  return schedule;
}

// measure_lowered in this process.
void measure_lowered_here(const std::function<LoweredComputation()>& lower, const MeasureOptions& options, ConfigMeasurement& result,
                          std::vector<uint8_t>& reference, const std::function<LoweredComputation()>& lower_reference) {
  try {
    const Clock::time_point compile_start = Clock::now();
    setenv("HL_NUM_THREADS", std::to_string(options.threads).c_str(), 1);  // the JIT runtime's pool, made on its first run
    LoweredComputation lowered = lower();
    CompiledComputation compiled(lowered, options.seed);
    std::unique_ptr<CompiledComputation> paired;  // config 0, timed between this config's runs
    if (options.paired && lower_reference && !reference.empty()) {
      LoweredComputation zero = lower_reference();
      paired = std::make_unique<CompiledComputation>(zero, options.seed);
      paired->run();
    }
    result.compile_seconds += seconds_since(compile_start);
    compiled.run();  // warm-up: caches, pages, the first touch of every buffer
    if (reference.empty()) {
      reference = compiled.output_bytes();
    } else if (std::string why; !compiled.outputs_match(reference, &why)) {
      result.failure = "its outputs differ from config 0's (" + why + "): a lowering defect, please report it";
      return;
    }
    double minimum = 1e300, timed = 0, paired_minimum = 1e300;
    int since_improvement = 0;
    for (int repeat = 0;; ++repeat) {
      if (paired) {
        const Clock::time_point start = Clock::now();
        paired->run();
        paired_minimum = std::min(paired_minimum, seconds_since(start));
      }
      const Clock::time_point start = Clock::now();
      compiled.run();
      const double seconds = seconds_since(start);
      result.seconds.push_back(seconds);
      timed += seconds;
      since_improvement = seconds < minimum * 0.99 ? 0 : since_improvement + 1;
      minimum = std::min(minimum, seconds);
      const int runs = repeat + 1;
      if (runs < options.min_repeats) continue;
      if (timed > options.max_seconds || (timed >= options.min_seconds && (since_improvement >= 3 || runs >= options.max_repeats))) break;
    }
    result.pass_minimum.push_back(minimum);
    if (paired) result.batch_reference.push_back(paired_minimum);
  } catch (const InputError&) {
    throw;  // the module itself does not lower: no config can be measured
  } catch (const std::exception& error) {
    result.failure = error.what();
  }
}

}  // namespace

void measure_lowered(const std::function<LoweredComputation()>& lower, const MeasureOptions& options, ConfigMeasurement& result,
                     std::vector<uint8_t>& reference, const std::function<LoweredComputation()>& lower_reference) {
  if (!options.isolate) return measure_lowered_here(lower, options, result, reference, lower_reference);
  const bool sets_reference = reference.empty();
  const auto in_child = [&]() -> std::string {
    Message out;
    ConfigMeasurement measured;
    try {
      measure_lowered_here(lower, options, measured, reference, lower_reference);
    } catch (const InputError& error) {
      return input_error_message(error);
    }
    out.put_kind('M');
    put_measurement(out, measured);
    out.put_values(sets_reference && measured.failure.empty() ? reference : std::vector<uint8_t>{});
    return out.bytes();
  };
  const IsolatedResult child = call_isolated(in_child, IsolationLimits{options.timeout_seconds, options.memory_bytes});
  if (!child.completed) {
    result.failure = child.failure;
    return;
  }
  Message in(child.bytes);
  take_kind(in);
  take_measurement(in, result);
  std::vector<uint8_t> outputs;
  in.values(outputs);
  if (sets_reference && !outputs.empty()) reference = std::move(outputs);
}

LowerConfig layout_lowering(const ModuleLayouts& program, const MeasureOptions& options) {
  const int threads = options.threads;
  return [&program, threads](int64_t config) {
    const LayoutSchedule schedule = schedule_of(program, config);
    LoweredComputation lowered = lower_computation(program.module, program.module.entry, &schedule);
    if (threads > 1) parallelize_stored(lowered);
    return lowered;
  };
}

std::string program_key(const LowerConfig& lower, int64_t config, const MeasureOptions& options) {
  const auto in_child = [&]() -> std::string {
    LoweredComputation lowered = lower(config);
    const std::string statement = lowered_statement(lowered);
    return std::to_string(statement.size()) + ":" + std::to_string(std::hash<std::string>()(statement));
  };
  const IsolatedResult child = call_isolated(in_child, IsolationLimits{options.timeout_seconds, options.memory_bytes});
  return child.completed ? child.bytes : std::string();
}

namespace {

// Config `config` measured alone, in its own process (measure_lowered), paired with config 0 when asked.
void measure_alone(int64_t config, const LowerConfig& lower, const MeasureOptions& options, ConfigMeasurement& result,
                   std::vector<uint8_t>& reference) {
  const bool paired = options.paired && config != 0;
  measure_lowered([&] { return lower(config); }, options, result, reference,
                  paired ? std::function<LoweredComputation()>([&] { return lower(0); }) : std::function<LoweredComputation()>());
}

}  // namespace

void measure_layout_config(const ModuleLayouts& program, int64_t config, const MeasureOptions& options, ConfigMeasurement& result,
                           std::vector<uint8_t>& reference) {
  measure_alone(config, layout_lowering(program, options), options, result, reference);
}

std::vector<int64_t> config_tile(const TpuGraph& kernel, int64_t config, size_t rank) {
  std::vector<int64_t> tile(rank);
  for (size_t d = 0; d < rank; ++d) tile[d] = static_cast<int64_t>(kernel.tile_config_features[static_cast<size_t>(config) * 24 + d]);
  return tile;
}

namespace {

// For each config, the first config whose program (program_key) is its own (itself when none, or
// when its key could not be made: it is then measured, and fails there, as any other). Returns
// false when `progress` stopped it.
bool find_same_programs(int64_t configs, const LowerConfig& lower, const MeasureOptions& options,
                        const std::function<bool(int64_t, int64_t)>& progress, int64_t total, std::vector<int64_t>& same_as) {
  std::map<std::string, int64_t> first_with;
  for (int64_t config = 0; config < configs; ++config) {
    const std::string key = program_key(lower, config, options);
    same_as[static_cast<size_t>(config)] = key.empty() ? config : first_with.emplace(key, config).first->second;
    if (progress && !progress(config + 1, total)) return false;
  }
  return true;
}

// `config`'s measurement made a copy of `program`'s, which measured its program (config 0's best()
// once a pass when `program` is config 0, whose minima are one per batch).
ConfigMeasurement same_program(const ConfigMeasurement& measured, int64_t program, int passes) {
  ConfigMeasurement copy;
  copy.same_program_as = program;
  copy.failure =
      measured.failure.empty() ? "" : "the same program as config " + std::to_string(program) + ", which failed: " + measured.failure;
  if (program == 0) {
    copy.pass_minimum.assign(static_cast<size_t>(passes), measured.best());
    copy.batch_reference = copy.pass_minimum;
  } else {
    copy.pass_minimum = measured.pass_minimum;
    copy.batch_reference = measured.batch_reference;
  }
  return copy;
}

}  // namespace

namespace {

// Where a batch's measurements went: its configs (config 0 first) and each one's index in its
// pass_minimum, -1 when it failed.
struct BatchRecord {
  std::vector<int64_t> configs;
  std::vector<int64_t> minimum_at;
};

// The protocol's state over one measure_configs call.
struct Protocol {
  const LowerConfig& lower;
  const MeasureOptions& options;
  const std::function<bool(int64_t, int64_t)>& progress;
  const std::string& source;
  std::vector<ConfigMeasurement>& results;
  std::vector<uint8_t> reference;  // config 0's outputs
  int64_t done = 0, total = 0;
  bool stopped = false;

  // One config measured into `result`; false when the user stopped. Config 0 failing throws the
  // first time (nothing can be compared with it); measured again, it is a failed re-measurement.
  bool measure(int64_t config, ConfigMeasurement& result, bool again = false) {
    measure_alone(config, lower, options, result, reference);
    if (config == 0 && !again && !result.failure.empty()) {
      throw InputError(source, "config 0", "measured (the module's own layouts, or its untiled kernel: every config is compared with it)",
                       result.failure);
    }
    stopped = stopped || (progress && !progress(++done, total));
    return !stopped;
  }

  // `batch` (config 0 first) measured into results.
  BatchRecord measure_batch(const std::vector<int64_t>& batch) {
    BatchRecord record{batch, {}};
    for (const int64_t config : batch) {
      if (stopped) break;
      ConfigMeasurement& result = results[static_cast<size_t>(config)];
      const size_t measured_before = result.pass_minimum.size();
      measure(config, result);
      const bool measured = result.pass_minimum.size() > measured_before;
      record.minimum_at.push_back(measured ? static_cast<int64_t>(measured_before) : -1);
      // Config 0 is the batch's first: its newest minimum is the batch's reference, unless the
      // measurement brought its own (paired)
      if (measured && result.batch_reference.size() < result.pass_minimum.size()) {
        result.batch_reference.push_back(results[0].pass_minimum.back());
      }
    }
    return record;
  }

  // A batch measured while config 0 ran more than kSlowBatch slower than its best minimum (a slow
  // spell of the machine, which does not slow every config alike) measured again, up to
  // kSlowBatchRetries times; each config keeps the minima of whichever time config 0 ran faster.
  // Every timed run is kept either way.
  void measure_slow_batches_again(std::vector<BatchRecord>& batches) {
    for (int retry = 0; retry < kSlowBatchRetries && !stopped; ++retry) {
      const std::vector<double>& zero = results[0].pass_minimum;
      const double best = *std::min_element(zero.begin(), zero.end());
      std::vector<BatchRecord*> slow;
      for (BatchRecord& batch : batches) {
        if (batch.minimum_at[0] >= 0 && zero[static_cast<size_t>(batch.minimum_at[0])] > best * (1 + kSlowBatch)) slow.push_back(&batch);
      }
      for (const BatchRecord* batch : slow) total += static_cast<int64_t>(batch->configs.size());
      for (BatchRecord* batch : slow) {
        if (!stopped) measure_again(*batch);
      }
    }
  }

  void measure_again(BatchRecord& batch) {
    std::vector<ConfigMeasurement> again(batch.configs.size());
    for (size_t k = 0; k < batch.configs.size() && !stopped; ++k) measure(batch.configs[k], again[k], true);
    const double before = results[0].pass_minimum[static_cast<size_t>(batch.minimum_at[0])];
    const bool calmer = !again[0].pass_minimum.empty() && again[0].pass_minimum[0] < before;
    for (size_t k = 0; k < batch.configs.size(); ++k) {
      ConfigMeasurement& result = results[static_cast<size_t>(batch.configs[k])];
      result.seconds.insert(result.seconds.end(), again[k].seconds.begin(), again[k].seconds.end());
      const int64_t at = k < batch.minimum_at.size() ? batch.minimum_at[k] : -1;
      if (!calmer || at < 0 || again[k].pass_minimum.empty()) continue;
      result.pass_minimum[static_cast<size_t>(at)] = again[k].pass_minimum[0];
      result.batch_reference[static_cast<size_t>(at)] =
          again[k].batch_reference.empty() ? again[0].pass_minimum[0] : again[k].batch_reference[0];
      result.remeasured += 1;
    }
  }
};

}  // namespace

std::vector<ConfigMeasurement> measure_configs(int64_t configs, const LowerConfig& lower, const MeasureOptions& options,
                                               const std::function<bool(int64_t, int64_t)>& progress, const std::string& source) {
  pin_to_cpus(options.threads);
  std::vector<ConfigMeasurement> results(static_cast<size_t>(configs));
  std::vector<int64_t> same_as(static_cast<size_t>(configs));
  std::mt19937_64 random(options.seed);
  // The total until the statements are known counts every config as its own program
  const auto total_of = [&](int64_t programs) {
    const int64_t batches_per_pass = (programs - 1 + options.batch - 1) / std::max(options.batch, 1);
    return configs + options.passes * (programs - 1 + std::max<int64_t>(batches_per_pass, 1));
  };
  Protocol protocol{lower, options, progress, source, results, {}};
  protocol.stopped = !find_same_programs(configs, lower, options, progress, total_of(configs), same_as);
  std::vector<int64_t> order;
  for (int64_t c = 1; c < configs; ++c) {
    if (same_as[static_cast<size_t>(c)] == c) order.push_back(c);
  }
  protocol.total = total_of(static_cast<int64_t>(order.size()) + 1);
  protocol.done = configs;
  std::vector<BatchRecord> batches;
  for (int pass = 0; pass < options.passes && !protocol.stopped; ++pass) {
    std::shuffle(order.begin(), order.end(), random);
    for (size_t at = 0; (at < order.size() || at == 0) && !protocol.stopped; at += static_cast<size_t>(options.batch)) {
      std::vector<int64_t> batch = {0};  // config 0 first in every batch
      for (size_t k = at; k < std::min(order.size(), at + static_cast<size_t>(options.batch)); ++k) batch.push_back(order[k]);
      batches.push_back(protocol.measure_batch(batch));
      if (order.empty()) break;
    }
  }
  if (!order.empty()) protocol.measure_slow_batches_again(batches);
  for (int64_t c = 0; c < configs; ++c) {
    const int64_t program = same_as[static_cast<size_t>(c)];
    if (program != c) results[static_cast<size_t>(c)] = same_program(results[static_cast<size_t>(program)], program, options.passes);
  }
  for (ConfigMeasurement& result : results) {
    if (result.pass_minimum.empty() && result.failure.empty()) result.failure = "stopped before it was measured";
  }
  return results;
}

std::vector<ConfigMeasurement> measure_tile_configs(const HloModule& kernel, const TpuGraph& graph, const MeasureOptions& options,
                                                    const std::function<bool(int64_t, int64_t)>& progress) {
  const HloComputation& entry = kernel.computations.at(static_cast<size_t>(kernel.entry));
  const size_t rank =
      first_array(entry.instructions.at(static_cast<size_t>(entry.root)).shape).dims.size();  // the first output, as lowered
  const int threads = options.threads;
  return measure_configs(
      graph.config_count,
      [&kernel, &graph, rank, threads](int64_t config) {
        LoweredComputation lowered = lower_computation(kernel, kernel.entry);
        schedule_tiles(lowered, config_tile(graph, config, rank));
        if (threads > 1) parallelize_stored(lowered);
        return lowered;
      },
      options, progress, kernel.source);
}

}  // namespace graphcost
