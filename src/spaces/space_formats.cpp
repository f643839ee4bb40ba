#include "spaces/space_formats.h"

#include <cmath>
#include <limits>

#include "common/input_error.h"

namespace graphcost {
namespace {

using Json = nlohmann::ordered_json;

const Json& member(const Json& object, const char* key, const std::string& path, const std::string& field, const char* expected) {
  if (!object.is_object() || !object.contains(key)) throw InputError(path, field + "." + key, expected, "missing");
  return object.at(key);
}

double unit_seconds(const std::string& unit, const std::string& path) {
  // "miliseconds": Kernel Tuner's converter writes it so (kernel_tuner/cache/convert.py).
  if (unit == "milliseconds" || unit == "miliseconds" || unit == "ms") return 1e-3;
  if (unit == "microseconds" || unit == "us") return 1e-6;
  if (unit == "nanoseconds" || unit == "ns") return 1e-9;
  if (unit == "seconds" || unit == "s") return 1;
  throw InputError(path, "metadata.timeunit", "nanoseconds, microseconds, milliseconds or seconds", unit);
}

double positive_seconds(const Json& value, double scale, const std::string& path, const std::string& field) {
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() <= 0) {
    throw InputError(path, field, "a positive time", value.dump().substr(0, 80));
  }
  return value.get<double>() * scale;
}

std::vector<double> repeats_of(const Json& list, double scale, const std::string& path, const std::string& field) {
  if (!list.is_array()) throw InputError(path, field, "a list of times", list.type_name());
  std::vector<double> repeats;
  for (size_t k = 0; k < list.size(); ++k) repeats.push_back(positive_seconds(list[k], scale, path, field + "[" + std::to_string(k) + "]"));
  return repeats;
}

ConfigOutcome outcome_of_invalidity(const Json& value, const std::string& path, const std::string& field) {
  static const NameTable<ConfigOutcome> t4 = {
      {"correct", ConfigOutcome::Ok},      {"compile", ConfigOutcome::Compile},         {"runtime", ConfigOutcome::Runtime},
      {"timeout", ConfigOutcome::Timeout}, {"correctness", ConfigOutcome::Correctness}, {"constraints", ConfigOutcome::Constraints}};
  if (!value.is_string()) throw InputError(path, field, "a string (correct, compile, runtime, ...)", value.type_name());
  return value_named(t4, value.get<std::string>(), path + ": " + field);
}

void check_scalar(const Json& value, const std::string& path, const std::string& field) {
  if (!(value.is_number() || value.is_string() || value.is_boolean())) {
    throw InputError(path, field, "a number, string or boolean parameter value", value.type_name());
  }
  if (value.is_number_float() && !std::isfinite(value.get<double>())) throw InputError(path, field, "a finite number", value.dump());
}

void add_value_names(ParameterSpace& space, const Json& configuration, const std::string& path, const std::string& field) {
  if (!configuration.is_object() || configuration.empty())
    throw InputError(path, field, "an object of parameter values", configuration.dump().substr(0, 80));
  for (const auto& [name, value] : configuration.items()) space.parameters.push_back({name, {}});
}

// The configuration's values in the space's parameter order; InputError when it names others.
std::vector<Json> values_in_order(const ParameterSpace& space, const Json& configuration, const std::string& path,
                                  const std::string& field) {
  if (!configuration.is_object() || configuration.size() != space.parameters.size()) {
    throw InputError(path, field, "the " + std::to_string(space.parameters.size()) + " parameters of the first config",
                     configuration.is_object() ? std::to_string(configuration.size()) + " parameters" : configuration.type_name());
  }
  std::vector<Json> values;
  for (const SpaceParameter& parameter : space.parameters) {
    if (!configuration.contains(parameter.name))
      throw InputError(path, field + "." + parameter.name, "a value (as in the first config)", "missing");
    const Json& value = configuration.at(parameter.name);
    check_scalar(value, path, field + "." + parameter.name);
    values.push_back(value);
  }
  return values;
}

}  // namespace

