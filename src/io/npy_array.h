// NpyArray: one array in numpy's .npy format (versions 1.0, 2.0 and 3.0).
//
// .npy layout: "\x93NUMPY", major, minor, header length (u16 for v1, u32 for v2/v3), then an ASCII
// (v3: UTF-8) Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (n, 140), }
// padded with spaces and '\n', then the raw little-endian data in C or Fortran order.
//
// Supported dtypes: |b1 |u1 |i1 <i2 <i4 <i8 <f4 <f8, any rank (0-d included), either order.
// Refused with an InputError naming the header key: big-endian data, object/pickled arrays (never
// unpickled), structured and other dtypes, shapes whose size disagrees with the bytes present.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/byte_buffer.h"

namespace graphcost {

enum class DType : uint8_t { Bool, UInt8, Int8, Int16, Int32, Int64, Float32, Float64 };

const char* dtype_name(DType dtype);   // numpy's name: "float32", "int64", "bool", ...
const char* dtype_descr(DType dtype);  // the header descr: "<f4", "|u1", ...
size_t dtype_size(DType dtype);        // bytes per element

template <typename T>
DType dtype_of();  // DType for bool, uint8_t, int8_t, int16_t, int32_t, int64_t, float, double

// "(21918, 140)", "(3,)": a shape as numpy prints it.
std::string shape_text(const std::vector<int64_t>& shape);

// What a .npy header declares: enough to know an array's size before any of its data is read.
struct NpyHeader {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  bool fortran_order = false;
  size_t data_offset = 0;   // bytes of magic, version, length and dict before the data
  uint64_t data_bytes = 0;  // element count x dtype size (checked for overflow)
  uint64_t total_bytes() const { return data_offset + data_bytes; }
};

class NpyArray {
 public:
  NpyArray() = default;

  // Parses the header at the start of `bytes` (a prefix of a .npy file suffices: kMaxHeaderBytes
  // more than the header is never needed). Throws InputError naming `name` and the header field.
  static NpyHeader parse_header(const uint8_t* bytes, size_t size, const std::string& name);
  // How many leading bytes hold the whole header, from the first 12 (0 when they are too few or
  // not an npy start: parse_header then says what is wrong).
  static size_t header_bytes_needed(const uint8_t* bytes, size_t size);
  // Headers longer than this are refused (numpy's own reader refuses those over 10,000 bytes).
  static constexpr size_t kMaxHeaderBytes = 1u << 20;

  // Parses a whole .npy file or zip member; `name` labels errors (e.g. "node_feat.npy").
  // Takes ownership of the bytes: the data is not copied.
  static NpyArray parse(ByteBuffer npy_bytes, const std::string& name);
  static NpyArray parse(const std::vector<uint8_t>& npy_bytes, const std::string& name);

  // Builds an array from `values` laid out in the given order.
  template <typename T>
  static NpyArray from_values(std::vector<int64_t> shape, const std::vector<T>& values, bool fortran_order = false);
  // The same with each value converted to T on the way (no converted copy of `values` is made).
  // Instantiated for <float, int8_t> (layout configs are int8 in memory, float32 in files).
  template <typename T, typename Source>
  static NpyArray from_converted_values(std::vector<int64_t> shape, const std::vector<Source>& values, bool fortran_order = false);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  bool fortran_order() const { return fortran_order_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t element_count() const;
  std::string shape_text() const;  // "(21918, 140)", as numpy prints it

  // Raw element bytes in the array's own order.
  const uint8_t* data() const { return storage_.data() + data_offset_; }
  size_t byte_size() const { return storage_.size() - data_offset_; }

  // All elements in C (row-major) order, converted to T. Conversions must be lossless (integers
  // range-checked, integer-valued floats only into integers), except float64 -> float32, which rounds
  // to nearest but refuses values outside float32's range. Throws InputError(field = `field`).
  // T is not bool (read |b1 as uint8_t).
  template <typename T>
  std::vector<T> to_vector(const std::string& file, const std::string& field) const;

  // The .npy header (magic, version, padded dict) that precedes data() when written.
  std::vector<uint8_t> header_bytes() const;
  // The header of an array of this type and shape, padded to at least `at_least` bytes (a file
  // whose row count is known only at its end writes one of a fixed size, then replaces it).
  static std::vector<uint8_t> header_for(DType dtype, const std::vector<int64_t>& shape, bool fortran_order, size_t at_least = 0);

 private:
  // An array of `dtype` and `shape` with room for its `count` elements (InternalError when the
  // shape holds another count), the values still to be written.
  static NpyArray with_room(DType dtype, std::vector<int64_t> shape, size_t count, bool fortran_order);
  DType dtype_ = DType::Float32;
  std::vector<int64_t> shape_;
  bool fortran_order_ = false;
  ByteBuffer storage_;
  size_t data_offset_ = 0;
};

}  // namespace graphcost
