// What a measuring child process sends back to the protocol (measure_configs.h): 'I' and an
// InputError's four fields (the module does not lower), or 'M' and the measurement (its failure,
// compile seconds, timed runs, minima and references), then the reference outputs when the child
// set them.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "lowering/measure_configs.h"

namespace graphcost {

// The bytes a measuring child sends its parent (isolated_call.h): kinds, texts, numbers and vectors
// of plain values, each read back in the order written; a message cut short is an InternalError.
class Message {
 public:
  Message() = default;
  explicit Message(std::string bytes) : bytes_(std::move(bytes)) {}
  const std::string& bytes() const { return bytes_; }

  void put_kind(char kind) { bytes_.push_back(kind); }
  void put_text(const std::string& text) { put_bytes(text.data(), text.size()); }
  void put_number(double value) { bytes_.append(reinterpret_cast<const char*>(&value), sizeof value); }
  template <typename Vector>
  void put_values(const Vector& values) {
    put_bytes(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(values[0]));
  }

  char kind() { return take(1)[0]; }
  std::string text() {
    const size_t n = size();
    return std::string(take(n), n);
  }
  double number() {
    double value = 0;
    std::memcpy(&value, take(sizeof value), sizeof value);
    return value;
  }
  template <typename Vector>
  void values(Vector& values) {
    const size_t bytes = size();
    const char* from = take(bytes);  // first: a length past the message throws before anything is allocated
    values.resize(bytes / sizeof(values[0]));
    if (bytes > 0) std::memcpy(values.data(), from, bytes);  // an empty vector's data() may be null
  }

 private:
  void put_bytes(const char* data, size_t size) {
    const uint64_t n = size;
    bytes_.append(reinterpret_cast<const char*>(&n), sizeof n);
    if (size > 0) bytes_.append(data, size);  // an empty vector's data() may be null
  }
  size_t size() {
    uint64_t n = 0;
    std::memcpy(&n, take(sizeof n), sizeof n);
    return static_cast<size_t>(n);
  }
  const char* take(size_t size) {
    if (size > bytes_.size() - at_) throw InternalError("a measuring process's result is cut short");
    at_ += size;
    return bytes_.data() + at_ - size;
  }
  std::string bytes_;
  size_t at_ = 0;
};

// An InputError as a child's whole answer ('I').
inline std::string input_error_message(const InputError& error) {
  Message out;
  out.put_kind('I');
  for (const std::string* field : {&error.file(), &error.field(), &error.expected(), &error.actual()}) out.put_text(*field);
  return out.bytes();
}

inline void put_measurement(Message& out, const ConfigMeasurement& measured) {
  out.put_text(measured.failure);
  out.put_number(measured.compile_seconds);
  out.put_values(measured.seconds);
  out.put_values(measured.pass_minimum);
  out.put_values(measured.batch_reference);
}

// Appends what put_measurement wrote to `result` (compile seconds added, runs and minima appended).
inline void take_measurement(Message& in, ConfigMeasurement& result) {
  result.failure = in.text();
  result.compile_seconds += in.number();
  std::vector<double> seconds, minima, references;
  in.values(seconds);
  in.values(minima);
  in.values(references);
  result.seconds.insert(result.seconds.end(), seconds.begin(), seconds.end());
  result.pass_minimum.insert(result.pass_minimum.end(), minima.begin(), minima.end());
  result.batch_reference.insert(result.batch_reference.end(), references.begin(), references.end());
}

// Reads the kind; throws the InputError an 'I' message carries.
inline char take_kind(Message& in) {
  const char kind = in.kind();
  if (kind == 'I') {
    std::string fields[4];
    for (std::string& field : fields) field = in.text();
    throw InputError(fields[0], fields[1], fields[2], fields[3]);
  }
  return kind;
}

}  // namespace graphcost
