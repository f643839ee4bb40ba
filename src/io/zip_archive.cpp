#include "io/zip_archive.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/internal_error.h"

namespace graphcost {
namespace {

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr size_t kEndRecordSize = 22;
constexpr size_t kZip64LocatorSize = 20;
constexpr size_t kZip64EndRecordSize = 56;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kLocalHeaderSize = 30;
constexpr size_t kMaxCommentSize = 0xFFFF;
// Inflated output first gets room for min(declared, max(16 MiB, 16 x compressed size)) bytes, then
// doubles (by realloc, without copying) as real data arrives, never beyond the declared size. A size the archive merely claims
// thus costs at most that first room: bounded by the data actually present in the file.
constexpr uint64_t kMinimumInflateRoom = 16ull << 20;
constexpr uint64_t kInflateRoomPerCompressedByte = 16;
constexpr size_t kCompressedChunk = 256u << 10;

uint16_t read_u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t read_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
uint64_t read_u64(const uint8_t* p) { return static_cast<uint64_t>(read_u32(p)) | (static_cast<uint64_t>(read_u32(p + 4)) << 32); }
void put_u16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(static_cast<uint8_t>(v));
  out.push_back(static_cast<uint8_t>(v >> 8));
}
void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
std::string hex32(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", value);
  return text;
}

struct EndOfCentralDirectory {
  uint64_t entry_count = 0;
  uint64_t directory_size = 0;
  uint64_t directory_offset = 0;
};

EndOfCentralDirectory find_end_record(const ByteSource& source) {
  const uint64_t tail_size = std::min<uint64_t>(source.size(), kEndRecordSize + kMaxCommentSize);
  if (source.size() < kEndRecordSize) {
    throw InputError(source.name(), "end of central directory", "a zip archive of at least 22 bytes",
                     std::to_string(source.size()) + " bytes");
  }
  const uint64_t tail_start = source.size() - tail_size;
  std::vector<uint8_t> tail = source.read(tail_start, tail_size, "end of central directory");
  // Scan backwards; the record's comment must end exactly at the end of the file.
  for (size_t pos = tail.size() - kEndRecordSize + 1; pos-- > 0;) {
    const uint8_t* p = tail.data() + pos;
    if (read_u32(p) != kEndSignature) continue;
    if (pos + kEndRecordSize + read_u16(p + 20) != tail.size()) continue;
    const uint16_t disk = read_u16(p + 4), directory_disk = read_u16(p + 6);
    if (disk != 0 && disk != 0xFFFF) {
      throw InputError(source.name(), "end of central directory", "a single-disk archive", "disk number " + std::to_string(disk));
    }
    (void)directory_disk;
    EndOfCentralDirectory end;
    end.entry_count = read_u16(p + 10);
    end.directory_size = read_u32(p + 12);
    end.directory_offset = read_u32(p + 16);
    const uint64_t end_offset = tail_start + pos;
    // A zip64 locator sits right before the end record when any field overflowed (numpy may
    // write one always).
    if (end_offset >= kZip64LocatorSize) {
      uint8_t locator[kZip64LocatorSize];
      source.read(end_offset - kZip64LocatorSize, kZip64LocatorSize, locator, "zip64 end of central directory locator");
      if (read_u32(locator) == kZip64LocatorSignature) {
        const uint64_t record_offset = read_u64(locator + 8);
        uint8_t record[kZip64EndRecordSize];
        source.read(record_offset, kZip64EndRecordSize, record, "zip64 end of central directory record");
        if (read_u32(record) != kZip64EndSignature) {
          throw InputError(source.name(), "zip64 end of central directory record", "signature " + hex32(kZip64EndSignature),
                           hex32(read_u32(record)));
        }
        end.entry_count = read_u64(record + 32);
        end.directory_size = read_u64(record + 40);
        end.directory_offset = read_u64(record + 48);
      }
    }
    if (end.directory_offset > source.size() || end.directory_size > source.size() - end.directory_offset) {
      throw InputError(source.name(), "central directory", "offset + size within the file of " + std::to_string(source.size()) + " bytes",
                       "offset " + std::to_string(end.directory_offset) + ", size " + std::to_string(end.directory_size) + " (truncated?)");
    }
    if (end.entry_count > end.directory_size / kCentralHeaderSize) {
      throw InputError(source.name(), "central directory",
                       "at most " + std::to_string(end.directory_size / kCentralHeaderSize) + " entries in " +
                           std::to_string(end.directory_size) + " bytes",
                       std::to_string(end.entry_count) + " entries declared");
    }
    return end;
  }
  throw InputError(source.name(), "end of central directory", "a zip archive (signature PK\\5\\6 near the end)",
                   "none found in " + std::to_string(source.size()) + " bytes (not a zip/npz file, or truncated)");
}

// Applies a zip64 extra field (id 0x0001) to the fields that hold the 0xFFFFFFFF marker.
void apply_zip64_extra(const std::string& file, const std::string& field, const uint8_t* extra, size_t extra_size, ZipMember& member,
                       bool size_marked, bool compressed_marked, bool offset_marked) {
  size_t pos = 0;
  while (pos + 4 <= extra_size) {
    const uint16_t id = read_u16(extra + pos);
    const uint16_t size = read_u16(extra + pos + 2);
    if (pos + 4 + size > extra_size) {
      throw InputError(file, field + ": extra field", "a block of " + std::to_string(size) + " bytes inside the extra area",
                       "only " + std::to_string(extra_size - pos - 4) + " bytes left");
    }
    if (id == kZip64ExtraId) {
      const uint8_t* p = extra + pos + 4;
      size_t left = size;
      auto take = [&](uint64_t& target, const char* what) {
        if (left < 8) {
          throw InputError(file, field + ": zip64 extra field", std::string("8 more bytes for the ") + what, std::to_string(left));
        }
        target = read_u64(p);
        p += 8;
        left -= 8;
      };
      if (size_marked) take(member.uncompressed_size, "uncompressed size");
      if (compressed_marked) take(member.compressed_size, "compressed size");
      if (offset_marked) take(member.local_header_offset, "local header offset");
      return;
    }
    pos += 4 + size;
  }
  if (size_marked || compressed_marked || offset_marked) {
    throw InputError(file, field, "a zip64 extra field for sizes marked 0xFFFFFFFF", "no zip64 extra field");
  }
}

}  // namespace

