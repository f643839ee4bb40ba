#include "spaces/parameter_space.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "common/input_error.h"
#include "common/memory_limit.h"
#include "common/units.h"
#include "io/byte_source.h"
#include "io/text_file.h"
#include "spaces/space_formats.h"

namespace graphcost {

const NameTable<ConfigOutcome>& config_outcome_names() {
  static const NameTable<ConfigOutcome> names = {{"ok", ConfigOutcome::Ok},
                                                 {"compile", ConfigOutcome::Compile},
                                                 {"runtime", ConfigOutcome::Runtime},
                                                 {"timeout", ConfigOutcome::Timeout},
                                                 {"correctness", ConfigOutcome::Correctness},
                                                 {"constraints", ConfigOutcome::Constraints},
                                                 {"unmeasured", ConfigOutcome::Unmeasured}};
  return names;
}

bool SpaceParameter::numeric() const {
  return std::all_of(values.begin(), values.end(), [](const nlohmann::json& v) { return v.is_number() || v.is_boolean(); });
}

bool ParameterSpace::measured() const {
  return std::any_of(configs.begin(), configs.end(), [](const SpaceConfig& c) { return c.outcome != ConfigOutcome::Unmeasured; });
}

double ParameterSpace::numeric_value(int32_t config, int parameter) const {
  const SpaceParameter& p = parameters[static_cast<size_t>(parameter)];
  const int32_t index = configs[static_cast<size_t>(config)].value_index[static_cast<size_t>(parameter)];
  if (!p.numeric()) return static_cast<double>(index);  // a parameter with any string value: every value by its position
  const nlohmann::json& value = p.values[static_cast<size_t>(index)];
  return value.is_boolean() ? (value.get<bool>() ? 1 : 0) : value.get<double>();
}

nlohmann::ordered_json ParameterSpace::config_json(int32_t config) const {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (size_t p = 0; p < parameters.size(); ++p) {
    out[parameters[p].name] = parameters[p].values[static_cast<size_t>(configs[static_cast<size_t>(config)].value_index[p])];
  }
  return out;
}

bool is_parameter_space_file(const std::string& path) {
  try {
    const ByteSource file = ByteSource::open_file(path);
    uint8_t head[512];
    const size_t n = static_cast<size_t>(std::min<uint64_t>(file.size(), sizeof head));
    file.read(0, n, head, "head");
    if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) return true;  // gzip: graphs and modules are never gzipped
    for (size_t i = 0; i < n; ++i) {
      if (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t') continue;
      return head[i] == '{';
    }
  } catch (const std::exception&) {
  }
  return false;  // the graph loaders say what is wrong
}

ParameterSpace load_parameter_space(const std::string& path) { return parameter_space_from_text(read_text_file(path), path); }

ParameterSpace parameter_space_from_text(std::string text, const std::string& path) {
  // A parsed JSON document takes up to about 20 times its text (a node per value): the text may
  // be a twentieth of the input memory limit (common/memory_limit.h).
  constexpr uint64_t kParsedFactor = 20;
  if (static_cast<uint64_t>(text.size()) * kParsedFactor > input_memory_limit()) {
    throw InputError(path, "size",
                     "JSON text of at most " + format_byte_size(input_memory_limit() / kParsedFactor) +
                         " (a twentieth of the input memory limit, GRAPHCOST_MEMORY_LIMIT: parsed, it takes up to 20 times more)",
                     format_byte_size(text.size()));
  }
  nlohmann::json root;  // (sorted objects: an ordered one costs a linear scan per key, quadratic on a big cache)
  try {
    try {
      root = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& error) {
      // Kernel Tuner leaves its cache open while it runs; closed as its read_cache closes it.
      const std::string closed = text.find("\"tune_params_keys\"") != std::string::npos ? closed_kernel_tuner_cache(text) : text;
      root = nlohmann::json::parse(closed, nullptr, false);
      if (root.is_discarded()) throw InputError(path, "JSON", "a JSON document", "invalid at byte " + std::to_string(error.byte));
    }
  } catch (const nlohmann::json::exception& error) {  // a number out of range, an invalid code point
    throw InputError(path, "JSON", "a JSON document graphcost can hold", excerpt(error.what(), 200));
  }
  ParameterSpace space;
  if (root.is_object() && root.contains("results")) {
    space = read_t4_results(root, text, path);
  } else if (root.is_object() && root.contains("cache") && root.contains("tune_params_keys")) {
    space = read_kernel_tuner_cache(root, path);
  } else if (root.is_object() && root.contains("ConfigurationSpace")) {
    space = read_t1_space(root, path);
  } else {
    throw InputError(
        path, "format",
        "T4 results (\"results\"), a Kernel Tuner cache (\"cache\", \"tune_params_keys\") or a T1 space (\"ConfigurationSpace\")",
        root.is_object() ? "an object without those keys" : std::string("a JSON ") + root.type_name());
  }
  return space;
}

nlohmann::ordered_json t4_results_document(const ParameterSpace& space, const std::string& note) {
  static const std::map<ConfigOutcome, const char*> errors = {{ConfigOutcome::Compile, "CompilationFailedConfig"},
                                                              {ConfigOutcome::Runtime, "RuntimeFailedConfig"},
                                                              {ConfigOutcome::Constraints, "InvalidConfig"},
                                                              {ConfigOutcome::Timeout, "RuntimeFailedConfig"},
                                                              {ConfigOutcome::Correctness, "RuntimeFailedConfig"}};
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (int32_t c = 0; c < static_cast<int32_t>(space.configs.size()); ++c) {
    const SpaceConfig& config = space.configs[static_cast<size_t>(c)];
    if (config.outcome == ConfigOutcome::Unmeasured) continue;
    nlohmann::ordered_json runtimes = nlohmann::ordered_json::array();
    for (const double r : config.repeats) runtimes.push_back(r * 1e3);
    const bool ok = config.outcome == ConfigOutcome::Ok;
    nlohmann::ordered_json result;
    result["configuration"] = space.config_json(c);
    result["times"] = {{"runtimes", runtimes}};
    result["invalidity"] = ok ? "correct" : name_of(config_outcome_names(), config.outcome);
    result["correctness"] = ok ? 1 : 0;
    result["measurements"] = nlohmann::ordered_json::array(
        {{{"name", "time"},
          {"value", ok ? nlohmann::ordered_json(config.seconds * 1e3) : nlohmann::ordered_json(errors.at(config.outcome))},
          {"unit", "ms"}}});
    result["objectives"] = {"time"};
    results.push_back(std::move(result));
  }
  nlohmann::ordered_json document;
  document["schema_version"] = "1.0.0";
  document["metadata"] = {{"timeunit", "milliseconds"}, {"graphcost", note}};
  document["results"] = std::move(results);
  return document;
}

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

nlohmann::json summarize_parameter_space(const ParameterSpace& space) {
  nlohmann::json parameters = nlohmann::json::array();
  for (const SpaceParameter& p : space.parameters) parameters.push_back({{"name", p.name}, {"values", p.values}});
  nlohmann::json outcomes = nlohmann::json::object();
  std::vector<double> seconds, noise;
  size_t fewest = SIZE_MAX, most = 0;
  int32_t best = -1;
  for (size_t c = 0; c < space.configs.size(); ++c) {
    const SpaceConfig& config = space.configs[c];
    const std::string outcome = name_of(config_outcome_names(), config.outcome);
    outcomes[outcome] = outcomes.value(outcome, 0) + 1;
    if (config.outcome != ConfigOutcome::Ok) continue;
    seconds.push_back(config.seconds);
    if (best < 0 || config.seconds < space.configs[static_cast<size_t>(best)].seconds) best = static_cast<int32_t>(c);
    fewest = std::min(fewest, config.repeats.size());
    most = std::max(most, config.repeats.size());
    if (config.repeats.size() >= 2) {  // the repeats' coefficient of variation
      double mean = 0, square = 0;
      for (double r : config.repeats) mean += r;
      mean /= static_cast<double>(config.repeats.size());
      for (double r : config.repeats) square += (r - mean) * (r - mean);
      noise.push_back(std::sqrt(square / static_cast<double>(config.repeats.size() - 1)) / mean);
    }
  }
  nlohmann::json summary = {{"file", space.source},
                            {"format", space.format},
                            {"kind", "space"},
                            {"device", space.device},
                            {"kernel", space.kernel},
                            {"parameters", parameters},
                            {"restrictions", space.restrictions},
                            {"configs", space.configs.size()},
                            {"outcomes", outcomes}};
  if (!seconds.empty()) {
    const auto [low, high] = std::minmax_element(seconds.begin(), seconds.end());
    summary["seconds"] = {{"best", *low}, {"median", median(seconds)}, {"worst", *high}, {"relative_spread", (*high - *low) / *low}};
    summary["best_config"] = {{"config", best}, {"values", nlohmann::json::parse(space.config_json(best).dump())}};
    summary["repeats"] = {{"fewest", fewest}, {"most", most}, {"median_coefficient_of_variation", finite_or_null(median(noise))}};
  }
  return summary;
}

std::string parameter_space_text(const nlohmann::json& s) {
  // Names and values come from the file: printed escaped (common/input_error.h's printable).
  std::string out = printable(s["file"].get<std::string>()) + ": a parameter space (" + printable(s["format"].get<std::string>()) + ")";
  if (!s["device"].get<std::string>().empty()) out += ", device " + printable(s["device"].get<std::string>());
  if (!s["kernel"].get<std::string>().empty()) out += ", kernel " + printable(s["kernel"].get<std::string>());
  out += "\n  " + std::to_string(s["parameters"].size()) + " parameters, " + std::to_string(s["configs"].get<size_t>()) + " configs:";
  for (const auto& [outcome, count] : s["outcomes"].items()) out += " " + outcome + " " + std::to_string(count.get<int64_t>());
  out += "\n";
  for (const nlohmann::json& p : s["parameters"]) {
    std::string values;
    for (const nlohmann::json& v : p["values"]) values += (values.empty() ? "" : ", ") + v.dump();
    out += "  " + printable(p["name"].get<std::string>()) + " (" + std::to_string(p["values"].size()) + "): " + excerpt(values, 120) + "\n";
  }
  for (const nlohmann::json& r : s["restrictions"]) out += "  restriction: " + excerpt(r.get<std::string>(), 200) + "\n";
  if (s.contains("seconds")) {
    char line[256];
    const nlohmann::json& t = s["seconds"];
    std::snprintf(line, sizeof line, "  measured: best %s, median %s, worst %s, relative spread %.2f\n",
                  format_duration(t["best"].get<double>()).c_str(), format_duration(t["median"].get<double>()).c_str(),
                  format_duration(t["worst"].get<double>()).c_str(), t["relative_spread"].get<double>());
    out += line;
    const nlohmann::json& r = s["repeats"];
    std::snprintf(line, sizeof line, "  repeats: %zu to %zu a config; their median coefficient of variation %s\n",
                  r["fewest"].get<size_t>(), r["most"].get<size_t>(),
                  r["median_coefficient_of_variation"].is_null()
                      ? "-"
                      : (std::to_string(r["median_coefficient_of_variation"].get<double>()).substr(0, 6)).c_str());
    out += line;
    std::string values;
    for (const nlohmann::json& p : s["parameters"]) {
      const std::string& name = p["name"].get_ref<const std::string&>();
      values += (values.empty() ? "" : ", ") + printable(name) + "=" + printable(s["best_config"]["values"][name].dump());
    }
    out += "  best config " + s["best_config"]["config"].dump() + ": " + values + "\n";
  }
  return out;
}

}  // namespace graphcost
