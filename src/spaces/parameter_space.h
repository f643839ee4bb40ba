// ParameterSpace: a kernel's tuning space as the autotuning field describes it (Kernel Tuner, the
// Autotuning Association's T1/T4 formats): named parameters with their values, the configs (one
// value of each parameter) and, for a measured space, per config every repeat or how it failed.
// The third kind of tuning target beside TpuGraphs' layout programs and tile kernels: nothing here
// is a graph.
//
// Formats read (load_parameter_space; gzip or not, told by content):
//   T4         {"schema_version", "results": [{"configuration", "times": {"runtimes"}, "invalidity",
//              "measurements": [{"name": "time", "value"}]}], "metadata": {"timeunit"}}: the
//              results of a tuning run or a brute-forced space (times in metadata.timeunit, default ms)
//   cache      Kernel Tuner's cache file ({"tune_params_keys", "tune_params", "cache": {"16,1,...":
//              {"time", "times", ...}}}, times in ms; an unclosed file, as Kernel Tuner leaves one
//              while it runs, is closed as Kernel Tuner closes it)
//   T1         a space not yet measured: {"ConfigurationSpace": {"TuningParameters": [{"Name",
//              "Values"}], "Conditions": [{"Expression"}]}}: every combination its restrictions allow
//              (spaces/restriction_expression.h)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/named_values.h"

namespace graphcost {

// How a config's measurement ended, as T4's `invalidity` says it ("correct" is ok); unmeasured for
// a space read from its definition (T1).
enum class ConfigOutcome { Ok, Compile, Runtime, Timeout, Correctness, Constraints, Unmeasured };
// "ok", "compile", "runtime", "timeout", "correctness", "constraints", "unmeasured"
const NameTable<ConfigOutcome>& config_outcome_names();

struct SpaceParameter {
  std::string name;
  std::vector<nlohmann::json> values;  // scalars (numbers, strings, booleans), in the order defined or first seen
  bool numeric() const;                // every value a number (or a boolean)
};

struct SpaceConfig {
  std::vector<int32_t> value_index;  // per parameter: an index into its values
  ConfigOutcome outcome = ConfigOutcome::Unmeasured;
  double seconds = 0;           // ok: the file's objective (T4's "time" measurement, the cache's "time")
  std::vector<double> repeats;  // every repeat the file kept, in seconds (also for a failed config that has them)
};

struct ParameterSpace {
  std::string source;          // the file
  std::string format;          // "T4 1.0.0", "Kernel Tuner cache 1.1.0", "T1"
  std::string device, kernel;  // when the file says (a cache does; T4 files often do not)
  std::vector<SpaceParameter> parameters;
  std::vector<SpaceConfig> configs;
  std::vector<std::string> restrictions;  // T1's conditions, as written

  bool measured() const;  // any config with an outcome other than unmeasured
  // The value of `parameter` in `config` as a number: the value itself when numeric, else its index.
  double numeric_value(int32_t config, int parameter) const;
  // {"name": value, ...} of one config, in parameter order: what a measuring command receives.
  nlohmann::ordered_json config_json(int32_t config) const;
};

// Reads a T4 results file, a Kernel Tuner cache file or a T1 definition (gzip or plain JSON).
// InputError naming the file, the field (results[12].configuration.block_size_x), the expected and
// the actual on anything else: a wrong schema, configs with other parameters than the first, a
// duplicate config, a time that is not a positive number, a file past the input memory limit.
ParameterSpace load_parameter_space(const std::string& path);
// The same from a file's text already read (and gunzipped); `path` names it in errors.
ParameterSpace parameter_space_from_text(std::string text, const std::string& path);

// True when `path`'s content is gzip or starts as a JSON object: what tells a space from a graph or
// module argument. Reads at most the file's first 512 bytes.
bool is_parameter_space_file(const std::string& path);

// The space as a T4 results document (schema 1.0.0, milliseconds; a failed config's time is Kernel
// Tuner's error name): what `tune --out` writes for a space, and what load_parameter_space reads
// back to the same configs and outcomes, times and repeats to float rounding (seconds written in ms). `note` goes to metadata.graphcost.
nlohmann::ordered_json t4_results_document(const ParameterSpace& space, const std::string& note);

// What `graphcost info` prints of a space: parameters and values, configs, outcomes, spread, the
// noise of the repeats (the median coefficient of variation of a config's repeats), the best config.
nlohmann::json summarize_parameter_space(const ParameterSpace& space);
std::string parameter_space_text(const nlohmann::json& summary);

}  // namespace graphcost