ZipReader::ZipReader(ByteSource source) : source_(std::move(source)) {
  const EndOfCentralDirectory end = find_end_record(source_);
  std::vector<uint8_t> directory = source_.read(end.directory_offset, end.directory_size, "central directory");
  std::set<std::string> seen;
  size_t pos = 0;
  members_.reserve(end.entry_count);
  for (uint64_t index = 0; index < end.entry_count; ++index) {
    const std::string field = "central directory entry " + std::to_string(index);
    if (pos + kCentralHeaderSize > directory.size()) {
      throw InputError(source_.name(), field, "a 46-byte header inside the central directory",
                       "end of directory after " + std::to_string(directory.size()) + " bytes");
    }
    const uint8_t* p = directory.data() + pos;
    if (read_u32(p) != kCentralHeaderSignature) {
      throw InputError(source_.name(), field, "signature " + hex32(kCentralHeaderSignature), hex32(read_u32(p)));
    }
    const uint16_t flags = read_u16(p + 8);
    ZipMember member;
    member.method = read_u16(p + 10);
    member.crc32 = read_u32(p + 16);
    member.compressed_size = read_u32(p + 20);
    member.uncompressed_size = read_u32(p + 24);
    const uint16_t name_size = read_u16(p + 28), extra_size = read_u16(p + 30), comment_size = read_u16(p + 32),
                   start_disk = read_u16(p + 34);
    member.local_header_offset = read_u32(p + 42);
    const size_t record_size = kCentralHeaderSize + name_size + extra_size + comment_size;
    if (pos + record_size > directory.size()) {
      throw InputError(source_.name(), field, "name, extra and comment inside the central directory",
                       "a record running past its end (truncated?)");
    }
    member.name.assign(reinterpret_cast<const char*>(p + kCentralHeaderSize), name_size);
    const std::string member_field = field + " ('" + member.name + "')";
    apply_zip64_extra(source_.name(), member_field, p + kCentralHeaderSize + name_size, extra_size, member,
                      member.uncompressed_size == 0xFFFFFFFFu, member.compressed_size == 0xFFFFFFFFu,
                      member.local_header_offset == 0xFFFFFFFFu);
    if (flags & 0x1) {
      throw InputError(source_.name(), member_field, "an unencrypted member", "an encrypted member");
    }
    if (start_disk != 0 && start_disk != 0xFFFF) {
      throw InputError(source_.name(), member_field, "disk 0", "disk " + std::to_string(start_disk));
    }
    if (member.method != 0 && member.method != 8) {
      throw InputError(source_.name(), member_field, "compression method 0 (stored) or 8 (deflate)",
                       "method " + std::to_string(member.method));
    }
    if (member.method == 0 && member.compressed_size != member.uncompressed_size) {
      throw InputError(source_.name(), member_field, "equal compressed and uncompressed sizes for a stored member",
                       std::to_string(member.compressed_size) + " and " + std::to_string(member.uncompressed_size));
    }
    if (member.local_header_offset > end.directory_offset || member.compressed_size > end.directory_offset - member.local_header_offset) {
      throw InputError(source_.name(), member_field, "data before the central directory at byte " + std::to_string(end.directory_offset),
                       "offset " + std::to_string(member.local_header_offset) + " + " + std::to_string(member.compressed_size) + " bytes");
    }
    if (!seen.insert(member.name).second) {
      throw InputError(source_.name(), member_field, "unique member names", "a second member named '" + member.name + "'");
    }
    members_.push_back(std::move(member));
    pos += record_size;
  }
}

