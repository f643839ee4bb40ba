// The readers behind load_parameter_space (spaces/parameter_space.h), one per format, each from the
// parsed JSON of `path`. InputError naming the file and the field on anything the format rules out.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "spaces/parameter_space.h"

namespace graphcost {

ParameterSpace read_t4_results(const nlohmann::ordered_json& root, const std::string& path);
ParameterSpace read_kernel_tuner_cache(const nlohmann::ordered_json& root, const std::string& path);
ParameterSpace read_t1_space(const nlohmann::ordered_json& root, const std::string& path);

// Kernel Tuner leaves a cache file open while it runs (no closing "}\n}", a comma after the last
// entry): the text closed as Kernel Tuner's read_cache closes it, or unchanged when it is closed.
std::string closed_kernel_tuner_cache(const std::string& text);

// Adds `values` as a config of `space`, each value found in (or added to) its parameter's values;
// InputError naming `field` when the config is already in the space (`index` remembers them).
int32_t add_space_config(ParameterSpace& space, const std::vector<nlohmann::json>& values, std::unordered_map<std::string, int32_t>& index,
                         const std::string& field);

}  // namespace graphcost
