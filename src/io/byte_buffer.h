// ByteBuffer: an owned, malloc-backed byte array whose growth leaves new bytes uninitialised and goes
// through realloc, so a large buffer grows by remapping pages instead of zeroing and copying them.
// Inflating a member of unknown true size into it costs one pass over the data.
#pragma once

#include <cstddef>
#include <cstdint>

namespace graphcost {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  explicit ByteBuffer(size_t size) { resize(size); }
  ByteBuffer(const uint8_t* bytes, size_t size);
  ~ByteBuffer();
  ByteBuffer(const ByteBuffer& other) : ByteBuffer(other.data_, other.size_) {}
  ByteBuffer& operator=(const ByteBuffer& other);
  ByteBuffer(ByteBuffer&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  ByteBuffer& operator=(ByteBuffer&& other) noexcept;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Changes the size; bytes beyond the old size are uninitialised. Throws std::bad_alloc.
  void resize(size_t size);

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace graphcost
