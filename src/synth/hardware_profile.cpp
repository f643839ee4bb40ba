#include "synth/hardware_profile.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "common/input_error.h"

namespace graphcost {
namespace {

struct Field {
  const char* name;
  double HardwareModel::*real;
  int HardwareModel::*whole;
  double low;
  bool low_inclusive;
  double high;
};

// Each constant with its valid range.
const std::vector<Field>& fields() {
  static const std::vector<Field> all = {
      {"mxu_flops_bf16", &HardwareModel::mxu_flops_bf16, nullptr, 0, false, INFINITY},
      {"mxu_f32_slowdown", &HardwareModel::mxu_f32_slowdown, nullptr, 1, true, INFINITY},
      {"vector_flops", &HardwareModel::vector_flops, nullptr, 0, false, INFINITY},
      {"hbm_bytes_per_second", &HardwareModel::hbm_bytes_per_second, nullptr, 0, false, INFINITY},
      {"op_overhead_seconds", &HardwareModel::op_overhead_seconds, nullptr, 0, true, INFINITY},
      {"copy_slowdown", &HardwareModel::copy_slowdown, nullptr, 0, true, INFINITY},
      {"copy_share", &HardwareModel::copy_share, nullptr, 0, true, 1},
      {"lanes", nullptr, &HardwareModel::lanes, 1, true, 4096},
      {"sublanes", nullptr, &HardwareModel::sublanes, 1, true, 4096},
      {"mxu_input_efficiency", &HardwareModel::mxu_input_efficiency, nullptr, 0, false, 1},
      {"mxu_kernel_efficiency", &HardwareModel::mxu_kernel_efficiency, nullptr, 0, false, 1},
      {"mxu_output_efficiency", &HardwareModel::mxu_output_efficiency, nullptr, 0, false, 1},
      {"tile_overhead_seconds", &HardwareModel::tile_overhead_seconds, nullptr, 0, true, INFINITY},
      {"vmem_bytes", &HardwareModel::vmem_bytes, nullptr, 0, false, INFINITY},
      {"spill_slowdown", &HardwareModel::spill_slowdown, nullptr, 1, true, INFINITY},
  };
  return all;
}

std::string range_text(const Field& f) {
  std::ostringstream text;
  text << (f.whole != nullptr ? "a whole number in " : "a number in ") << (f.low_inclusive ? "[" : "(") << f.low << ", "
       << (std::isinf(f.high) ? "inf)" : std::to_string(static_cast<int>(f.high)) + "]");
  return text.str();
}

}  // namespace

HardwareModel hardware_profile(const std::string& name_or_path) {
  HardwareModel hardware;
  if (name_or_path == "nominal") return hardware;
  std::ifstream in(name_or_path, std::ios::binary);
  if (!in) throw InputError(name_or_path, "hardware profile", "\"nominal\" or a readable JSON file", "no such file");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (bytes.str().size() > (1 << 20)) throw InputError(name_or_path, "hardware profile", "a JSON file of at most 1 MiB", std::to_string(bytes.str().size()) + " bytes");
  const nlohmann::json profile = nlohmann::json::parse(bytes.str(), nullptr, false);
  if (profile.is_discarded() || !profile.is_object()) throw InputError(name_or_path, "hardware profile", "a JSON object of {\"field\": number}", "not one");
  for (const auto& [key, value] : profile.items()) {
    const Field* field = nullptr;
    for (const Field& f : fields())
      if (key == f.name) field = &f;
    if (field == nullptr) {
      std::string names;
      for (const Field& f : fields()) names += std::string(names.empty() ? "" : ", ") + f.name;
      throw InputError(name_or_path, "field '" + printable(key) + "'", "one of " + names, "an unknown field");
    }
    const double number = value.is_number() ? value.get<double>() : NAN;
    const bool in_range = std::isfinite(number) && (field->low_inclusive ? number >= field->low : number > field->low) && number <= field->high &&
                          (field->whole == nullptr || number == std::floor(number));
    if (!in_range) throw InputError(name_or_path, "field '" + key + "'", range_text(*field), printable(value.dump()));
    if (field->whole != nullptr) hardware.*(field->whole) = static_cast<int>(number);
    else hardware.*(field->real) = number;
  }
  return hardware;
}

nlohmann::json hardware_profile_json(const HardwareModel& hardware) {
  nlohmann::json out = nlohmann::json::object();
  for (const Field& f : fields()) out[f.name] = f.whole != nullptr ? nlohmann::json(hardware.*(f.whole)) : nlohmann::json(hardware.*(f.real));
  return out;
}

}  // namespace graphcost
