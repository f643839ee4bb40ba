#include "io/npy_array.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/input_error.h"
#include "common/internal_error.h"

namespace graphcost {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kHeaderAlignment = 64;

struct DTypeInfo {
  DType dtype;
  char kind;  // numpy kind: b u i f
  size_t size;
  const char* descr;
  const char* name;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::Bool, 'b', 1, "|b1", "bool"},       {DType::UInt8, 'u', 1, "|u1", "uint8"},     {DType::Int8, 'i', 1, "|i1", "int8"},
    {DType::Int16, 'i', 2, "<i2", "int16"},     {DType::Int32, 'i', 4, "<i4", "int32"},     {DType::Int64, 'i', 8, "<i8", "int64"},
    {DType::Float32, 'f', 4, "<f4", "float32"}, {DType::Float64, 'f', 8, "<f8", "float64"},
};

const DTypeInfo& info(DType dtype) { return kDTypes[static_cast<int>(dtype)]; }

std::string quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "'";
}

// A parser for the Python literal subset numpy writes in headers: a dict of string keys whose values
// are strings, True/False, or tuples of non-negative integers.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& name) : text_(text), name_(name) {}

  struct Value {
    enum Kind { String, Bool, Tuple, Integer } kind = Integer;
    std::string text;  // the string's content, or the literal as written
    bool flag = false;
    std::vector<int64_t> items;
  };

  std::vector<std::pair<std::string, Value>> parse_dict() {
    std::vector<std::pair<std::string, Value>> entries;
    skip_space();
    expect('{', "'{' opening the header dict");
    for (;;) {
      skip_space();
      if (peek() == '}') {
        ++pos_;
        break;
      }
      std::string key = parse_string("a quoted key");
      skip_space();
      expect(':', "':' after key " + quote(key));
      skip_space();
      entries.emplace_back(key, parse_value(key));
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_space();
      expect('}', "',' or '}' after the value of " + quote(key));
      break;
    }
    skip_space();
    if (pos_ != text_.size()) fail("header", "nothing after the dict but spaces", excerpt());
    return entries;
  }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& expected, const std::string& actual) const {
    throw InputError("", name_ + ": npy " + field, expected, actual);
  }
  std::string excerpt() const { return quote(text_.substr(pos_, 24)) + " at header offset " + std::to_string(pos_); }
  static std::string header_field(const std::string& key) { return "header " + quote(key); }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) ++pos_;
  }
  void expect(char c, const std::string& what) {
    if (peek() != c) fail("header", what, pos_ < text_.size() ? excerpt() : "end of header");
    ++pos_;
  }
  std::string parse_string(const std::string& what) {
    const char quote_char = peek();
    if (quote_char != '\'' && quote_char != '"') fail("header", what, excerpt());
    const size_t end = text_.find(quote_char, pos_ + 1);
    if (end == std::string::npos) fail("header", "a closing quote", "end of header");
    std::string value = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return value;
  }
  Value parse_value(const std::string& key) {
    Value value;
    const size_t start = pos_;
    const char c = peek();
    if (c == '\'' || c == '"') {
      value.kind = Value::String;
      value.text = parse_string("a string");
    } else if (text_.compare(pos_, 4, "True") == 0) {
      value.kind = Value::Bool;
      value.flag = true;
      pos_ += 4;
    } else if (text_.compare(pos_, 5, "False") == 0) {
      value.kind = Value::Bool;
      pos_ += 5;
    } else if (c == '(') {
      value.kind = Value::Tuple;
      ++pos_;
      for (;;) {
        skip_space();
        if (peek() == ')') {
          ++pos_;
          break;
        }
        value.items.push_back(parse_dimension(key));
        skip_space();
        if (peek() == ',') {
          ++pos_;
        } else if (peek() != ')') {
          fail(header_field(key), "',' or ')' in the tuple", excerpt());
        }
      }
    } else if (c == '[') {
      fail(header_field(key), "a simple dtype such as '<f4'", "a structured dtype (list of fields)");
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      parse_dimension(key);
    } else {
      fail(header_field(key), "a string, True/False, an integer or a tuple", excerpt());
    }
    if (value.kind != Value::String) value.text = text_.substr(start, pos_ - start);
    return value;
  }
  int64_t parse_dimension(const std::string& key) {
    const size_t start = pos_;
    if (!std::isdigit(static_cast<unsigned char>(peek()))) {
      fail(header_field(key), "a non-negative integer dimension", excerpt());
    }
    int64_t value = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      const int digit = text_[pos_] - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        fail(header_field(key), "a dimension below 2^63", quote(text_.substr(start, 24)));
      }
      value = value * 10 + digit;
      ++pos_;
    }
    if (peek() == 'L') ++pos_;  // Python 2 long literal
    return value;
  }

  const std::string& text_;
  const std::string& name_;
  size_t pos_ = 0;
};

