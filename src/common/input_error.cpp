#include "common/input_error.h"

#include <algorithm>

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

size_t utf8_sequence_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  size_t length;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // beyond U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  static const char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < text.size();) {
    const unsigned char byte = static_cast<unsigned char>(text[i]);
    const size_t length = utf8_sequence_length(text, i);
    if (length == 0 || byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
      ++i;
    } else {
      out.append(text.data() + i, length);
      i += length;
    }
  }
  return out;
}

std::string excerpt(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return "'" + printable(text) + "'";
  size_t cut = 0;
  while (cut < max_bytes) {
    const size_t length = std::max<size_t>(1, utf8_sequence_length(text, cut));
    if (cut + length > max_bytes) break;
    cut += length;
  }
  return "'" + printable(text.substr(0, cut)) + "'... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace graphcost
