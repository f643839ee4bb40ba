// NpzFile: the named arrays of an .npz archive (numpy's savez / savez_compressed), in archive order.
// Member "node_feat.npy" is the array "node_feat". Every member must be a .npy file.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "io/byte_source.h"
#include "io/npy_array.h"
#include "io/zip_archive.h"

namespace graphcost {

struct NpzFile {
  std::string source_name;  // path or label of the archive, for error messages
  std::vector<std::pair<std::string, NpyArray>> arrays;

  const NpyArray* find(const std::string& array_name) const;
};

// Reads every array; throws InputError naming the archive, the member and the field.
NpzFile read_npz(ByteSource source);
NpzFile read_npz_file(const std::string& path);

// Writes arrays as "<name>.npy" members (stored or deflated) via ZipWriter: atomically, loadable by
// numpy.load. Throws std::runtime_error on I/O failure.
void write_npz(const std::string& path,
               const std::vector<std::pair<std::string, const NpyArray*>>& arrays,
               ZipCompression compression);

}  // namespace graphcost