DType parse_descr(const std::string& descr, const std::string& name) {
  const std::string field = name + ": npy header 'descr'";
  const std::string supported = "one of |b1 |u1 |i1 <i2 <i4 <i8 <f4 <f8";
  if (descr.size() >= 2 && (descr[1] == 'O' || descr[0] == 'O')) {
    throw InputError("", field, supported, quote(descr) + " (object arrays need unpickling, which graphcost refuses)");
  }
  if (descr.size() != 3) throw InputError("", field, supported, quote(descr));
  const char order = descr[0], kind = descr[1];
  const size_t size = static_cast<size_t>(descr[2] - '0');
  for (const DTypeInfo& candidate : kDTypes) {
    if (candidate.kind != kind || candidate.size != size) continue;
    if (size > 1 && order == '>') {
      throw InputError("", field, "little-endian data ('<')",
                       quote(descr) + " (big-endian; convert with arr.astype('" + std::string(candidate.descr) + "'))");
    }
    if (size > 1 && order != '<' && order != '=') throw InputError("", field, supported, quote(descr));
    return candidate.dtype;
  }
  throw InputError("", field, supported, quote(descr) + " (unsupported dtype)");
}

bool checked_multiply(int64_t a, int64_t b, int64_t& out) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) return false;
  out = a * b;
  return true;
}

// Reads element `index` of raw little-endian data as Source.
template <typename Source>
Source load(const uint8_t* data, size_t index) {
  Source value;
  std::memcpy(&value, data + index * sizeof(Source), sizeof(Source));
  return value;
}

template <typename Target, typename Source>
bool convert(Source value, Target& out) {
  if constexpr (std::is_same_v<Target, bool>) {
    out = value != Source(0);
    return value == Source(0) || value == Source(1);
  } else if constexpr (std::is_floating_point_v<Target> && std::is_floating_point_v<Source>) {
    if (std::isfinite(value) && std::fabs(static_cast<double>(value)) > static_cast<double>(std::numeric_limits<Target>::max())) {
      return false;
    }
    out = static_cast<Target>(value);
    return true;
  } else if constexpr (std::is_floating_point_v<Target>) {  // integer -> float
    out = static_cast<Target>(value);
    // Compare in double without casting back to Source: the rounded value may not fit it (e.g.
    // INT64_MAX rounds up to 2^63).
    const double rounded = static_cast<double>(out);
    if (!(rounded < std::ldexp(1.0, std::numeric_limits<Source>::digits))) return false;
    if (!(rounded >= static_cast<double>(std::numeric_limits<Source>::min()))) return false;
    return static_cast<Source>(rounded) == value;
  } else if constexpr (std::is_floating_point_v<Source>) {  // float -> integer
    if (!(value >= static_cast<Source>(std::numeric_limits<Target>::min()) &&
          value <= static_cast<Source>(std::numeric_limits<Target>::max())) ||
        std::trunc(value) != value) {
      return false;
    }
    // Exactly representable bounds: guard the top edge where max() rounds up (e.g. int64 in double).
    if (value >= std::ldexp(Source(1), std::numeric_limits<Target>::digits)) return false;
    out = static_cast<Target>(value);
    return true;
  } else {  // integer -> integer
    if constexpr (std::is_signed_v<Source> && !std::is_signed_v<Target>) {
      if (value < 0) return false;
    }
    out = static_cast<Target>(value);
    return static_cast<Source>(out) == value && ((out < Target(0)) == (value < Source(0)));
  }
}

template <typename Target, typename Source>
void convert_all(const uint8_t* data, const std::vector<size_t>& order, size_t count, std::vector<Target>& out, const std::string& file,
                 const std::string& field) {
  for (size_t i = 0; i < count; ++i) {
    const size_t source_index = order.empty() ? i : order[i];
    const Source value = load<Source>(data, source_index);
    if (!convert(value, out[i])) {
      throw InputError(file, field, std::string("values representable as ") + dtype_name(dtype_of<Target>()),
                       "value " + std::to_string(value) + " at flat index " + std::to_string(i));
    }
  }
}

