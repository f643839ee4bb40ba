#include "spaces/space_formats.h"

#include <cmath>
#include <limits>

#include "common/input_error.h"

namespace graphcost {
namespace {

using Json = nlohmann::json;

// A value in a message: a scalar as written (cut), anything else by its type (never dumped whole: a
// deeply nested value would recurse).
std::string brief(const Json& value) { return value.is_primitive() ? excerpt(value.dump()) : std::string("a JSON ") + value.type_name(); }

std::string brief(const Json& value);

const Json& member(const Json& object, const char* key, const std::string& path, const std::string& field, const char* expected) {
  if (!object.is_object()) throw InputError(path, field, std::string("an object with ") + key, brief(object));
  if (!object.contains(key)) throw InputError(path, field + "." + key, expected, "missing");
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
    throw InputError(path, field, "a positive time", brief(value));
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
  const std::string expected = "correct, compile, runtime, timeout, correctness or constraints";
  if (!value.is_string()) throw InputError(path, field, expected, brief(value));
  for (const auto& [name, outcome] : t4) {
    if (name == value.get_ref<const std::string&>()) return outcome;
  }
  throw InputError(path, field, expected, brief(value));
}

void check_scalar(const Json& value, const std::string& path, const std::string& field) {
  if (!(value.is_number() || value.is_string() || value.is_boolean())) {
    throw InputError(path, field, "a number, string or boolean parameter value", value.type_name());
  }
  if (value.is_number_float() && !std::isfinite(value.get<double>())) throw InputError(path, field, "a finite number", brief(value));
  if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    throw InputError(path, field, "an integer within 64 bits", brief(value));
  }
}

// The first config's parameter names, in the file's order (`order`, read from its text) when it
// names the same ones, else sorted.
void add_value_names(ParameterSpace& space, const Json& configuration, const std::vector<std::string>& order, const std::string& path,
                     const std::string& field) {
  if (!configuration.is_object() || configuration.empty())
    throw InputError(path, field, "an object of parameter values", brief(configuration));
  bool same = order.size() == configuration.size();
  for (const std::string& name : order) same = same && configuration.contains(name);
  if (same) {
    for (const std::string& name : order) space.parameters.push_back({name, {}});
    return;
  }
  for (const auto& [name, value] : configuration.items()) space.parameters.push_back({name, {}});
}

// The keys of the first object after `"key":` in `text`, in the order written ({} when the text is
// not as expected: the caller then takes the parsed object's sorted order). Scans, never recurses.
std::vector<std::string> first_object_keys(const std::string& text, const std::string& key) {
  std::vector<std::string> keys;
  size_t at = text.find("\"" + key + "\"");
  if (at == std::string::npos) return {};
  at = text.find_first_not_of(" \t\r\n", at + key.size() + 2);
  if (at == std::string::npos || text[at] != ':') return {};
  at = text.find_first_not_of(" \t\r\n", at + 1);
  if (at == std::string::npos || text[at] != '{') return {};
  int depth = 0;
  bool expect_key = true;
  for (size_t i = at; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {  // a string: a key when at depth 1 where a key is expected
      size_t end = i + 1;
      while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
      if (end >= text.size()) return {};
      if (depth == 1 && expect_key) {
        const Json name = Json::parse(text.substr(i, end - i + 1), nullptr, false);
        if (!name.is_string()) return {};
        keys.push_back(name.get<std::string>());
        expect_key = false;
      }
      i = end;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return keys;
    } else if (c == ',' && depth == 1) {
      expect_key = true;
    }
  }
  return {};
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
    values.push_back(value);  // a scalar: a copy that cannot recurse
  }
  return values;
}

}  // namespace

int32_t add_space_config(ParameterSpace& space, const std::vector<Json>& values, SpaceIndex& index, const std::string& field) {
  SpaceConfig config;
  std::string key;
  index.values.resize(space.parameters.size());
  for (size_t p = 0; p < values.size(); ++p) {
    std::vector<nlohmann::json>& known = space.parameters[p].values;
    std::unordered_map<std::string, int32_t>& positions = index.values[p];
    for (size_t v = positions.size(); v < known.size(); ++v) positions.emplace(known[v].dump(), static_cast<int32_t>(v));  // given values
    const auto [at, added] = positions.emplace(values[p].dump(), static_cast<int32_t>(known.size()));
    if (added) known.push_back(values[p]);
    config.value_index.push_back(at->second);
    key += std::to_string(at->second) + ",";
  }
  const auto [where, inserted] = index.configs.emplace(key, static_cast<int32_t>(space.configs.size()));
  if (!inserted)
    throw InputError(space.source, field, "a config not listed before", "the same values as config " + std::to_string(where->second));
  space.configs.push_back(std::move(config));
  return where->second;
}

