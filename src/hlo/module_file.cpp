#include "hlo/module_file.h"

#include "common/input_error.h"
#include "io/byte_source.h"
#include "io/proto_wire.h"
#include "io/text_file.h"

namespace graphcost {
namespace {

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// After a byte order mark, spaces and comments, does the text start with `HloModule`?
bool starts_as_hlo_text(std::string_view bytes) {
  size_t at = bytes.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (at < bytes.size()) {
    const char c = bytes[at];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++at;
    } else if (bytes.substr(at, 2) == "//") {
      const size_t end = bytes.find('\n', at);
      at = end == std::string_view::npos ? bytes.size() : end + 1;
    } else if (bytes.substr(at, 2) == "/*") {
      const size_t end = bytes.find("*/", at + 2);
      at = end == std::string_view::npos ? bytes.size() : end + 2;
    } else {
      break;
    }
  }
  return bytes.substr(at, 9) == "HloModule";
}

// No control bytes but tab, newline and return in the first 4 KiB (a protobuf has field keys and
// lengths there, below 0x20).
bool looks_like_text(std::string_view bytes) {
  for (const char c : bytes.substr(0, 4096)) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (byte < 0x20 && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return true;
}

// The wire type of the first field numbered `number` at the top of `bytes`, or -1.
int first_wire_type(std::string_view bytes, uint32_t number, ProtoField* found = nullptr) {
  static const std::string label = "<probe>";
  ProtoReader reader(bytes, 0, label, "message");
  ProtoField field;
  try {
    while (reader.next(field)) {
      if (field.number == number) {
        if (found != nullptr) *found = field;
        return static_cast<int>(field.type);
      }
    }
  } catch (const InputError&) {
  }
  return -1;
}

// Field 1 of a ModuleTuningData is an HloModuleProto (all of it fields, computations in field 3);
// field 1 of an HloModuleProto is the module's name, which does not parse so.
bool first_field_is_a_module(std::string_view bytes) {
  ProtoField first;
  if (first_wire_type(bytes, 1, &first) != static_cast<int>(WireType::Length)) return false;
  static const std::string label = "<probe>";
  ProtoReader reader(first.bytes, 0, label, "message");
  ProtoField field;
  bool computations = false;
  try {
    while (reader.next(field)) computations = computations || (field.number == 3 && field.type == WireType::Length);
  } catch (const InputError&) {
    return false;
  }
  return computations;
}

bool only_field_one(std::string_view bytes) {
  static const std::string label = "<probe>";
  ProtoReader reader(bytes, 0, label, "message");
  ProtoField field;
  try {
    while (reader.next(field)) {
      if (field.number != 1) return false;
    }
  } catch (const InputError&) {
  }
  return true;
}

}  // namespace

const char* module_file_format_name(ModuleFileFormat format) {
  switch (format) {
    case ModuleFileFormat::HloText:
      return "HLO text";
    case ModuleFileFormat::HloProto:
      return "HloProto";
    case ModuleFileFormat::HloModuleProto:
      return "HloModuleProto";
    case ModuleFileFormat::ModuleTuningData:
      return "ModuleTuningData";
    case ModuleFileFormat::TuningData:
      return "TuningData";
  }
  return "?";
}

ModuleFileFormat detect_module_file_format(std::string_view bytes, const std::string& source) {
  if (starts_as_hlo_text(bytes) || looks_like_text(bytes)) return ModuleFileFormat::HloText;
  if (!looks_like_protobuf(bytes)) {
    throw InputError(source, "format", "HLO text (starting 'HloModule'), a binary HloProto or HloModuleProto, or TpuGraphs tuning records",
                     "none of them (the first bytes are neither text nor a protobuf field)");
  }
  // The fingerprint (field 2, a varint) tells tuning records from a module (field 2, the entry
  // computation's name); without it (a fingerprint of 0 is left out), what field 1 holds does.
  const auto tuning_records = [](std::string_view message) {
    const int field_two = first_wire_type(message, 2);
    return field_two == static_cast<int>(WireType::Varint) || (field_two < 0 && first_field_is_a_module(message));
  };
  if (!only_field_one(bytes)) return tuning_records(bytes) ? ModuleFileFormat::ModuleTuningData : ModuleFileFormat::HloModuleProto;
  ProtoField first;
  if (first_wire_type(bytes, 1, &first) < 0) {  // the first field runs past the end: a truncated file
    ProtoReader reader(bytes, 0, source, "message");
    reader.next(first);  // throws the reader's own message, with the byte offset
  }
  if (first.type != WireType::Length) {
    throw InputError(source, "format", "a protobuf message of an HLO module or tuning records (field 1 a message)",
                     "field 1 of another type");
  }
  // Field 1 alone: an HloProto (an HloModuleProto inside) or a TuningData (ModuleTuningData inside).
  return tuning_records(first.bytes) ? ModuleFileFormat::TuningData : ModuleFileFormat::HloProto;
}

std::string read_module_file(const std::string& path) { return read_whole_file(path, "module"); }

bool is_npz_file(const std::string& path) {
  if (ends_with(path, ".npz")) return true;
  try {
    const ByteSource file = ByteSource::open_file(path);
    if (file.size() < 4) return false;
    uint8_t magic[4];
    file.read(0, 4, magic, "magic");
    return magic[0] == 'P' && magic[1] == 'K' && ((magic[2] == 3 && magic[3] == 4) || (magic[2] == 5 && magic[3] == 6));
  } catch (const std::exception&) {
    return false;  // the module reader then says what is wrong
  }
}

}  // namespace graphcost
