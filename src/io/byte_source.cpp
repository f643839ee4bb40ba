#include "io/byte_source.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/input_error.h"
#include "common/io_error.h"

namespace graphcost {

const char* file_type_name(unsigned mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a special file";
}

struct ByteSource::FileHandle {
  int descriptor = -1;
  ~FileHandle() {
    if (descriptor >= 0) ::close(descriptor);
  }
};

ByteSource ByteSource::open_file(const std::string& path) {
  ByteSource source;
  source.name_ = path;
  source.file_ = std::make_shared<FileHandle>();
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever. It changes
  // nothing for the regular files that pass the check below.
  source.file_->descriptor = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (source.file_->descriptor < 0) {
    throw InputError(path, "", "a readable file", std::strerror(errno));
  }
  struct stat status {};
  if (::fstat(source.file_->descriptor, &status) != 0) {
    throw InputError(path, "", "a readable file", std::strerror(errno));
  }
  if (!S_ISREG(status.st_mode)) {
    throw InputError(path, "", "a regular file", file_type_name(status.st_mode));
  }
  source.size_ = static_cast<uint64_t>(status.st_size);
  return source;
}

ByteSource ByteSource::view_memory(std::string name, const uint8_t* data, size_t size) {
  ByteSource source;
  source.name_ = std::move(name);
  source.memory_ = data;
  source.size_ = size;
  return source;
}

ByteSource ByteSource::own_memory(std::string name, std::vector<uint8_t> bytes) {
  ByteSource source;
  source.name_ = std::move(name);
  source.owned_ = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  source.memory_ = source.owned_->data();
  source.size_ = source.owned_->size();
  return source;
}

void ByteSource::read(uint64_t offset, size_t length, uint8_t* out, const char* field) const {
  if (offset > size_ || length > size_ - offset) {
    throw InputError(name_, field, "bytes " + std::to_string(offset) + ".." + std::to_string(offset + length) + " inside the file",
                     "a file of " + std::to_string(size_) + " bytes (truncated?)");
  }
  if (length == 0) return;
  if (memory_ != nullptr) {
    std::memcpy(out, memory_ + offset, length);
    return;
  }
  size_t done = 0;
  while (done < length) {
    ssize_t got = ::pread(file_->descriptor, out + done, length - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw IoError(name_, std::string("read ") + field, errno);
    if (got == 0) throw InputError(name_, field, std::to_string(length) + " readable bytes", "end of file (file shrank?)");
    done += static_cast<size_t>(got);
  }
}

std::vector<uint8_t> ByteSource::read(uint64_t offset, size_t length, const char* field) const {
  // Check before allocating: `length` usually comes from the file itself.
  if (offset > size_ || length > size_ - offset) read(offset, length, nullptr, field);
  std::vector<uint8_t> bytes(length);
  read(offset, length, bytes.data(), field);
  return bytes;
}

}  // namespace graphcost