const ZipMember* ZipReader::find(const std::string& member_name) const {
  for (const ZipMember& member : members_) {
    if (member.name == member_name) return &member;
  }
  return nullptr;
}

uint64_t ZipReader::data_offset(const ZipMember& member) const {
  const std::string field = "local header of '" + member.name + "'";
  uint8_t header[kLocalHeaderSize];
  source_.read(member.local_header_offset, kLocalHeaderSize, header, field.c_str());
  if (read_u32(header) != kLocalHeaderSignature) {
    throw InputError(source_.name(), field, "signature " + hex32(kLocalHeaderSignature), hex32(read_u32(header)));
  }
  const uint16_t name_size = read_u16(header + 26), extra_size = read_u16(header + 28);
  if (name_size != member.name.size()) {
    throw InputError(source_.name(), field, "a name of " + std::to_string(member.name.size()) + " bytes as in the directory",
                     std::to_string(name_size) + " bytes");
  }
  const uint64_t offset = member.local_header_offset + kLocalHeaderSize + name_size + extra_size;
  if (offset > source_.size() || member.compressed_size > source_.size() - offset) {
    throw InputError(source_.name(), "data of '" + member.name + "'", std::to_string(member.compressed_size) + " bytes inside the file",
                     "a file of " + std::to_string(source_.size()) + " bytes (truncated?)");
  }
  return offset;
}

ByteBuffer ZipReader::read(const ZipMember& member) const {
  if (member.uncompressed_size > std::numeric_limits<size_t>::max() / 2) {
    throw InputError(source_.name(), "member '" + member.name + "'", "a size this platform can address",
                     std::to_string(member.uncompressed_size) + " bytes declared");
  }
  const uint64_t offset = data_offset(member);
  if (member.method == 8) return inflate_member(member, offset, member.uncompressed_size);
  ByteBuffer bytes(static_cast<size_t>(member.compressed_size));  // inside the file: checked above
  source_.read(offset, bytes.size(), bytes.data(), "stored member data");
  const uint32_t crc = static_cast<uint32_t>(crc32_z(crc32(0, nullptr, 0), bytes.data(), bytes.size()));
  if (crc != member.crc32) {
    throw InputError(source_.name(), "member '" + member.name + "'", "CRC-32 " + hex32(member.crc32),
                     "CRC-32 " + hex32(crc) + " (corrupt data)");
  }
  return bytes;
}

ByteBuffer ZipReader::read_prefix(const ZipMember& member, size_t max_bytes) const {
  const uint64_t offset = data_offset(member);
  const size_t wanted = static_cast<size_t>(std::min<uint64_t>(max_bytes, member.uncompressed_size));
  if (member.method == 8) return inflate_member(member, offset, wanted);
  ByteBuffer bytes(std::min<size_t>(wanted, static_cast<size_t>(member.compressed_size)));
  source_.read(offset, bytes.size(), bytes.data(), "stored member data");
  return bytes;
}

namespace {

// One deflated member, inflated a piece at a time. It checks as it goes that the data never
// exceeds the declared size, and at the end that it has the declared size and CRC-32.
class MemberInflater {
 public:
  MemberInflater(const ByteSource& source, const ZipMember& member, uint64_t offset)
      : source_(source), member_(member), field_("member '" + member.name + "'"), offset_(offset), left_(member.compressed_size) {
    if (inflateInit2(&stream_, -MAX_WBITS) != Z_OK) throw std::bad_alloc();
    chunk_.resize(static_cast<size_t>(std::min<uint64_t>(kCompressedChunk, std::max<uint64_t>(member.compressed_size, 1))));
  }
  ~MemberInflater() { inflateEnd(&stream_); }
  MemberInflater(const MemberInflater&) = delete;
  MemberInflater& operator=(const MemberInflater&) = delete;

