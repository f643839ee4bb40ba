// A T1 space definition read as the configs its restrictions allow (spaces/space_formats.h).
#include <limits>
#include <unordered_map>

#include "common/checked_arithmetic.h"
#include "common/input_error.h"
#include "common/memory_limit.h"
#include "spaces/restriction_expression.h"
#include "spaces/space_formats.h"

namespace graphcost {
namespace {

using Json = nlohmann::json;
constexpr int64_t kMaxCombinations = 5000000;   // checked against the restrictions one by one
constexpr uint64_t kMaxCheckSteps = 500000000;  // the restrictions' work over every combination

std::string brief(const Json& value) { return value.is_primitive() ? excerpt(value.dump()) : std::string("a JSON ") + value.type_name(); }

ExpressionValue expression_value(const nlohmann::json& value) {
  if (value.is_string()) return ExpressionValue::of_string(value.get<std::string>());
  if (value.is_boolean()) return ExpressionValue::of_int(value.get<bool>() ? 1 : 0);
  if (value.is_number_integer()) return ExpressionValue::of_int(value.get<int64_t>());
  return ExpressionValue::of_float(value.get<double>());
}

nlohmann::json json_value(const ExpressionValue& value, const std::string& path, const std::string& field) {
  switch (value.kind) {
    case ExpressionValue::Kind::Int:
      return value.integer;
    case ExpressionValue::Kind::Float:
      return value.real;
    case ExpressionValue::Kind::String:
      return value.text;
    case ExpressionValue::Kind::List:
      break;
  }
  throw InputError(path, field, "numbers, strings or booleans", "a list inside the list");
}

// A parameter's values: a list, or a Python expression of one ("[16, 32]", "list(range(1, 9))").
std::vector<nlohmann::json> parameter_values(const Json& values, const std::string& path, const std::string& field) {
  std::vector<nlohmann::json> out;
  if (values.is_array()) {
    for (const Json& v : values) {
      if (!(v.is_number() || v.is_string() || v.is_boolean())) throw InputError(path, field, "numbers, strings or booleans", brief(v));
      out.push_back(v);
    }
  } else if (values.is_string()) {
    const ExpressionValue list = RestrictionExpression(values.get<std::string>(), {}, path + ": " + field).evaluate({});
    if (list.kind != ExpressionValue::Kind::List)
      throw InputError(path, field, "an expression of a list of values", values.get<std::string>());
    for (const ExpressionValue& item : list.items) out.push_back(json_value(item, path, field));
  } else {
    throw InputError(path, field, "a list of values or a Python expression of one", brief(values));
  }
  if (out.empty()) throw InputError(path, field, "at least one value", "none");
  for (const nlohmann::json& v : out) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      throw InputError(path, field, "integers within 64 bits", brief(v));
    }
  }
  return out;
}

}  // namespace