// Flat source index, in the array's stored order, of each C-order element. Empty for C order.
std::vector<size_t> c_order_permutation(const std::vector<int64_t>& shape, bool fortran_order, size_t count) {
  std::vector<size_t> order;
  if (!fortran_order || shape.size() < 2 || count == 0) return order;
  const size_t rank = shape.size();
  std::vector<size_t> fortran_stride(rank, 1);
  for (size_t k = 1; k < rank; ++k) fortran_stride[k] = fortran_stride[k - 1] * shape[k - 1];
  std::vector<int64_t> index(rank, 0);
  order.resize(count);
  size_t source = 0;
  for (size_t i = 0; i < count; ++i) {
    order[i] = source;
    for (size_t k = rank; k-- > 0;) {  // odometer: last index fastest
      if (++index[k] < shape[k]) {
        source += fortran_stride[k];
        break;
      }
      source -= fortran_stride[k] * (shape[k] - 1);
      index[k] = 0;
    }
  }
  return order;
}

}  // namespace

const char* dtype_name(DType dtype) { return info(dtype).name; }
const char* dtype_descr(DType dtype) { return info(dtype).descr; }
size_t dtype_size(DType dtype) { return info(dtype).size; }

template <>
DType dtype_of<bool>() {
  return DType::Bool;
}
template <>
DType dtype_of<uint8_t>() {
  return DType::UInt8;
}
template <>
DType dtype_of<int8_t>() {
  return DType::Int8;
}
template <>
DType dtype_of<int16_t>() {
  return DType::Int16;
}
template <>
DType dtype_of<int32_t>() {
  return DType::Int32;
}
template <>
DType dtype_of<int64_t>() {
  return DType::Int64;
}
template <>
DType dtype_of<float>() {
  return DType::Float32;
}
template <>
DType dtype_of<double>() {
  return DType::Float64;
}