  // Inflates up to `room` (> 0) more bytes into `out` and returns how many; 0 once the member has
  // ended and passed its size and CRC checks. Throws InputError naming the archive and the member.
  size_t next(uint8_t* out, size_t room) {
    const uint64_t declared = member_.uncompressed_size;
    size_t got = 0;
    while (!ended_ && (got < room || produced_ == declared)) {
      if (stream_.avail_in == 0 && left_ > 0) {
        const size_t take = static_cast<size_t>(std::min<uint64_t>(chunk_.size(), left_));
        source_.read(offset_, take, chunk_.data(), "compressed member data");
        offset_ += take;
        left_ -= take;
        stream_.next_in = chunk_.data();
        stream_.avail_in = static_cast<uInt>(take);
      }
      const bool probing = produced_ == declared;  // any further output means the size lied
      uint8_t probe = 0;
      stream_.next_out = probing ? &probe : out + got;
      stream_.avail_out = probing ? 1u : static_cast<uInt>(std::min<uint64_t>({room - got, declared - produced_, 1u << 30}));
      const uInt room_before = stream_.avail_out;
      const uInt input_before = stream_.avail_in;
      const int status = inflate(&stream_, Z_NO_FLUSH);
      const uInt written = room_before - stream_.avail_out;
      if (probing && written > 0) {
        throw InputError(source_.name(), field_, std::to_string(declared) + " uncompressed bytes as declared",
                         "more data than declared (corrupt size)");
      }
      if (!probing && written > 0) {
        crc_ = crc32_z(crc_, out + got, written);
        got += written;
        produced_ += written;
      }
      if (status == Z_STREAM_END) {
        finish();
        break;
      }
      if (status == Z_NEED_DICT || status == Z_DATA_ERROR || status == Z_STREAM_ERROR) {
        throw InputError(source_.name(), field_, "a valid deflate stream",
                         std::string("corrupt data (zlib: ") + (stream_.msg != nullptr ? stream_.msg : "data error") + ") after " +
                             std::to_string(produced_) + " bytes");
      }
      if (status == Z_MEM_ERROR) throw std::bad_alloc();
      const bool stalled = written == 0 && stream_.avail_in == input_before;
      if (stalled && stream_.avail_in == 0 && left_ == 0) {
        throw InputError(source_.name(), field_, std::to_string(declared) + " uncompressed bytes as declared",
                         "the deflate stream ends early after " + std::to_string(produced_) + " bytes (truncated or size too large)");
      }
    }
    return got;
  }

 private:
  void finish() {
    if (produced_ != member_.uncompressed_size) {
      throw InputError(source_.name(), field_, std::to_string(member_.uncompressed_size) + " uncompressed bytes as declared",
                       std::to_string(produced_) + " bytes");
    }
    if (static_cast<uint32_t>(crc_) != member_.crc32) {
      throw InputError(source_.name(), field_, "CRC-32 " + hex32(member_.crc32),
                       "CRC-32 " + hex32(static_cast<uint32_t>(crc_)) + " (corrupt data)");
    }
    ended_ = true;
  }

  const ByteSource& source_;
  const ZipMember& member_;
  const std::string field_;
  z_stream stream_{};
  std::vector<uint8_t> chunk_;
  uint64_t offset_, left_;
  uint64_t produced_ = 0;
  uLong crc_ = crc32(0, nullptr, 0);
  bool ended_ = false;
};

}  // namespace

ByteBuffer ZipReader::inflate_member(const ZipMember& member, uint64_t offset, uint64_t stop_after) const {
  MemberInflater inflater(source_, member, offset);
  const uint64_t declared = member.uncompressed_size;
  const uint64_t first_room = std::max(kMinimumInflateRoom, member.compressed_size * kInflateRoomPerCompressedByte);
  ByteBuffer out(static_cast<size_t>(std::min({declared, first_room, std::max<uint64_t>(stop_after, 1)})));
  uint64_t produced = 0;
  for (;;) {
    if (produced == out.size() && produced < declared) {
      out.resize(static_cast<size_t>(std::min<uint64_t>(declared, std::max<uint64_t>(out.size() * 2, 1u << 20))));
    }
    const size_t room = produced < out.size() ? out.size() - static_cast<size_t>(produced) : 1;  // 1: the end's checks
    const size_t got = inflater.next(out.data() + produced, room);
    if (got == 0) break;  // ended: size and CRC checked
    produced += got;
    if (produced >= stop_after && stop_after < declared) {  // a prefix: no size or CRC check
      out.resize(static_cast<size_t>(stop_after));
      return out;
    }
  }
  out.resize(static_cast<size_t>(produced));
  return out;
}

