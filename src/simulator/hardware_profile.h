// Named sets of the cost simulator's constants (simulator/cost_simulator.h: HardwareModel), so a
// simulator change can be measured against the constants it replaces (`graphcost simulate
// --hardware`, docs/generated-vs-real.md). "nominal" is the stated TPU v4-class model the generator
// labels with; "tpu-v5e" and "tpu-v6e" are the chips' published constants with the matrix unit
// priced as measured TPU timings show it (simulator/gemm_model.h); any other value is a JSON file of
// {"field": number} overriding nominal's fields.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulator/cost_simulator.h"

namespace graphcost {

// InputError naming the file and the field for unknown fields, non-numbers and out-of-range values
// (rates and sizes must be positive, shares and efficiencies in (0, 1] or [0, 1]).
HardwareModel hardware_profile(const std::string& name_or_path);
const std::vector<std::string>& hardware_profile_names();
// Every field by name, as a profile file holds them.
nlohmann::json hardware_profile_json(const HardwareModel& hardware);

}  // namespace graphcost
