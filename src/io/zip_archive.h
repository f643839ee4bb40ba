// Zip archives as numpy's savez / savez_compressed write them (an .npz is a zip of .npy members).
//
// Layout read here (PKWARE APPNOTE 6.3): [local header + data]* central directory
// [zip64 end record + zip64 locator] end-of-central-directory record. Members are stored (method 0)
// or deflated (method 8); sizes and offsets may live in zip64 extra fields (id 0x0001), which numpy
// writes on every member. Refused: encryption, multi-disk archives, other methods, duplicate names,
// members outside the file, CRC or size mismatches. Nothing is allocated from a size the archive
// merely declares: inflated output grows only as real data arrives.
//
// ZipWriter writes members with zip64 extras and a zip64 end record (as numpy does), a fixed
// 1980-01-01 timestamp (same input, same bytes), through an AtomicFile: an interrupted write never
// leaves a half file under the final name, nor a partial file beside it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "io/byte_buffer.h"
#include "io/byte_source.h"

namespace graphcost {

struct ZipMember {
  std::string name;
  uint16_t method = 0;  // 0 stored, 8 deflate
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
  uint64_t local_header_offset = 0;
};

class ZipReader {
 public:
  // Parses the central directory; throws InputError naming the source and the record at fault.
  explicit ZipReader(ByteSource source);

  const std::string& name() const { return source_.name(); }
  const std::vector<ZipMember>& members() const { return members_; }
  const ZipMember* find(const std::string& member_name) const;

  // The member's uncompressed bytes, CRC- and size-checked.
  ByteBuffer read(const ZipMember& member) const;
  // Its first min(max_bytes, uncompressed size) bytes, inflating no more than that (unchecked:
  // for reading a header before deciding whether to read the rest).
  ByteBuffer read_prefix(const ZipMember& member, size_t max_bytes) const;
  // The member's uncompressed bytes handed to `consume` in order, at most `piece_bytes` at a time,
  // so that a member larger than memory can be converted as it is read. The size and CRC checks
  // come at the end: a consumer must not trust what it was given until this returns.
  void read_in_pieces(const ZipMember& member, size_t piece_bytes,
                      const std::function<void(const uint8_t* data, size_t size)>& consume) const;

 private:
  uint64_t data_offset(const ZipMember& member) const;
  // Inflates until `stop_after` bytes (the declared size for a whole, checked member).
  ByteBuffer inflate_member(const ZipMember& member, uint64_t offset, uint64_t stop_after) const;

  ByteSource source_;
  std::vector<ZipMember> members_;
};

enum class ZipCompression { Stored, Deflate };

struct ByteSpan {
  const uint8_t* data;
  size_t size;
};

class ZipWriter {
 public:
  // `inputs`: files this one must not replace (common/atomic_file.h).
  explicit ZipWriter(std::string path, const std::vector<std::string>& inputs = {});
  ~ZipWriter();
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;

  // Appends one member whose content is the concatenation of `parts`.
  void add(const std::string& member_name, const std::vector<ByteSpan>& parts, ZipCompression compression);
  // Appends one member whose content `produce` hands to the sink it is given, a piece at a time,
  // so that a member larger than memory can be written as it is computed.
  using ByteSink = std::function<void(const void* data, size_t size)>;
  void add_streamed(const std::string& member_name, ZipCompression compression, const std::function<void(const ByteSink&)>& produce);
  // Writes the central directory and moves the file into place. Throws std::runtime_error on I/O
  // failure (the partial file is removed).
  void finish();

 private:
  void write_bytes(const void* data, size_t size);
  uint64_t position() const { return file_->written(); }

  std::unique_ptr<AtomicFile> file_;  // null after finish()
  std::vector<ZipMember> members_;
};

}  // namespace graphcost