void ZipReader::read_in_pieces(const ZipMember& member, size_t piece_bytes,
                               const std::function<void(const uint8_t* data, size_t size)>& consume) const {
  const uint64_t offset = data_offset(member);
  std::vector<uint8_t> piece(std::max<size_t>(piece_bytes, 1));
  if (member.method == 8) {
    MemberInflater inflater(source_, member, offset);
    for (size_t got; (got = inflater.next(piece.data(), piece.size())) > 0;) consume(piece.data(), got);
    return;
  }
  uLong crc = crc32(0, nullptr, 0);
  for (uint64_t done = 0; done < member.compressed_size;) {
    const size_t take = static_cast<size_t>(std::min<uint64_t>(piece.size(), member.compressed_size - done));
    source_.read(offset + done, take, piece.data(), "stored member data");
    crc = crc32_z(crc, piece.data(), take);
    consume(piece.data(), take);
    done += take;
  }
  if (static_cast<uint32_t>(crc) != member.crc32) {
    throw InputError(source_.name(), "member '" + member.name + "'", "CRC-32 " + hex32(member.crc32),
                     "CRC-32 " + hex32(static_cast<uint32_t>(crc)) + " (corrupt data)");
  }
}

// ---------------------------------------------------------------------------------------------
// Writing

ZipWriter::ZipWriter(std::string path, const std::vector<std::string>& inputs)
    : file_(std::make_unique<AtomicFile>(std::move(path), inputs)) {}

ZipWriter::~ZipWriter() = default;

void ZipWriter::write_bytes(const void* data, size_t size) { file_->write(data, size); }

namespace {

// Local header with 0xFFFFFFFF sizes and a zip64 extra holding (uncompressed, compressed).
std::vector<uint8_t> local_header(const ZipMember& member) {
  std::vector<uint8_t> out;
  put_u32(out, kLocalHeaderSignature);
  put_u16(out, 45);  // version needed: zip64
  put_u16(out, 0);   // flags
  put_u16(out, member.method);
  put_u16(out, 0);     // time 00:00
  put_u16(out, 0x21);  // date 1980-01-01
  put_u32(out, member.crc32);
  put_u32(out, 0xFFFFFFFFu);
  put_u32(out, 0xFFFFFFFFu);
  put_u16(out, static_cast<uint16_t>(member.name.size()));
  put_u16(out, 20);
  out.insert(out.end(), member.name.begin(), member.name.end());
  put_u16(out, kZip64ExtraId);
  put_u16(out, 16);
  put_u64(out, member.uncompressed_size);
  put_u64(out, member.compressed_size);
  return out;
}

}  // namespace

void ZipWriter::add(const std::string& member_name, const std::vector<ByteSpan>& parts, ZipCompression compression) {
  add_streamed(member_name, compression, [&](const ByteSink& write) {
    for (const ByteSpan& part : parts) write(part.data, part.size);
  });
}

