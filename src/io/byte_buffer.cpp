#include "io/byte_buffer.h"

#include <cstdlib>
#include <cstring>
#include <new>

// Under AddressSanitizer every buffer goes through malloc, so the sanitizer sees (and can limit) it.
#if defined(__SANITIZE_ADDRESS__)
#define GRAPHCOST_MAP_LARGE_BUFFERS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GRAPHCOST_MAP_LARGE_BUFFERS 0
#endif
#endif
#if !defined(GRAPHCOST_MAP_LARGE_BUFFERS) && defined(__linux__)
#define GRAPHCOST_MAP_LARGE_BUFFERS 1
#elif !defined(GRAPHCOST_MAP_LARGE_BUFFERS)
#define GRAPHCOST_MAP_LARGE_BUFFERS 0
#endif

#if GRAPHCOST_MAP_LARGE_BUFFERS
#include <sys/mman.h>
#endif

namespace graphcost {
namespace {

#if GRAPHCOST_MAP_LARGE_BUFFERS
// Large buffers are mapped directly and advised onto transparent huge pages: inflating 60 MB into
// fresh memory otherwise costs ~15,000 page faults, more than the inflation itself on a VM. They
// grow with mremap, which moves page tables instead of bytes.
constexpr size_t kMappedThreshold = 4u << 20;
bool is_mapped(size_t size) { return size >= kMappedThreshold; }

uint8_t* map_bytes(size_t size) {
  void* block = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED) throw std::bad_alloc();
  madvise(block, size, MADV_HUGEPAGE);
  return static_cast<uint8_t*>(block);
}

uint8_t* remap_bytes(uint8_t* block, size_t old_size, size_t size) {
  void* grown = mremap(block, old_size, size, MREMAP_MAYMOVE);
  if (grown == MAP_FAILED) throw std::bad_alloc();
  madvise(grown, size, MADV_HUGEPAGE);
  return static_cast<uint8_t*>(grown);
}

void release(uint8_t* block, size_t size) {
  if (block == nullptr) return;
  if (is_mapped(size)) {
    munmap(block, size);
  } else {
    std::free(block);
  }
}

uint8_t* reallocate(uint8_t* block, size_t old_size, size_t size) {
  if (is_mapped(old_size) && is_mapped(size)) return remap_bytes(block, old_size, size);
  if (!is_mapped(old_size) && !is_mapped(size)) {
    void* grown = std::realloc(block, size);
    if (grown == nullptr) throw std::bad_alloc();
    return static_cast<uint8_t*>(grown);
  }
  uint8_t* moved = is_mapped(size) ? map_bytes(size) : static_cast<uint8_t*>(std::malloc(size));
  if (moved == nullptr) throw std::bad_alloc();
  if (old_size > 0) std::memcpy(moved, block, old_size < size ? old_size : size);
  release(block, old_size);
  return moved;
}
#else
void release(uint8_t* block, size_t) { std::free(block); }

uint8_t* reallocate(uint8_t* block, size_t, size_t size) {
  void* grown = std::realloc(block, size);
  if (grown == nullptr) throw std::bad_alloc();
  return static_cast<uint8_t*>(grown);
}
#endif

}  // namespace

ByteBuffer::ByteBuffer(const uint8_t* bytes, size_t size) {
  resize(size);
  if (size > 0) std::memcpy(data_, bytes, size);
}

ByteBuffer::~ByteBuffer() { release(data_, size_); }

ByteBuffer& ByteBuffer::operator=(const ByteBuffer& other) {
  if (this != &other) {
    resize(other.size_);
    if (size_ > 0) std::memcpy(data_, other.data_, size_);
  }
  return *this;
}

ByteBuffer& ByteBuffer::operator=(ByteBuffer&& other) noexcept {
  if (this != &other) {
    release(data_, size_);
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

void ByteBuffer::resize(size_t size) {
  if (size == size_) return;
  if (size == 0) {
    release(data_, size_);
    data_ = nullptr;
  } else {
    data_ = reallocate(data_, size_, size);
  }
  size_ = size;
}

}  // namespace graphcost
