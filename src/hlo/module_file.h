// What a module file holds, told by its content (an extension is only a hint): HLO text, XLA's
// binary HloProto or HloModuleProto, or TpuGraphs' raw tuning records (a ModuleTuningData: one
// module and its measured configs; a TuningData: several). graphcost reads all of them wherever a
// module is taken (import, info, rank, draw, simulate, tune, the app).
//
// Rules, in order: a file whose first non-space text (after a UTF-8 byte order mark and comments)
// is `HloModule`, or that looks like text (no control bytes but tab, newline and return in its
// first 4 KiB), is HLO text; a protobuf (io/proto_wire.h) is told by its top-level fields:
//   - a field other than 1 at the top: field 2 a varint (fingerprint) -> ModuleTuningData,
//     field 2 bytes (entry_computation_name) or fields 3.. -> HloModuleProto;
//   - only field 1: inside its first value, field 2 a varint or field 3 holding a ConfigProfile
//     -> TuningData (of ModuleTuningData); else -> HloProto (holding an HloModuleProto).
#pragma once

#include <string>
#include <string_view>

namespace graphcost {

enum class ModuleFileFormat { HloText, HloProto, HloModuleProto, ModuleTuningData, TuningData };

// "HLO text", "HloProto", ...: for messages and `info`.
const char* module_file_format_name(ModuleFileFormat format);

// InputError naming `source` when the bytes are none of the formats.
ModuleFileFormat detect_module_file_format(std::string_view bytes, const std::string& source);

// The whole file, refused (InputError) past the input memory limit (GRAPHCOST_MEMORY_LIMIT).
std::string read_module_file(const std::string& path);

// True for a TpuGraphs .npz: a path ending in .npz (whatever its content: the npz reader then says
// what is wrong with it), or a file that starts as a zip archive does. Anything else is a module.
bool is_npz_file(const std::string& path);

}  // namespace graphcost
