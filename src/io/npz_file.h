// NpzFile: the named arrays of an .npz archive (numpy's savez / savez_compressed), in archive order.
// Member "node_feat.npy" is the array "node_feat". Every member must be a .npy file.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "io/byte_source.h"
#include "io/npy_array.h"
#include "io/zip_archive.h"

namespace graphcost {

struct NpzFile {
  std::string source_name;                               // path or label of the archive, for error messages
  std::vector<std::pair<std::string, NpyArray>> arrays;  // the arrays read
  std::vector<std::string> names;                        // every array in the archive

  const NpyArray* find(const std::string& array_name) const;
};

// Memory policy (docs/architecture.md): only the arrays named in `only` are inflated (all when it
// is empty); each must inflate to exactly the size its npy header declares (header + data), and
// the declared sizes of the arrays read must add up to at most `memory_limit` bytes. All three are
// checked from the zip directory and each member's first bytes, before its data is inflated.
struct NpzReadOptions {
  std::vector<std::string> only;
  uint64_t memory_limit = 0;  // 0: input_memory_limit() (common/memory_limit.h)
  // Called with each array's header before its data is inflated; may throw InputError (a loader
  // that knows the shapes it expects refuses a wrong one without inflating it).
  std::function<void(const std::string& array_name, const NpyHeader& header)> check_header;
};

// Reads the arrays; throws InputError naming the archive, the member and the field (also when
// memory runs out: the error names the member and its size).
NpzFile read_npz(ByteSource source, const NpzReadOptions& options = {});
NpzFile read_npz_file(const std::string& path, const NpzReadOptions& options = {});

// Writes arrays as "<name>.npy" members (stored or deflated) via ZipWriter: atomically, loadable by
// numpy.load. Throws std::runtime_error on I/O failure.
void write_npz(const std::string& path, const std::vector<std::pair<std::string, const NpyArray*>>& arrays, ZipCompression compression);

// The same one array at a time, so a caller can build each array, add it and free it before the
// next (the peak memory is then the largest array, not all of them).
class NpzWriter {
 public:
  NpzWriter(std::string path, ZipCompression compression, const std::vector<std::string>& inputs = {});
  void add(const std::string& name, const NpyArray& array);
  // An array of `dtype` and `shape` whose bytes (in the array's order) `produce` writes to the sink
  // a piece at a time: an array larger than memory, computed as it is written. InternalError when
  // the bytes produced are not exactly the shape's.
  void add_streamed(const std::string& name, DType dtype, const std::vector<int64_t>& shape, bool fortran_order,
                    const std::function<void(const ZipWriter::ByteSink&)>& produce);
  void finish();  // the file appears only now (atomic)

 private:
  ZipWriter writer_;
  ZipCompression compression_;
};

}  // namespace graphcost