void ZipWriter::add_streamed(const std::string& member_name, ZipCompression compression,
                             const std::function<void(const ByteSink&)>& produce) {
  if (file_ == nullptr) throw InternalError("ZipWriter::add after finish");
  if (member_name.size() > 0xFFFF) throw InternalError("zip member name too long");
  for (const ZipMember& existing : members_) {
    if (existing.name == member_name) {
      throw InternalError("duplicate zip member name '" + member_name + "'");
    }
  }
  ZipMember member;
  member.name = member_name;
  member.method = compression == ZipCompression::Deflate ? 8 : 0;
  member.local_header_offset = position();

  // The CRC and sizes are known only at the end: they are patched into the local header then
  // (the file is seekable).
  const uint64_t header_offset = position();
  std::vector<uint8_t> header = local_header(member);
  write_bytes(header.data(), header.size());
  const uint64_t data_start = position();
  uLong crc = crc32(0, nullptr, 0);

  if (compression == ZipCompression::Stored) {
    produce([&](const void* data, size_t size) {
      // An empty piece may have no buffer, and zlib's crc32_z(crc, NULL, 0) restarts the CRC at 0.
      if (size == 0) return;
      crc = crc32_z(crc, static_cast<const Bytef*>(data), size);
      member.uncompressed_size += size;
      write_bytes(data, size);
    });
  } else {
    z_stream stream{};
    if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      throw std::bad_alloc();
    }
    struct StreamGuard {
      z_stream* stream;
      ~StreamGuard() { deflateEnd(stream); }
    } guard{&stream};
    std::vector<uint8_t> buffer(256u << 10);
    auto pump = [&](int flush) {
      int status;
      do {
        stream.next_out = buffer.data();
        stream.avail_out = static_cast<uInt>(buffer.size());
        status = deflate(&stream, flush);
        if (status == Z_STREAM_ERROR) throw InternalError("zlib deflate failed");
        write_bytes(buffer.data(), buffer.size() - stream.avail_out);
      } while (stream.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END));
    };
    produce([&](const void* data, size_t size) {
      if (size == 0) return;
      const Bytef* bytes = static_cast<const Bytef*>(data);
      crc = crc32_z(crc, bytes, size);
      member.uncompressed_size += size;
      size_t offset = 0;
      while (offset < size) {
        const size_t take = std::min<size_t>(size - offset, 1u << 30);
        stream.next_in = const_cast<Bytef*>(bytes + offset);
        stream.avail_in = static_cast<uInt>(take);
        pump(Z_NO_FLUSH);
        offset += take;
      }
    });
    stream.next_in = nullptr;
    stream.avail_in = 0;
    pump(Z_FINISH);
  }
  member.crc32 = static_cast<uint32_t>(crc);
  member.compressed_size = position() - data_start;

  header = local_header(member);
  file_->overwrite(header_offset, header.data(), header.size());
  members_.push_back(std::move(member));
}

void ZipWriter::finish() {
  if (file_ == nullptr) throw InternalError("ZipWriter::finish called twice");
  const uint64_t directory_offset = position();
  std::vector<uint8_t> out;
  for (const ZipMember& member : members_) {
    put_u32(out, kCentralHeaderSignature);
    put_u16(out, 45);  // made by: MS-DOS, zip64
    put_u16(out, 45);  // needed
    put_u16(out, 0);
    put_u16(out, member.method);
    put_u16(out, 0);
    put_u16(out, 0x21);
    put_u32(out, member.crc32);
    put_u32(out, 0xFFFFFFFFu);
    put_u32(out, 0xFFFFFFFFu);
    put_u16(out, static_cast<uint16_t>(member.name.size()));
    put_u16(out, 28);           // zip64 extra: 4 + 3 * 8
    put_u16(out, 0);            // comment
    put_u16(out, 0);            // disk
    put_u16(out, 0);            // internal attributes
    put_u32(out, 0x01800000u);  // external attributes: -rw------- (as Python writes)
    put_u32(out, 0xFFFFFFFFu);
    out.insert(out.end(), member.name.begin(), member.name.end());
    put_u16(out, kZip64ExtraId);
    put_u16(out, 24);
    put_u64(out, member.uncompressed_size);
    put_u64(out, member.compressed_size);
    put_u64(out, member.local_header_offset);
  }
  const uint64_t directory_size = out.size();
  const uint64_t zip64_end_offset = directory_offset + directory_size;
  put_u32(out, kZip64EndSignature);
  put_u64(out, kZip64EndRecordSize - 12);
  put_u16(out, 45);
  put_u16(out, 45);
  put_u32(out, 0);
  put_u32(out, 0);
  put_u64(out, members_.size());
  put_u64(out, members_.size());
  put_u64(out, directory_size);
  put_u64(out, directory_offset);
  put_u32(out, kZip64LocatorSignature);
  put_u32(out, 0);
  put_u64(out, zip64_end_offset);
  put_u32(out, 1);
  put_u32(out, kEndSignature);
  put_u16(out, 0);
  put_u16(out, 0);
  const uint16_t small_count = static_cast<uint16_t>(std::min<size_t>(members_.size(), 0xFFFF));
  put_u16(out, small_count);
  put_u16(out, small_count);
  put_u32(out, static_cast<uint32_t>(std::min<uint64_t>(directory_size, 0xFFFFFFFFu)));
  put_u32(out, 0xFFFFFFFFu);  // offset lives in the zip64 record
  put_u16(out, 0);
  write_bytes(out.data(), out.size());

  file_->commit();
  file_.reset();
}

}  // namespace graphcost
