#include "lowering/run_lowered.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "common/input_error.h"

namespace graphcost {

namespace {

// Whether /proc/cpuinfo's flags name `flag` (false when it cannot be read).
bool cpu_has_flag(const std::string& flag) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream flags(line.substr(line.find(':') + 1));
    std::string name;
    while (flags >> name) {
      if (name == flag) return true;
    }
    return false;
  }
  return false;
}

}  // namespace

Halide::Target lowering_target() {
  static const Halide::Target chosen = [] {
    Halide::Target target = Halide::get_jit_target_from_environment().with_feature(Halide::Target::StrictFloat);
    // Halide 14 names every CPU with AVX512-BF16 Sapphire Rapids and has LLVM compile for that core
    // (-mcpu=sapphirerapids), which brings AVX512-FP16: on AMD's Zen 4 and 5 (BF16, no FP16) a bf16
    // value moved by `vmovw` died of SIGILL. Sapphire Rapids only where the CPU has FP16 too.
    if (target.has_feature(Halide::Target::AVX512_SapphireRapids) && !cpu_has_flag("avx512_fp16")) {
      target = target.without_feature(Halide::Target::AVX512_SapphireRapids);
    }
    return target;
  }();
  return chosen;
}

bool npy_dtype_of(std::string_view element_type, DType* dtype) {
  static const std::pair<std::string_view, DType> types[] = {{"pred", DType::Bool},   {"u8", DType::UInt8},   {"s8", DType::Int8},
                                                             {"s16", DType::Int16},   {"s32", DType::Int32},  {"s64", DType::Int64},
                                                             {"f32", DType::Float32}, {"f64", DType::Float64}};
  for (const auto& [name, type] : types) {
    if (name == element_type) {
      *dtype = type;
      return true;
    }
  }
  return false;
}

namespace {

// A buffer over `data` in the index convention of hlo_to_halide.h (Func argument k is dimension k),
// laid out in C order, or Fortran order.
Halide::Buffer<> wrap(const Halide::Type& type, void* data, const std::vector<int64_t>& dims, bool fortran_order) {
  std::vector<halide_dimension_t> shape(dims.size());
  int64_t stride = 1;
  for (size_t step = 0; step < dims.size(); ++step) {
    const size_t k = fortran_order ? step : dims.size() - 1 - step;
    shape[k] = halide_dimension_t(0, static_cast<int32_t>(dims[k]), static_cast<int32_t>(stride));
    stride *= dims[k];
  }
  return Halide::Buffer<>(type, data, static_cast<int>(dims.size()), shape.data());
}

template <typename T>
NpyArray array_of(const std::vector<int64_t>& dims, const std::vector<uint8_t>& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return NpyArray::from_values<T>(dims, values);
}

NpyArray to_array(DType dtype, const std::vector<int64_t>& dims, const std::vector<uint8_t>& bytes) {
  switch (dtype) {
    case DType::Bool: {
      std::vector<bool> values(bytes.size());
      for (size_t i = 0; i < bytes.size(); ++i) values[i] = bytes[i] != 0;
      return NpyArray::from_values<bool>(dims, values);
    }
    case DType::UInt8:
      return array_of<uint8_t>(dims, bytes);
    case DType::Int8:
      return array_of<int8_t>(dims, bytes);
    case DType::Int16:
      return array_of<int16_t>(dims, bytes);
    case DType::Int32:
      return array_of<int32_t>(dims, bytes);
    case DType::Int64:
      return array_of<int64_t>(dims, bytes);
    case DType::Float32:
      return array_of<float>(dims, bytes);
    default:
      return array_of<double>(dims, bytes);
  }
}

}  // namespace

