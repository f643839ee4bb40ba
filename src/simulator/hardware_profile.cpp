#include "simulator/hardware_profile.h"

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
      {"mxu_dim", nullptr, &HardwareModel::mxu_dim, 0, true, 4096},
      {"mxu_flops_int8", &HardwareModel::mxu_flops_int8, nullptr, 0, true, INFINITY},
      {"mxu_efficiency", &HardwareModel::mxu_efficiency, nullptr, 0, false, 1},
      {"hbm_efficiency", &HardwareModel::hbm_efficiency, nullptr, 0, false, 1},
      {"overlap_share", &HardwareModel::overlap_share, nullptr, 0, true, 1},
      {"resident_read_speedup", &HardwareModel::resident_read_speedup, nullptr, 1, true, INFINITY},
      {"resident_share", &HardwareModel::resident_share, nullptr, 0, true, 1},
      {"launch_seconds", &HardwareModel::launch_seconds, nullptr, 0, true, INFINITY},
  };
  return all;
}

// Fitted on the v5e rows (see tpu_profile).
constexpr double kFittedMxuEfficiency = 0.9781, kFittedHbmEfficiency = 0.8359, kFittedOverlapShare = 0.25,
                 kFittedResidentReadSpeedup = 2.5156;

std::string range_text(const Field& f) {
  std::ostringstream text;
  text << (f.whole != nullptr ? "a whole number in " : "a number in ") << (f.low_inclusive ? "[" : "(") << f.low << ", "
       << (std::isinf(f.high) ? "inf)" : std::to_string(static_cast<int>(f.high)) + "]");
  return text.str();
}

// TPU v5e and v6e: the published constants (jax's tpu_info.py, as ../shared/data/tpu-gemm/v5e.yaml
// and v6e.yaml give them) and each chip's measured launch floor (runs.json); the efficiencies are
// fitted on the 450 v5e GEMMs only (`graphcost simulate --gemm measurements_v5e.csv --hardware
// tpu-v5e --fit`, docs/simulator.md) and carried to v6e unchanged. Other constants stay nominal.
HardwareModel tpu_profile(bool v6e) {
  HardwareModel h;
  h.mxu_flops_bf16 = v6e ? 9.20e14 : 1.97e14;
  h.mxu_flops_int8 = v6e ? 1.84e15 : 3.94e14;
  h.hbm_bytes_per_second = v6e ? 1.64e12 : 8.20e11;
  h.mxu_dim = v6e ? 256 : 128;
  h.vmem_bytes = 134217728;
  h.launch_seconds = v6e ? 1.1873000001116907e-4 : 1.0555999999439791e-4;
  h.lanes = 128;
  h.sublanes = 8;
  h.mxu_efficiency = kFittedMxuEfficiency;
  h.hbm_efficiency = kFittedHbmEfficiency;
  h.overlap_share = kFittedOverlapShare;
  h.resident_read_speedup = kFittedResidentReadSpeedup;
  h.resident_share = 0.9;
  return h;
}

}  // namespace

const std::vector<std::string>& hardware_profile_names() {
  static const std::vector<std::string> names = {"nominal", "tpu-v5e", "tpu-v6e"};
  return names;
}

HardwareModel hardware_profile(const std::string& name_or_path) {
  HardwareModel hardware;
  if (name_or_path == "nominal") return hardware;
  if (name_or_path == "tpu-v5e" || name_or_path == "tpu-v6e") return tpu_profile(name_or_path == "tpu-v6e");
  std::ifstream in(name_or_path, std::ios::binary);
  if (!in) throw InputError(name_or_path, "hardware profile", "\"nominal\" or a readable JSON file", "no such file");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (bytes.str().size() > (1 << 20))
    throw InputError(name_or_path, "hardware profile", "a JSON file of at most 1 MiB", std::to_string(bytes.str().size()) + " bytes");
  const nlohmann::json profile = nlohmann::json::parse(bytes.str(), nullptr, false);
  if (profile.is_discarded() || !profile.is_object())
    throw InputError(name_or_path, "hardware profile", "a JSON object of {\"field\": number}", "not one");
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
    const bool in_range = std::isfinite(number) && (field->low_inclusive ? number >= field->low : number > field->low) &&
                          number <= field->high && (field->whole == nullptr || number == std::floor(number));
    if (!in_range) throw InputError(name_or_path, "field '" + key + "'", range_text(*field), printable(value.dump()));
    if (field->whole != nullptr) hardware.*(field->whole) = static_cast<int>(number);
    else hardware.*(field->real) = number;
  }
  return hardware;
}

nlohmann::json hardware_profile_json(const HardwareModel& hardware) {
  nlohmann::json out = nlohmann::json::object();
  for (const Field& f : fields())
    out[f.name] = f.whole != nullptr ? nlohmann::json(hardware.*(f.whole)) : nlohmann::json(hardware.*(f.real));
  return out;
}

}  // namespace graphcost