int32_t add_space_config(ParameterSpace& space, const std::vector<Json>& values, std::unordered_map<std::string, int32_t>& index,
                         const std::string& field) {
  SpaceConfig config;
  std::string key;
  for (size_t p = 0; p < values.size(); ++p) {
    std::vector<nlohmann::json>& known = space.parameters[p].values;
    const nlohmann::json value = nlohmann::json::parse(values[p].dump());
    size_t at = 0;
    while (at < known.size() && known[at] != value) ++at;
    if (at == known.size()) known.push_back(value);
    config.value_index.push_back(static_cast<int32_t>(at));
    key += std::to_string(at) + ",";
  }
  const auto [where, inserted] = index.emplace(key, static_cast<int32_t>(space.configs.size()));
  if (!inserted)
    throw InputError(space.source, field, "a config not listed before", "the same values as config " + std::to_string(where->second));
  space.configs.push_back(std::move(config));
  return where->second;
}

ParameterSpace read_t4_results(const Json& root, const std::string& path) {
  ParameterSpace space;
  space.source = path;
  const Json& version = member(root, "schema_version", path, "T4", "a schema version (\"1.0.0\")");
  if (!version.is_string()) throw InputError(path, "schema_version", "a string", version.type_name());
  space.format = "T4 " + version.get<std::string>();
  double scale = 1e-3;  // Kernel Tuner's unit
  if (root.contains("metadata") && root.at("metadata").is_object() && root.at("metadata").contains("timeunit")) {
    const Json& unit = root.at("metadata").at("timeunit");
    if (!unit.is_string()) throw InputError(path, "metadata.timeunit", "a string", unit.type_name());
    scale = unit_seconds(unit.get<std::string>(), path);
  }
  const Json& results = member(root, "results", path, "T4", "a list of results");
  if (!results.is_array() || results.empty())
    throw InputError(path, "results", "a non-empty list", results.is_array() ? "empty" : results.type_name());
  std::string objective = "time";
  if (results[0].is_object() && results[0].contains("objectives") && results[0].at("objectives").is_array() &&
      !results[0].at("objectives").empty() && results[0].at("objectives")[0].is_string()) {
    objective = results[0].at("objectives")[0].get<std::string>();
  }
  std::unordered_map<std::string, int32_t> index;
  for (size_t i = 0; i < results.size(); ++i) {
    const std::string field = "results[" + std::to_string(i) + "]";
    const Json& result = results[i];
    const Json& configuration = member(result, "configuration", path, field, "the config's parameter values");
    if (i == 0) add_value_names(space, configuration, path, field + ".configuration");
    const int32_t c =
        add_space_config(space, values_in_order(space, configuration, path, field + ".configuration"), index, field + ".configuration");
    SpaceConfig& config = space.configs[static_cast<size_t>(c)];
    config.outcome =
        outcome_of_invalidity(member(result, "invalidity", path, field, "correct, compile, runtime, timeout, correctness or constraints"),
                              path, field + ".invalidity");
    if (result.contains("times") && result.at("times").is_object() && result.at("times").contains("runtimes")) {
      config.repeats = repeats_of(result.at("times").at("runtimes"), scale, path, field + ".times.runtimes");
    }
    if (config.outcome != ConfigOutcome::Ok) continue;
    const Json* time = nullptr;
    if (result.contains("measurements") && result.at("measurements").is_array()) {
      for (const Json& m : result.at("measurements")) {
        if (m.is_object() && m.contains("name") && m.at("name") == objective && m.contains("value")) time = &m.at("value");
      }
    }
    if (time != nullptr) {
      config.seconds = positive_seconds(*time, scale, path, field + ".measurements." + objective);
    } else if (!config.repeats.empty()) {
      double sum = 0;
      for (double r : config.repeats) sum += r;
      config.seconds = sum / static_cast<double>(config.repeats.size());
    } else {
      throw InputError(path, field, "a correct config's " + objective + " (a measurement or runtimes)", "neither");
    }
  }
  return space;
}

std::string closed_kernel_tuner_cache(const std::string& text) {
  size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return text;
  // Closed: ends with the cache object's and the file's braces.
  size_t before = end == 0 ? std::string::npos : text.find_last_not_of(" \t\r\n", end - 1);
  if (text[end] == '}' && before != std::string::npos && text[before] == '}') return text;
  std::string closed = text.substr(0, end + 1);
  if (closed.back() == ',') closed.pop_back();
  return closed + "\n}\n}\n";
}