int64_t NpyArray::element_count() const {
  int64_t count = 1;
  for (int64_t dim : shape_) count *= dim;  // checked at parse / construction
  return count;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t k = 0; k < shape.size(); ++k) {
    if (k > 0) text += ", ";
    text += std::to_string(shape[k]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

std::string NpyArray::shape_text() const { return graphcost::shape_text(shape_); }

NpyArray NpyArray::parse(const std::vector<uint8_t>& bytes, const std::string& name) {
  return parse(ByteBuffer(bytes.data(), bytes.size()), name);
}

size_t NpyArray::header_bytes_needed(const uint8_t* bytes, size_t size) {
  if (size < 12 || std::memcmp(bytes, kMagic, kMagicSize) != 0) return 0;
  if (bytes[6] == 1) return 10 + (bytes[8] | (bytes[9] << 8));
  return 12 + (static_cast<size_t>(bytes[8]) | (static_cast<size_t>(bytes[9]) << 8) | (static_cast<size_t>(bytes[10]) << 16) |
               (static_cast<size_t>(bytes[11]) << 24));
}

NpyHeader NpyArray::parse_header(const uint8_t* bytes, size_t size, const std::string& name) {
  const std::string prefix = name + ": npy ";
  if (size < kMagicSize + 4 || std::memcmp(bytes, kMagic, kMagicSize) != 0) {
    throw InputError("", prefix + "magic", "\\x93NUMPY followed by a version",
                     size < kMagicSize + 4 ? std::to_string(size) + " bytes" : quote(std::string(bytes, bytes + kMagicSize)));
  }
  const int major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3 || minor != 0) {
    throw InputError("", prefix + "version", "1.0, 2.0 or 3.0", std::to_string(major) + "." + std::to_string(minor));
  }
  size_t header_size, header_start;
  if (major == 1) {
    header_size = bytes[8] | (bytes[9] << 8);
    header_start = 10;
  } else {
    if (size < 12) throw InputError("", prefix + "header length", "4 bytes", "end of data");
    header_size = static_cast<size_t>(bytes[8]) | (static_cast<size_t>(bytes[9]) << 8) | (static_cast<size_t>(bytes[10]) << 16) |
                  (static_cast<size_t>(bytes[11]) << 24);
    header_start = 12;
  }
  if (header_size > kMaxHeaderBytes) {
    throw InputError("", prefix + "header length", "at most " + std::to_string(kMaxHeaderBytes) + " bytes", std::to_string(header_size));
  }
  if (header_size > size - header_start) {
    throw InputError("", prefix + "header length", "at most the " + std::to_string(size - header_start) + " bytes present",
                     std::to_string(header_size));
  }
  const std::string text(bytes + header_start, bytes + header_start + header_size);
  const auto entries = HeaderParser(text, name).parse_dict();

  NpyHeader header;
  bool has_descr = false, has_order = false, has_shape = false;
  for (const auto& [key, value] : entries) {
    const std::string field = prefix + "header " + quote(key);
    if (key == "descr") {
      if (value.kind != HeaderParser::Value::String) throw InputError("", field, "a string", value.text);
      header.dtype = parse_descr(value.text, name);
      has_descr = true;
    } else if (key == "fortran_order") {
      if (value.kind != HeaderParser::Value::Bool) throw InputError("", field, "True or False", value.text);
      header.fortran_order = value.flag;
      has_order = true;
    } else if (key == "shape") {
      if (value.kind != HeaderParser::Value::Tuple) throw InputError("", field, "a tuple", value.text);
      header.shape = value.items;
      has_shape = true;
    } else {
      throw InputError("", prefix + "header", "only the keys 'descr', 'fortran_order', 'shape'", "key " + quote(key));
    }
  }
  if (!has_descr || !has_order || !has_shape) {
    throw InputError("", prefix + "header", "the keys 'descr', 'fortran_order' and 'shape'",
                     std::string("missing ") + (!has_descr   ? "'descr'"
                                                : !has_order ? "'fortran_order'"
                                                             : "'shape'"));
  }
  int64_t count = 1;
  for (int64_t dim : header.shape) {
    if (!checked_multiply(count, dim, count)) {
      throw InputError("", prefix + "header 'shape'", "an element count below 2^63", graphcost::shape_text(header.shape));
    }
  }
  int64_t data_bytes = 0;
  if (!checked_multiply(count, static_cast<int64_t>(dtype_size(header.dtype)), data_bytes)) {
    throw InputError("", prefix + "header 'shape'", "a size below 2^63 bytes",
                     graphcost::shape_text(header.shape) + " of " + dtype_name(header.dtype));
  }
  header.data_offset = header_start + header_size;
  header.data_bytes = static_cast<uint64_t>(data_bytes);
  return header;
}

NpyArray NpyArray::parse(ByteBuffer buffer, const std::string& name) {
  const NpyHeader header = parse_header(buffer.data(), buffer.size(), name);
  NpyArray array;
  array.dtype_ = header.dtype;
  array.shape_ = header.shape;
  array.fortran_order_ = header.fortran_order;
  const size_t size = buffer.size();
  if (header.data_bytes != size - header.data_offset) {
    throw InputError("", name + ": npy data",
                     std::to_string(array.element_count()) + " elements of " + dtype_name(array.dtype_) + " for shape " +
                         array.shape_text() + " (" + std::to_string(header.data_bytes) + " bytes)",
                     std::to_string(size - header.data_offset) + " bytes of data");
  }
  array.storage_ = std::move(buffer);
  array.data_offset_ = header.data_offset;
  return array;
}

NpyArray NpyArray::with_room(DType dtype, std::vector<int64_t> shape, size_t count, bool fortran_order) {
  NpyArray array;
  array.dtype_ = dtype;
  array.shape_ = std::move(shape);
  array.fortran_order_ = fortran_order;
  if (array.element_count() != static_cast<int64_t>(count)) {
    throw InternalError("NpyArray: shape " + array.shape_text() + " needs " + std::to_string(array.element_count()) + " values, got " +
                        std::to_string(count));
  }
  array.storage_.resize(count * dtype_size(dtype));
  return array;
}

template <typename T>
NpyArray NpyArray::from_values(std::vector<int64_t> shape, const std::vector<T>& values, bool fortran_order) {
  NpyArray array = with_room(dtype_of<T>(), std::move(shape), values.size(), fortran_order);
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < values.size(); ++i) array.storage_.data()[i] = values[i] ? 1 : 0;
  } else if (!values.empty()) {
    std::memcpy(array.storage_.data(), values.data(), array.storage_.size());
  }
  return array;
}