std::vector<NpyArray> run_lowered(LoweredComputation& lowered, const std::vector<NpyArray>& inputs, const std::string& inputs_file) {
  if (inputs.size() != lowered.parameters.size()) {
    throw InputError(inputs_file, "arrays", std::to_string(lowered.parameters.size()) + " (param0, param1, ...)",
                     std::to_string(inputs.size()));
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    const HloShape& shape = lowered.parameter_shapes[k];
    const std::string field = "param" + std::to_string(k);
    DType dtype{};
    if (!npy_dtype_of(shape.element_type, &dtype)) {
      throw InputError(inputs_file, field, "a parameter type npz files hold (pred, u8, s8-s64, f32, f64)", std::string(shape.element_type));
    }
    if (inputs[k].dtype() != dtype) throw InputError(inputs_file, field, dtype_name(dtype), dtype_name(inputs[k].dtype()));
    if (inputs[k].shape() != shape.dims) throw InputError(inputs_file, field, shape_text(shape.dims), inputs[k].shape_text());
    lowered.parameters[k].set(
        wrap(lowered.parameters[k].type(), const_cast<uint8_t*>(inputs[k].data()), shape.dims, inputs[k].fortran_order()));
  }
  // One pipeline for all outputs of a rank (Halide realizes several outputs together only when
  // their dimensionality agrees): each kernel is JIT-compiled once, not once per output.
  std::vector<std::vector<uint8_t>> bytes(lowered.outputs.size());
  std::vector<DType> dtypes(lowered.outputs.size());
  std::map<size_t, std::vector<size_t>> by_rank;
  for (size_t k = 0; k < lowered.outputs.size(); ++k) {
    const HloShape& shape = lowered.output_shapes[k];
    if (!npy_dtype_of(shape.element_type, &dtypes[k])) {
      throw InputError(inputs_file, "out" + std::to_string(k), "an output type npz files hold (pred, u8, s8-s64, f32, f64)",
                       std::string(shape.element_type));
    }
    int64_t count = 1;
    for (const int64_t d : shape.dims) count *= d;
    bytes[k].resize(static_cast<size_t>(count) * dtype_size(dtypes[k]));
    by_rank[shape.dims.size()].push_back(k);
  }
  std::map<std::string, size_t> first;  // a Func that is several outputs (tuple(x, x)) is realized once
  for (const auto& [rank, members] : by_rank) {
    std::vector<Halide::Func> funcs;
    std::vector<Halide::Buffer<>> buffers;
    for (const size_t k : members) {
      if (!first.emplace(lowered.outputs[k].name(), k).second) continue;
      funcs.push_back(lowered.outputs[k]);
      buffers.push_back(wrap(lowered.outputs[k].output_types().at(0), bytes[k].data(), lowered.output_shapes[k].dims, false));
    }
    Halide::Realization realization(buffers);
    Halide::Pipeline(funcs).realize(realization, lowering_target());
  }
  for (size_t k = 0; k < lowered.outputs.size(); ++k) bytes[k] = bytes[first.at(lowered.outputs[k].name())];
  std::vector<NpyArray> outputs;
  for (size_t k = 0; k < lowered.outputs.size(); ++k) outputs.push_back(to_array(dtypes[k], lowered.output_shapes[k].dims, bytes[k]));
  return outputs;
}

namespace {

void fill_random(const Halide::Type& type, PageAlignedBytes& bytes, std::mt19937_64& random) {
  std::uniform_real_distribution<double> real(-1, 1);
  std::uniform_int_distribution<int> small(0, 3);
  const size_t size = static_cast<size_t>(type.bytes());
  for (size_t at = 0; at + size <= bytes.size(); at += size) {
    uint8_t* p = bytes.data() + at;
    if (type.is_bool()) {
      *p = static_cast<uint8_t>(small(random) & 1);
    } else if (type == Halide::Float(32)) {
      const float v = static_cast<float>(real(random));
      std::memcpy(p, &v, 4);
    } else if (type == Halide::Float(64)) {
      const double v = real(random);
      std::memcpy(p, &v, 8);
    } else if (type == Halide::Float(16)) {
      const Halide::float16_t v(real(random));
      std::memcpy(p, &v, 2);
    } else if (type == Halide::BFloat(16)) {
      const Halide::bfloat16_t v(real(random));
      std::memcpy(p, &v, 2);
    } else {
      std::memset(p, 0, size);
      *p = static_cast<uint8_t>(small(random));  // little-endian: the low byte
    }
  }
}

int64_t element_count(const HloShape& shape) {
  int64_t count = 1;
  for (const int64_t d : shape.dims) count *= d;
  return count;
}

}  // namespace

namespace {

// The outputs each pipeline computes (indices into lowered.outputs): one pipeline per output rank,
// as Halide realizes a pipeline's outputs over one domain; an output repeated in a root tuple once.
std::vector<std::vector<size_t>> pipeline_outputs(const LoweredComputation& lowered) {
  std::map<size_t, std::vector<size_t>> by_rank;
  for (size_t k = 0; k < lowered.outputs.size(); ++k) by_rank[lowered.output_shapes[k].dims.size()].push_back(k);
  std::vector<std::vector<size_t>> pipelines;
  std::map<std::string, bool> seen;
  for (const auto& [rank, members] : by_rank) {
    pipelines.emplace_back();
    for (const size_t k : members) {
      if (seen.emplace(lowered.outputs[k].name(), true).second) pipelines.back().push_back(k);
    }
    if (pipelines.back().empty()) pipelines.pop_back();
  }
  return pipelines;
}

}  // namespace

