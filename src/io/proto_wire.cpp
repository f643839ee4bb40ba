#include "io/proto_wire.h"

#include <algorithm>
#include <cstring>

#include "common/input_error.h"

namespace graphcost {
namespace {

const char* wire_type_name(WireType type) {
  switch (type) {
    case WireType::Varint:
      return "a varint";
    case WireType::Fixed64:
      return "a fixed 64-bit value";
    case WireType::Length:
      return "a length-delimited value";
    case WireType::Fixed32:
      return "a fixed 32-bit value";
  }
  return "?";
}

}  // namespace

ProtoReader::ProtoReader(std::string_view bytes, uint64_t base_offset, const std::string& source, const char* message)
    : bytes_(bytes), base_(base_offset), source_(&source), message_(message) {}

bool ProtoReader::read_varint(size_t& at, uint64_t& value) const {
  value = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (at >= bytes_.size()) return false;
    const uint8_t byte = static_cast<uint8_t>(bytes_[at++]);
    if (shift == 63 && byte > 1) return false;  // a tenth byte holds only the top bit
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

void ProtoReader::fail_at(uint64_t offset, const std::string& what, const std::string& expected, const std::string& actual) const {
  throw InputError(*source_, "byte " + std::to_string(offset) + ": " + message_ + (what.empty() ? "" : " " + what), expected, actual);
}

void ProtoReader::fail(const ProtoField& field, const std::string& expected, const std::string& actual) const {
  fail_at(field.offset, "field " + std::to_string(field.number), expected, actual);
}

bool ProtoReader::next(ProtoField& field) {
  if (at_ >= bytes_.size()) return false;
  const uint64_t key_offset = base_ + at_;
  uint64_t key;
  if (!read_varint(at_, key)) fail_at(key_offset, "", "a field key (a varint)", "a truncated or overlong varint");
  field = ProtoField{};
  field.offset = key_offset;
  field.number = static_cast<uint32_t>(key >> 3);
  const uint64_t type = key & 7;
  if (key >> 3 == 0 || key >> 3 > 536870911) fail_at(key_offset, "", "a field number in 1..2^29-1", std::to_string(key >> 3));
  const std::string where = "field " + std::to_string(field.number);
  switch (type) {
    case 0:
      field.type = WireType::Varint;
      if (!read_varint(at_, field.varint)) fail_at(key_offset, where, "a varint value", "a truncated or overlong varint");
      break;
    case 1:
    case 5: {
      field.type = type == 1 ? WireType::Fixed64 : WireType::Fixed32;
      const size_t width = type == 1 ? 8 : 4;
      if (bytes_.size() - at_ < width)
        fail_at(key_offset, where, std::to_string(width) + " bytes", std::to_string(bytes_.size() - at_) + " left");
      uint64_t value = 0;
      for (size_t i = 0; i < width; ++i) value |= static_cast<uint64_t>(static_cast<uint8_t>(bytes_[at_ + i])) << (8 * i);
      field.varint = value;
      at_ += width;
      break;
    }
    case 2: {
      field.type = WireType::Length;
      uint64_t length;
      if (!read_varint(at_, length)) fail_at(key_offset, where, "a length (a varint)", "a truncated or overlong varint");
      if (length > bytes_.size() - at_) {
        fail_at(key_offset, where, "a length within the " + std::to_string(bytes_.size() - at_) + " bytes left of the message",
                std::to_string(length));
      }
      field.bytes = bytes_.substr(at_, static_cast<size_t>(length));
      at_ += static_cast<size_t>(length);
      break;
    }
    default:
      fail_at(key_offset, where, "wire type 0, 1, 2 or 5", std::to_string(type) + (type == 3 || type == 4 ? " (a group: obsolete)" : ""));
  }
  return true;
}

ProtoReader ProtoReader::nested(const ProtoField& field, const char* message) const {
  expect_type(field, WireType::Length, message);
  const uint64_t start = static_cast<uint64_t>(field.bytes.data() - bytes_.data());  // within this message
  return ProtoReader(field.bytes, base_ + start, *source_, message);
}

void ProtoReader::expect_type(const ProtoField& field, WireType type, const char* what) const {
  if (field.type != type) fail(field, std::string(wire_type_name(type)) + " (" + what + ")", wire_type_name(field.type));
}

int64_t ProtoReader::int64(const ProtoField& field) const {
  expect_type(field, WireType::Varint, "an integer");
  return static_cast<int64_t>(field.varint);
}

uint64_t ProtoReader::uint64(const ProtoField& field) const {
  if (field.type == WireType::Fixed64) return field.varint;
  expect_type(field, WireType::Varint, "an unsigned integer");
  return field.varint;
}

bool ProtoReader::boolean(const ProtoField& field) const {
  expect_type(field, WireType::Varint, "a bool");
  return field.varint != 0;
}

std::string_view ProtoReader::bytes(const ProtoField& field) const {
  expect_type(field, WireType::Length, "a string");
  return field.bytes;
}

void ProtoReader::append_int64s(const ProtoField& field, std::vector<int64_t>& values) const {
  if (field.type == WireType::Varint) {
    values.push_back(static_cast<int64_t>(field.varint));
    return;
  }
  expect_type(field, WireType::Length, "packed integers");
  ProtoReader packed = nested(field, message_);
  size_t at = 0;
  while (at < field.bytes.size()) {
    const size_t start = at;
    uint64_t value;
    if (!packed.read_varint(at, value)) {
      packed.fail_at(packed.base_ + start, "field " + std::to_string(field.number), "packed varints", "a truncated or overlong varint");
    }
    values.push_back(static_cast<int64_t>(value));
  }
}

void ProtoWriter::varint(uint64_t value) {
  while (value >= 0x80) {
    bytes_.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  bytes_.push_back(static_cast<char>(value));
}

void ProtoWriter::key(int field, WireType type) { varint(static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(type)); }

void ProtoWriter::integer(int field, int64_t value) {
  if (value == 0) return;
  key(field, WireType::Varint);
  varint(static_cast<uint64_t>(value));
}

void ProtoWriter::text(int field, std::string_view value) {
  if (value.empty()) return;
  key(field, WireType::Length);
  varint(value.size());
  bytes_.append(value.data(), value.size());
}

void ProtoWriter::message(int field, const ProtoWriter& value) {
  key(field, WireType::Length);
  varint(value.bytes_.size());
  bytes_ += value.bytes_;
}

void ProtoWriter::packed(int field, const std::vector<int64_t>& values) {
  if (values.empty()) return;
  ProtoWriter payload;
  for (const int64_t value : values) payload.varint(static_cast<uint64_t>(value));
  key(field, WireType::Length);
  varint(payload.bytes_.size());
  bytes_ += payload.bytes_;
}

bool looks_like_protobuf(std::string_view bytes) {
  // A first key of a known wire type and a value that starts: a length may run past the end (a
  // truncated file is still a protobuf, and its reader says where it stops).
  static const std::string label = "<probe>";
  ProtoReader reader(bytes, 0, label, "message");
  size_t at = 0;
  uint64_t key = 0, length = 0;
  if (!reader.read_varint(at, key) || key >> 3 == 0) return false;
  switch (key & 7) {
    case 0:
      return reader.read_varint(at, length);
    case 1:
    case 5:
      return true;
    case 2:
      return reader.read_varint(at, length);
    default:
      return false;
  }
}

}  // namespace graphcost