ParameterSpace read_t1_space(const Json& root, const std::string& path) {
  ParameterSpace space;
  space.source = path;
  space.format = "T1";
  if (root.contains("General") && root.at("General").is_object() && root.at("General").contains("FormatVersion")) {
    const Json& version = root.at("General").at("FormatVersion");
    if (version.is_string() || version.is_number())
      space.format += " " + excerpt(version.is_string() ? version.get<std::string>() : version.dump());
  }
  if (root.contains("KernelSpecification") && root.at("KernelSpecification").is_object() &&
      root.at("KernelSpecification").contains("KernelName") && root.at("KernelSpecification").at("KernelName").is_string()) {
    space.kernel = root.at("KernelSpecification").at("KernelName").get<std::string>();
  }
  const Json& configuration_space = root.at("ConfigurationSpace");
  if (!configuration_space.is_object() || !configuration_space.contains("TuningParameters") ||
      !configuration_space.at("TuningParameters").is_array() || configuration_space.at("TuningParameters").empty()) {
    throw InputError(path, "ConfigurationSpace.TuningParameters", "a non-empty list of parameters", "missing or empty");
  }
  std::vector<std::string> names;
  int64_t combinations = 1;
  const Json& parameters = configuration_space.at("TuningParameters");
  for (size_t p = 0; p < parameters.size(); ++p) {
    const std::string field = "ConfigurationSpace.TuningParameters[" + std::to_string(p) + "]";
    const Json& parameter = parameters[p];
    if (!parameter.is_object() || !parameter.contains("Name") || !parameter.at("Name").is_string() || !parameter.contains("Values")) {
      throw InputError(path, field, "an object with Name and Values", brief(parameter));
    }
    names.push_back(parameter.at("Name").get<std::string>());
    for (size_t q = 0; q + 1 < names.size(); ++q) {
      if (names[q] == names.back()) throw InputError(path, field + ".Name", "a name not used before", excerpt(names.back()));
    }
    space.parameters.push_back({names.back(), parameter_values(parameter.at("Values"), path, field + ".Values")});
    const auto product = checked_multiply(combinations, static_cast<int64_t>(space.parameters.back().values.size()));
    if (!product || *product > kMaxCombinations) {
      throw InputError(path, "ConfigurationSpace.TuningParameters",
                       "at most " + std::to_string(kMaxCombinations) + " combinations to check", "more, at parameter " + names.back());
    }
    combinations = *product;
  }
  std::vector<RestrictionExpression> restrictions;
  if (configuration_space.contains("Conditions")) {
    const Json& conditions = configuration_space.at("Conditions");
    if (!conditions.is_array()) throw InputError(path, "ConfigurationSpace.Conditions", "a list", conditions.type_name());
    for (size_t k = 0; k < conditions.size(); ++k) {
      const std::string field = "ConfigurationSpace.Conditions[" + std::to_string(k) + "]";
      const Json& condition =
          conditions[k].is_object() && conditions[k].contains("Expression") ? conditions[k].at("Expression") : conditions[k];
      if (!condition.is_string()) throw InputError(path, field, "an Expression string", condition.type_name());
      restrictions.emplace_back(condition.get<std::string>(), names, path + ": " + field + ".Expression");
      space.restrictions.push_back(condition.get<std::string>());
    }
  }
  // At most every combination kept: charged against the input memory limit before any is made.
  const uint64_t per_config = sizeof(SpaceConfig) + 4 * names.size() + 4 * 24;  // + its row as the learners' columns
  if (static_cast<uint64_t>(combinations) * per_config > input_memory_limit()) {
    throw InputError(
        path, "ConfigurationSpace.TuningParameters",
        "a space within the input memory limit " + format_byte_size(input_memory_limit()) + " (GRAPHCOST_MEMORY_LIMIT)",
        std::to_string(combinations) + " combinations, up to " + format_byte_size(static_cast<uint64_t>(combinations) * per_config));
  }
  uint64_t steps = 0;
  // Every combination, the last parameter fastest (as itertools.product), kept when every restriction holds.
  std::vector<int32_t> at(names.size(), 0);
  std::vector<ExpressionValue> bound;
  for (const SpaceParameter& parameter : space.parameters) bound.push_back(expression_value(parameter.values[0]));
  for (int64_t n = 0; n < combinations; ++n) {
    bool allowed = true;
    for (const RestrictionExpression& restriction : restrictions) {
      if (!restriction.evaluate(bound, &steps).truthy()) {
        allowed = false;
        break;
      }
    }
    if (steps > kMaxCheckSteps) {
      throw InputError(path, "ConfigurationSpace.Conditions", "restrictions checked within " + std::to_string(kMaxCheckSteps) + " steps",
                       "more, at combination " + std::to_string(n) + " of " + std::to_string(combinations));
    }
    if (allowed) space.configs.push_back({at, ConfigOutcome::Unmeasured, 0, {}});
    for (size_t p = names.size(); p-- > 0;) {  // the next combination
      const auto& values = space.parameters[p].values;
      at[p] = at[p] + 1 == static_cast<int32_t>(values.size()) ? 0 : at[p] + 1;
      bound[p] = expression_value(values[static_cast<size_t>(at[p])]);
      if (at[p] != 0) break;
    }
  }
  if (space.configs.empty())
    throw InputError(path, "ConfigurationSpace.Conditions", "a space with at least one config", "every combination refused");
  return space;
}

}  // namespace graphcost