CompiledComputation::CompiledComputation(LoweredComputation& lowered, uint64_t seed) {
  std::mt19937_64 random(seed);
  storage_.reserve(lowered.parameters.size() + lowered.outputs.size());
  for (size_t k = 0; k < lowered.parameters.size(); ++k) {
    const Halide::Type type = lowered.parameters[k].type();
    storage_.emplace_back(static_cast<size_t>(element_count(lowered.parameter_shapes[k])) * static_cast<size_t>(type.bytes()));
    fill_random(type, storage_.back(), random);
    lowered.parameters[k].set(wrap(type, storage_.back().data(), lowered.parameter_shapes[k].dims, false));
  }
  first_output_ = storage_.size();
  for (const std::vector<size_t>& members : pipeline_outputs(lowered)) {
    std::vector<Halide::Func> funcs;
    std::vector<Halide::Buffer<>> buffers;
    for (const size_t k : members) {
      const Halide::Type type = lowered.outputs[k].output_types().at(0);
      storage_.emplace_back(static_cast<size_t>(element_count(lowered.output_shapes[k])) * static_cast<size_t>(type.bytes()));
      output_types_.push_back(type);
      funcs.push_back(lowered.outputs[k]);
      buffers.push_back(wrap(type, storage_.back().data(), lowered.output_shapes[k].dims, false));
    }
    pipelines_.emplace_back(funcs);
    pipelines_.back().compile_jit(lowering_target());
    outputs_.push_back(buffers);
  }
}

std::string lowered_statement(LoweredComputation& lowered) {
  std::vector<Halide::Argument> arguments(lowered.parameters.begin(), lowered.parameters.end());
  std::ostringstream text;
  for (const std::vector<size_t>& members : pipeline_outputs(lowered)) {
    std::vector<Halide::Func> funcs;
    for (const size_t k : members) funcs.push_back(lowered.outputs[k]);
    text << Halide::Pipeline(funcs).compile_to_module(arguments, "kernel", lowering_target());
  }
  return text.str();
}

std::vector<uint8_t> CompiledComputation::output_bytes() const {
  std::vector<uint8_t> bytes;
  for (size_t k = first_output_; k < storage_.size(); ++k) bytes.insert(bytes.end(), storage_[k].begin(), storage_[k].end());
  return bytes;
}

namespace {

double float_at(const Halide::Type& type, const uint8_t* p) {
  if (type == Halide::Float(32)) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (type == Halide::Float(64)) {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (type == Halide::Float(16)) {
    Halide::float16_t v;
    std::memcpy(&v, p, 2);
    return static_cast<double>(v);
  }
  Halide::bfloat16_t v;
  std::memcpy(&v, p, 2);
  return static_cast<double>(v);
}

}  // namespace

bool CompiledComputation::outputs_match(const std::vector<uint8_t>& reference, std::string* why) const {
  size_t at = 0;
  for (size_t k = first_output_; k < storage_.size(); ++k) {
    const PageAlignedBytes& bytes = storage_[k];
    const Halide::Type type = output_types_[k - first_output_];
    if (at + bytes.size() > reference.size()) return *why = "fewer reference bytes", false;
    if (!type.is_float()) {
      if (!std::equal(bytes.begin(), bytes.end(), reference.begin() + static_cast<std::ptrdiff_t>(at))) {
        return *why = "output " + std::to_string(k - first_output_) + " differs", false;
      }
    } else {
      // Relative to the output's largest value: a sum that cancels to near zero keeps the rounding
      // of its large terms, which another loop nest orders differently.
      const double tolerance = type.bits() < 32 ? 1e-2 : 1e-4;
      const size_t step = static_cast<size_t>(type.bytes());
      double scale = 1;
      for (size_t i = 0; i < bytes.size(); i += step) {
        const double b = std::abs(float_at(type, reference.data() + at + i));
        if (std::isfinite(b)) scale = std::max(scale, b);
      }
      for (size_t i = 0; i < bytes.size(); i += step) {
        const double a = float_at(type, bytes.data() + i), b = float_at(type, reference.data() + at + i);
        if (!(std::abs(a - b) <= tolerance * scale) && !(a == b) && !(std::isnan(a) && std::isnan(b))) {
          return *why = "output " + std::to_string(k - first_output_) + " differs: " + std::to_string(a) + " against " + std::to_string(b),
                 false;
        }
      }
    }
    at += bytes.size();
  }
  return true;
}

void CompiledComputation::run() {
  for (size_t p = 0; p < pipelines_.size(); ++p) {
    Halide::Realization realization(outputs_[p]);
    pipelines_[p].realize(realization, lowering_target());
  }
}

}  // namespace graphcost
