// ByteSource: random-access, bounds-checked reads from a file or a memory buffer.
// Readers never trust sizes found inside a file: every read is checked against size() first and a
// read past the end throws InputError naming the source and the field being read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace graphcost {

// "a regular file", "a directory", "a FIFO (named pipe)", ... for a stat st_mode: for messages.
const char* file_type_name(unsigned mode);

class ByteSource {
 public:
  // Opens a file for reading (throws InputError if it cannot be opened or is not a regular file).
  static ByteSource open_file(const std::string& path);
  // Wraps bytes the caller owns; they must outlive the source. `name` is used in error messages.
  static ByteSource view_memory(std::string name, const uint8_t* data, size_t size);
  // Takes ownership of a buffer.
  static ByteSource own_memory(std::string name, std::vector<uint8_t> bytes);

  const std::string& name() const { return name_; }
  uint64_t size() const { return size_; }

  // Copies [offset, offset + length) into `out`; throws InputError mentioning `field` when the range
  // is not inside the source.
  void read(uint64_t offset, size_t length, uint8_t* out, const char* field) const;
  std::vector<uint8_t> read(uint64_t offset, size_t length, const char* field) const;

 private:
  struct FileHandle;
  std::string name_;
  uint64_t size_ = 0;
  std::shared_ptr<FileHandle> file_;             // set for files
  std::shared_ptr<std::vector<uint8_t>> owned_;  // set for owned memory
  const uint8_t* memory_ = nullptr;              // set for memory sources
};

}  // namespace graphcost
