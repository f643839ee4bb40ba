#include "common/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <stdexcept>

#include "common/input_error.h"
#include "common/io_error.h"

namespace graphcost {

void check_output_path(const std::string& output, const std::vector<std::string>& inputs) {
  struct stat target {};
  if (::stat(output.c_str(), &target) != 0) {
    // Does not exist yet: its folder must (the partial file is made beside it).
    const size_t slash = output.find_last_of('/');
    const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : output.substr(0, slash);
    // The user's own path, quoted whole: a folder path is bounded by the system (PATH_MAX), and a
    // path cut short would hide which folder is missing.
    const std::string quoted = excerpt(folder, PATH_MAX);
    struct stat parent {};
    if (::stat(folder.c_str(), &parent) != 0) throw InputError(output, "", "a path in an existing folder", "no folder " + quoted);
    if (!S_ISDIR(parent.st_mode)) throw InputError(output, "", "a path in an existing folder", quoted + ", which is not a folder");
    return;
  }
  if (S_ISDIR(target.st_mode)) {
    throw InputError(output, "", "a file path to write", "a directory");
  }
  // Writing means a new file renamed over the old one: a FIFO, socket or device there would be
  // replaced by a regular file (as root, --out /dev/full replaced /dev/full).
  if (!S_ISREG(target.st_mode)) {
    throw InputError(output, "", "a regular file (or a new path) to write",
                     S_ISFIFO(target.st_mode)   ? "a FIFO"
                     : S_ISSOCK(target.st_mode) ? "a socket"
                     : S_ISCHR(target.st_mode)  ? "a character device"
                     : S_ISBLK(target.st_mode)  ? "a block device"
                                                : "not a regular file");
  }
  for (const std::string& input : inputs) {
    struct stat source {};
    if (::stat(input.c_str(), &source) == 0 && source.st_dev == target.st_dev && source.st_ino == target.st_ino) {
      throw InputError(output, "", "an output path other than the inputs",
                       input == output ? "the input file itself" : "the input file " + input);
    }
  }
}

AtomicFile::AtomicFile(std::string path, const std::vector<std::string>& inputs)
    : path_(std::move(path)), partial_path_(path_ + ".partial") {
  check_output_path(path_, inputs);
  file_ = std::fopen(partial_path_.c_str(), "wb");
  if (file_ == nullptr) {
    throw IoError(partial_path_, "create", errno);
  }
}

AtomicFile::~AtomicFile() {
  if (file_ != nullptr) {
    std::fclose(file_);
    std::remove(partial_path_.c_str());
  }
}

void AtomicFile::write(const void* data, size_t size) {
  if (size > 0 && std::fwrite(data, 1, size, file_) != size) {
    throw IoError(partial_path_, "write", errno);
  }
  written_ += size;
}

void AtomicFile::overwrite(uint64_t offset, const void* data, size_t size) {
  if (offset + size > written_ || fseeko(file_, static_cast<off_t>(offset), SEEK_SET) != 0 || std::fwrite(data, 1, size, file_) != size ||
      fseeko(file_, 0, SEEK_END) != 0) {
    throw IoError(partial_path_, "seek and write", errno);
  }
}

void AtomicFile::commit() {
  const bool flushed = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  const int error = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed) {
    std::remove(partial_path_.c_str());
    throw IoError(partial_path_, "write", flushed ? errno : error);
  }
  if (std::rename(partial_path_.c_str(), path_.c_str()) != 0) {
    const int rename_error = errno;
    std::remove(partial_path_.c_str());
    throw IoError(path_, "move " + partial_path_ + " into place", rename_error);
  }
}

void write_file_atomically(const std::string& path, std::string_view bytes, const std::vector<std::string>& inputs) {
  AtomicFile file(path, inputs);
  file.write(bytes);
  file.commit();
}

}  // namespace graphcost
