// AtomicFile: writes a file so that no reader ever sees half of it and a failure leaves nothing
// behind. Bytes go to "<path>.partial" beside it (same folder, so the rename is atomic); commit()
// flushes and renames it onto <path>; destruction without commit() removes the partial file.
//
// Refused before anything is created, as InputError: a path that names a directory, a FIFO, a
// socket or a device (the rename would replace it with a regular file), a path whose folder does
// not exist, and a path that is one of the inputs of the same run (the same file by device and
// inode, also through another name), so `--out` can never replace the data it was computed from.
// I/O failures (disk full, permissions) throw IoError naming the path.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace graphcost {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path, const std::vector<std::string>& inputs = {});
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }
  // Replaces bytes already written at `offset` (a header whose sizes are known only afterwards).
  void overwrite(uint64_t offset, const void* data, size_t size);
  uint64_t written() const { return written_; }
  const std::string& path() const { return path_; }
  void commit();

 private:
  std::string path_, partial_path_;
  std::FILE* file_ = nullptr;
  uint64_t written_ = 0;
};

// The whole of `bytes` into `path`, atomically.
void write_file_atomically(const std::string& path, std::string_view bytes, const std::vector<std::string>& inputs = {});

// Throws InputError for what AtomicFile refuses (above), before anything is written.
void check_output_path(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace graphcost