ParameterSpace read_t4_results(const Json& root, const std::string& text, const std::string& path) {
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
  // The runtime is the measurement named "time", whatever objective a run optimised (Kernel Tuner
  // records the time of every config): a space's cost here is always a time.
  const std::string objective = "time";
  const std::vector<std::string> order = first_object_keys(text, "configuration");
  SpaceIndex index;
  for (size_t i = 0; i < results.size(); ++i) {
    const std::string field = "results[" + std::to_string(i) + "]";
    const Json& result = results[i];
    const Json& configuration = member(result, "configuration", path, field, "the config's parameter values");
    if (i == 0) add_value_names(space, configuration, order, path, field + ".configuration");
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
  const std::string objective = "time";  // every entry's runtime, whatever objective the run optimised
  const Json& keys = member(root, "tune_params_keys", path, "cache", "the parameter names in key order");
  if (!keys.is_array() || keys.empty()) throw InputError(path, "tune_params_keys", "a non-empty list of names", brief(keys));
  for (size_t k = 0; k < keys.size(); ++k) {
    const std::string field = "tune_params_keys[" + std::to_string(k) + "]";
    if (!keys[k].is_string()) throw InputError(path, field, "a name", brief(keys[k]));
    SpaceParameter parameter{keys[k].get<std::string>(), {}};
    for (const SpaceParameter& before : space.parameters) {
      if (before.name == parameter.name) throw InputError(path, field, "a name not listed before", excerpt(parameter.name));
    }
    if (root.contains("tune_params") && root.at("tune_params").is_object() && root.at("tune_params").contains(parameter.name) &&
        root.at("tune_params").at(parameter.name).is_array()) {
      for (const Json& v : root.at("tune_params").at(parameter.name)) {
        check_scalar(v, path, "tune_params." + parameter.name);
        parameter.values.push_back(v);
      }
    }
    space.parameters.push_back(std::move(parameter));
  }
  static const NameTable<ConfigOutcome> errors = {{"InvalidConfig", ConfigOutcome::Constraints},
                                                  {"CompilationFailedConfig", ConfigOutcome::Compile},
                                                  {"RuntimeFailedConfig", ConfigOutcome::Runtime}};
  const Json& cache = member(root, "cache", path, "cache file", "an object of measured configs");
  if (!cache.is_object()) throw InputError(path, "cache", "an object of measured configs", cache.type_name());
  SpaceIndex index;
  for (const auto& [key, entry] : cache.items()) {
    const std::string field = "cache[" + excerpt(key) + "]";
    if (!entry.is_object()) throw InputError(path, field, "an object", brief(entry));
    std::vector<Json> values;
    size_t start = 0;
    for (size_t p = 0; p < space.parameters.size(); ++p) {  // the key's parts, unless the entry names the value
      const size_t comma = p + 1 < space.parameters.size() ? key.find(',', start) : key.size();
      if (comma == std::string::npos)
        throw InputError(path, field, std::to_string(space.parameters.size()) + " comma-separated values", excerpt(key));
      const std::string part = key.substr(start, comma - start);
      start = comma + 1;
      if (entry.contains(space.parameters[p].name)) {
        check_scalar(entry.at(space.parameters[p].name), path, field + "." + space.parameters[p].name);  // before the copy
        values.push_back(entry.at(space.parameters[p].name));
      } else {
        const Json parsed = Json::parse(part, nullptr, false);
        values.push_back(parsed.is_number() ? parsed : Json(part));
        check_scalar(values.back(), path, field + "." + space.parameters[p].name);
      }
    }
    SpaceConfig& config = space.configs[static_cast<size_t>(add_space_config(space, values, index, field))];
    const Json& time = member(entry, objective.c_str(), path, field, "the runtime: a time or an error name");
    if (time.is_string()) {
      config.outcome = ConfigOutcome::Unmeasured;
      for (const auto& [name, outcome] : errors) {
        if (name == time.get_ref<const std::string&>()) config.outcome = outcome;
      }
      if (config.outcome == ConfigOutcome::Unmeasured) {
        throw InputError(path, field + ".time", "a time or InvalidConfig, CompilationFailedConfig, RuntimeFailedConfig", brief(time));
      }
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
