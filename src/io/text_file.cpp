#include "io/text_file.h"

#include <zlib.h>

#include <algorithm>

#include "common/input_error.h"
#include "common/memory_limit.h"
#include "io/byte_source.h"

namespace graphcost {
namespace {

// Every member of a gzip file (bgzip writes many), inflated within the input memory limit. zlib
// counts in 32 bits: input and output are handed over a gigabyte at a time at most.
std::string gunzip(const std::string& compressed, const std::string& path) {
  constexpr size_t kChunk = size_t{1} << 30;
  const uint64_t limit = input_memory_limit();
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw InputError(path, "gzip", "a stream zlib can open", "zlib refused to start");
  const auto fail = [&](const std::string& why, size_t inflated) {
    inflateEnd(&stream);
    throw InputError(path, "gzip stream", "a whole gzip stream", why + " after " + std::to_string(inflated) + " bytes inflated");
  };
  std::string out;
  size_t consumed = 0;
  for (;;) {
    if (out.size() >= limit) {
      inflateEnd(&stream);
      throw InputError(path, "inflated size", "at most the input memory limit " + format_byte_size(limit) + " (GRAPHCOST_MEMORY_LIMIT)",
                       "more than " + format_byte_size(out.size()));
    }
    const size_t given = std::min(kChunk, compressed.size() - consumed);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + consumed));
    stream.avail_in = static_cast<uInt>(given);
    const size_t room = static_cast<size_t>(std::min<uint64_t>({limit - out.size(), std::max<size_t>(1 << 20, out.size()), kChunk}));
    const size_t before = out.size();
    out.resize(before + room);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    stream.avail_out = static_cast<uInt>(room);
    const int status = inflate(&stream, Z_NO_FLUSH);
    out.resize(before + (room - stream.avail_out));
    consumed += given - stream.avail_in;
    if (status == Z_STREAM_END) {
      if (consumed == compressed.size()) break;
      // Another member follows (bgzip writes many); anything else after the last one is refused.
      if (inflateReset(&stream) != Z_OK) fail("a member zlib could not restart after", out.size());
      continue;
    }
    if (status == Z_OK) continue;
    if (status == Z_BUF_ERROR && consumed == compressed.size()) fail("truncated", out.size());  // the input ended mid-member
    if (status != Z_BUF_ERROR) fail(stream.msg != nullptr ? stream.msg : "corrupt", out.size());
  }
  inflateEnd(&stream);
  return out;
}

}  // namespace

std::string read_whole_file(const std::string& path, const char* field) {
  const ByteSource file = ByteSource::open_file(path);
  if (file.size() > input_memory_limit()) {
    throw InputError(path, "size", "at most the input memory limit " + format_byte_size(input_memory_limit()) + " (GRAPHCOST_MEMORY_LIMIT)",
                     format_byte_size(file.size()));
  }
  std::string bytes(static_cast<size_t>(file.size()), '\0');
  if (!bytes.empty()) file.read(0, bytes.size(), reinterpret_cast<uint8_t*>(bytes.data()), field);
  return bytes;
}

std::string read_text_file(const std::string& path) {
  std::string bytes = read_whole_file(path, "text");
  if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1f && static_cast<uint8_t>(bytes[1]) == 0x8b) return gunzip(bytes, path);
  return bytes;
}

}  // namespace graphcost