ParameterSpace read_kernel_tuner_cache(const Json& root, const std::string& path) {
  ParameterSpace space;
  space.source = path;
  space.format = "Kernel Tuner cache" + (root.contains("schema_version") && root.at("schema_version").is_string()
                                             ? " " + root.at("schema_version").get<std::string>()
                                             : std::string());
  if (root.contains("device_name") && root.at("device_name").is_string()) space.device = root.at("device_name").get<std::string>();
  if (root.contains("kernel_name") && root.at("kernel_name").is_string()) space.kernel = root.at("kernel_name").get<std::string>();
  std::string objective = "time";
  if (root.contains("objective") && root.at("objective").is_string()) objective = root.at("objective").get<std::string>();
  const Json& keys = member(root, "tune_params_keys", path, "cache", "the parameter names in key order");
  if (!keys.is_array() || keys.empty()) throw InputError(path, "tune_params_keys", "a non-empty list of names", keys.dump().substr(0, 80));
  for (size_t k = 0; k < keys.size(); ++k) {
    if (!keys[k].is_string()) throw InputError(path, "tune_params_keys[" + std::to_string(k) + "]", "a name", keys[k].type_name());
    SpaceParameter parameter{keys[k].get<std::string>(), {}};
    if (root.contains("tune_params") && root.at("tune_params").is_object() && root.at("tune_params").contains(parameter.name) &&
        root.at("tune_params").at(parameter.name).is_array()) {
      for (const Json& v : root.at("tune_params").at(parameter.name)) {
        check_scalar(v, path, "tune_params." + parameter.name);
        parameter.values.push_back(nlohmann::json::parse(v.dump()));
      }
    }
    space.parameters.push_back(std::move(parameter));
  }
  static const NameTable<ConfigOutcome> errors = {{"InvalidConfig", ConfigOutcome::Constraints},
                                                  {"CompilationFailedConfig", ConfigOutcome::Compile},
                                                  {"RuntimeFailedConfig", ConfigOutcome::Runtime}};
  const Json& cache = member(root, "cache", path, "cache file", "an object of measured configs");
  if (!cache.is_object()) throw InputError(path, "cache", "an object of measured configs", cache.type_name());
  std::unordered_map<std::string, int32_t> index;
  for (const auto& [key, entry] : cache.items()) {
    const std::string field = "cache[\"" + printable(key.substr(0, 60)) + "\"]";
    if (!entry.is_object()) throw InputError(path, field, "an object", entry.type_name());
    std::vector<Json> values;
    size_t start = 0;
    for (size_t p = 0; p < space.parameters.size(); ++p) {  // the key's parts, unless the entry names the value
      const size_t comma = p + 1 < space.parameters.size() ? key.find(',', start) : key.size();
      if (comma == std::string::npos)
        throw InputError(path, field, std::to_string(space.parameters.size()) + " comma-separated values", key.substr(0, 80));
      const std::string part = key.substr(start, comma - start);
      start = comma + 1;
      if (entry.contains(space.parameters[p].name)) {
        values.push_back(entry.at(space.parameters[p].name));
      } else {
        const Json parsed = Json::parse(part, nullptr, false);
        values.push_back(parsed.is_number() ? parsed : Json(part));
      }
      check_scalar(values.back(), path, field + "." + space.parameters[p].name);
    }
    SpaceConfig& config = space.configs[static_cast<size_t>(add_space_config(space, values, index, field))];
    const Json& time = member(entry, objective.c_str(), path, field, "the objective: a time or an error name");
    if (time.is_string()) {
      config.outcome = value_named(errors, time.get<std::string>(), path + ": " + field + "." + objective);
    } else {
      config.outcome = ConfigOutcome::Ok;
      config.seconds = positive_seconds(time, 1e-3, path, field + "." + objective);
    }
    if (entry.contains("times")) config.repeats = repeats_of(entry.at("times"), 1e-3, path, field + ".times");
  }
  if (space.configs.empty()) throw InputError(path, "cache", "at least one measured config", "none");
  return space;
}

}  // namespace graphcost
