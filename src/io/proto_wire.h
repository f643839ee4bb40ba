// The protocol buffer wire format (protobuf.dev/programming-guides/encoding), read field by field
// from bytes in memory, for the few messages graphcost reads (XLA's HloModuleProto, TpuGraphs'
// tuning records: hlo/hlo_proto.h, hlo/tuning_records.h).
//
// Layout: a message is a sequence of fields, each a varint key (field number << 3 | wire type) and
// a value: 0 a varint (int32, int64, uint64, bool, enum; negative int32/int64 take 10 bytes),
// 1 eight little-endian bytes, 2 a varint length and that many bytes (strings, bytes, nested
// messages, packed repeated scalars), 5 four bytes. Wire types 3 and 4 (groups) are obsolete and
// refused. A field number may repeat; unknown fields are skipped by their wire type.
//
// Why a reader of our own, not Debian's libprotobuf: the browser app reads dropped .pb files, and
// libprotobuf is not built for WebAssembly (Debian ships it native only; its sources are large to
// compile with Emscripten 3.1.6); and every refusal here names the byte offset, the message and
// the field, with lengths checked against the bytes present before anything is read or allocated.
// Nesting depth is the caller's (it decodes known messages; recursive ones carry a depth).
// tests/fixtures/proto_oracle.py reads the same files with Debian's python3-protobuf as a check.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace graphcost {

enum class WireType : uint8_t { Varint = 0, Fixed64 = 1, Length = 2, Fixed32 = 5 };

struct ProtoField {
  uint32_t number = 0;
  WireType type = WireType::Varint;
  uint64_t varint = 0;     // Varint, Fixed64, Fixed32: the value's bits
  std::string_view bytes;  // Length: the value's bytes (a view into the message's)
  uint64_t offset = 0;     // the key's byte offset in the whole file
};

// One message's fields in order. `source` names the file and `message` the message type in errors;
// `base_offset` is the message's offset in the file.
class ProtoReader {
 public:
  ProtoReader(std::string_view bytes, uint64_t base_offset, const std::string& source, const char* message);

  // The next field, or false at the end. InputError on a truncated key or value, a length past
  // the message's end, field number 0, or wire types 3, 4, 6, 7.
  bool next(ProtoField& field);

  // A nested message's reader for a Length field.
  ProtoReader nested(const ProtoField& field, const char* message) const;

  // Values, checked against the field's wire type (InputError otherwise).
  int64_t int64(const ProtoField& field) const;    // int32 / int64 / enum (two's complement)
  uint64_t uint64(const ProtoField& field) const;  // uint64 / fixed64
  bool boolean(const ProtoField& field) const;
  std::string_view bytes(const ProtoField& field) const;  // string / bytes
  // A repeated integer field, packed (one Length field) or not (one Varint field per value):
  // appends this field's values.
  void append_int64s(const ProtoField& field, std::vector<int64_t>& values) const;

  // Throws InputError at `field`'s offset: "<source>: byte N: <message> field K: expected ..., got ...".
  [[noreturn]] void fail(const ProtoField& field, const std::string& expected, const std::string& actual) const;
  [[noreturn]] void fail_at(uint64_t offset, const std::string& what, const std::string& expected, const std::string& actual) const;

  const std::string& source() const { return *source_; }
  uint64_t base_offset() const { return base_; }
  size_t size() const { return bytes_.size(); }

 private:
  friend bool looks_like_protobuf(std::string_view bytes);
  bool read_varint(size_t& at, uint64_t& value) const;
  void expect_type(const ProtoField& field, WireType type, const char* what) const;

  std::string_view bytes_;
  uint64_t base_;
  const std::string* source_;
  const char* message_;
  size_t at_ = 0;
};

// Builds a message's bytes field by field (for writing test inputs and converted modules): scalar
// fields equal to 0 and empty repeated fields are left out, as proto3 writes them.
class ProtoWriter {
 public:
  void integer(int field, int64_t value);             // a varint (int32, int64, enum, bool)
  void text(int field, std::string_view value);       // a string or bytes field
  void message(int field, const ProtoWriter& value);  // a nested message (written even when empty)
  void packed(int field, const std::vector<int64_t>& values);
  const std::string& bytes() const { return bytes_; }
  std::string take() { return std::move(bytes_); }

 private:
  void key(int field, WireType type);
  void varint(uint64_t value);
  std::string bytes_;
};

// True when `bytes` (a whole file) start with a protobuf field (a key of wire type 0, 1, 2 or 5
// whose value starts; a length may run past the end: a truncated file is still a protobuf, and its
// reader says at which byte it stops): for telling a binary proto from text by content.
bool looks_like_protobuf(std::string_view bytes);

}  // namespace graphcost
