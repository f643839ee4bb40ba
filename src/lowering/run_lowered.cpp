#include "lowering/run_lowered.h"

#include <cstring>
#include <map>

#include "common/input_error.h"

namespace graphcost {

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
    Halide::Pipeline(funcs).realize(realization);
  }
  for (size_t k = 0; k < lowered.outputs.size(); ++k) bytes[k] = bytes[first.at(lowered.outputs[k].name())];
  std::vector<NpyArray> outputs;
  for (size_t k = 0; k < lowered.outputs.size(); ++k) outputs.push_back(to_array(dtypes[k], lowered.output_shapes[k].dims, bytes[k]));
  return outputs;
}

}  // namespace graphcost
