// read_text_file: a whole text file in memory, gunzipped when it is gzip (by its magic bytes, not
// its name), within the input memory limit (common/memory_limit.h): a small .gz cannot demand more
// than the limit however large it claims to inflate. For JSON inputs (parameter spaces, results).
#pragma once

#include <string>

namespace graphcost {

// InputError naming the file: not a regular file, over the limit (compressed or inflated), a
// truncated or corrupt gzip stream.
std::string read_text_file(const std::string& path);

// A whole file's bytes as they are (no gunzipping), within the input memory limit: what
// read_text_file and the HLO module reader (hlo/module_file.h) read first.
std::string read_whole_file(const std::string& path, const char* field);

}  // namespace graphcost
