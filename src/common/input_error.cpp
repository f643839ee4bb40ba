#include "common/input_error.h"

namespace graphcost {
namespace {

std::string join_message(const std::string& file, const std::string& field, const std::string& expected, const std::string& actual) {
  std::string message = file.empty() ? std::string("<input>") : file;
  if (!field.empty()) message += ": " + field;
  message += ": expected " + expected + ", got " + actual;
  return message;
}

}  // namespace

InputError::InputError(std::string file, std::string field, std::string expected, std::string actual)
    : std::runtime_error(join_message(file, field, expected, actual)),
      file_(std::move(file)),
      field_(std::move(field)),
      expected_(std::move(expected)),
      actual_(std::move(actual)) {}

InputError InputError::within(const std::string& outer_file, const std::string& outer_field) const {
  std::string field = outer_field;
  if (!field_.empty()) field = field.empty() ? field_ : field + ": " + field_;
  return InputError(file_.empty() ? outer_file : file_, field, expected_, actual_);
}

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace graphcost
