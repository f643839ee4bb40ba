// The readers behind load_parameter_space (spaces/parameter_space.h), one per format, each from the
// parsed JSON of `path`. InputError naming the file and the field on anything the format rules out.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "spaces/parameter_space.h"

namespace graphcost {

// `text`: the file's text, for the order its first config names the parameters in (JSON objects
// are read sorted).
ParameterSpace read_t4_results(const nlohmann::json& root, const std::string& text, const std::string& path);
ParameterSpace read_kernel_tuner_cache(const nlohmann::json& root, const std::string& path);
ParameterSpace read_t1_space(const nlohmann::json& root, const std::string& path);

// Kernel Tuner leaves a cache file open while it runs (no closing "}\n}", a comma after the last
// entry): the text closed as Kernel Tuner's read_cache closes it, or unchanged when it is closed.
std::string closed_kernel_tuner_cache(const std::string& text);

// What a reader has seen: each config by its value positions, each parameter's values by their JSON
// text (hash lookups: a space of many configs and values loads in linear time).
struct SpaceIndex {
  std::unordered_map<std::string, int32_t> configs;
  std::vector<std::unordered_map<std::string, int32_t>> values;
};

// Adds `values` (scalars) as a config of `space`, each value found in (or added to) its parameter's
// values; InputError naming `field` when the config is already in the space.
int32_t add_space_config(ParameterSpace& space, const std::vector<nlohmann::json>& values, SpaceIndex& index, const std::string& field);

}  // namespace graphcost