template <typename T, typename Source>
NpyArray NpyArray::from_converted_values(std::vector<int64_t> shape, const std::vector<Source>& values, bool fortran_order) {
  NpyArray array = with_room(dtype_of<T>(), std::move(shape), values.size(), fortran_order);
  T* out = reinterpret_cast<T*>(array.storage_.data());
  for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<T>(values[i]);
  return array;
}
template NpyArray NpyArray::from_converted_values<float, int8_t>(std::vector<int64_t>, const std::vector<int8_t>&, bool);

template <typename T>
std::vector<T> NpyArray::to_vector(const std::string& file, const std::string& field) const {
  const size_t count = static_cast<size_t>(element_count());
  std::vector<T> out(count);
  const std::vector<size_t> order = c_order_permutation(shape_, fortran_order_, count);
  if (dtype_ == dtype_of<T>() && order.empty() && !std::is_same_v<T, bool>) {
    if (count > 0) std::memcpy(static_cast<void*>(out.data()), data(), count * sizeof(T));
    return out;
  }
  switch (dtype_) {
    case DType::Bool:
      convert_all<T, uint8_t>(data(), order, count, out, file, field);
      break;
    case DType::UInt8:
      convert_all<T, uint8_t>(data(), order, count, out, file, field);
      break;
    case DType::Int8:
      convert_all<T, int8_t>(data(), order, count, out, file, field);
      break;
    case DType::Int16:
      convert_all<T, int16_t>(data(), order, count, out, file, field);
      break;
    case DType::Int32:
      convert_all<T, int32_t>(data(), order, count, out, file, field);
      break;
    case DType::Int64:
      convert_all<T, int64_t>(data(), order, count, out, file, field);
      break;
    case DType::Float32:
      convert_all<T, float>(data(), order, count, out, file, field);
      break;
    case DType::Float64:
      convert_all<T, double>(data(), order, count, out, file, field);
      break;
  }
  return out;
}

std::vector<uint8_t> NpyArray::header_bytes() const { return header_for(dtype_, shape_, fortran_order_); }

std::vector<uint8_t> NpyArray::header_for(DType dtype, const std::vector<int64_t>& shape, bool fortran_order, size_t at_least) {
  std::string dict = std::string("{'descr': '") + dtype_descr(dtype) + "', 'fortran_order': " + (fortran_order ? "True" : "False") +
                     ", 'shape': " + graphcost::shape_text(shape) + ", }";
  const size_t prefix_v1 = kMagicSize + 2 + 2;
  const bool version2 = prefix_v1 + std::max(dict.size() + 1, at_least) > 0xFFFF;
  const size_t prefix = version2 ? kMagicSize + 2 + 4 : prefix_v1;
  const size_t wanted = std::max(prefix + dict.size() + 1, at_least);
  const size_t total = (wanted + kHeaderAlignment - 1) / kHeaderAlignment * kHeaderAlignment;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict.push_back('\n');
  std::vector<uint8_t> out(kMagic, kMagic + kMagicSize);
  out.push_back(version2 ? 2 : 1);
  out.push_back(0);
  const size_t length = dict.size();
  out.push_back(static_cast<uint8_t>(length));
  out.push_back(static_cast<uint8_t>(length >> 8));
  if (version2) {
    out.push_back(static_cast<uint8_t>(length >> 16));
    out.push_back(static_cast<uint8_t>(length >> 24));
  }
  out.insert(out.end(), dict.begin(), dict.end());
  return out;
}

template NpyArray NpyArray::from_values<bool>(std::vector<int64_t>, const std::vector<bool>&, bool);
#define GRAPHCOST_NPY_INSTANTIATE(T)                                                             \
  template NpyArray NpyArray::from_values<T>(std::vector<int64_t>, const std::vector<T>&, bool); \
  template std::vector<T> NpyArray::to_vector<T>(const std::string&, const std::string&) const;
GRAPHCOST_NPY_INSTANTIATE(uint8_t)
GRAPHCOST_NPY_INSTANTIATE(int8_t)
GRAPHCOST_NPY_INSTANTIATE(int16_t)
GRAPHCOST_NPY_INSTANTIATE(int32_t)
GRAPHCOST_NPY_INSTANTIATE(int64_t)
GRAPHCOST_NPY_INSTANTIATE(float)
GRAPHCOST_NPY_INSTANTIATE(double)
#undef GRAPHCOST_NPY_INSTANTIATE

}  // namespace graphcost
