#include "io/text_file.h"

#include <zlib.h>

#include <algorithm>

#include "common/input_error.h"
#include "common/memory_limit.h"
#include "io/byte_source.h"

namespace graphcost {
namespace {

std::string gunzip(const std::string& compressed, const std::string& path) {
  const uint64_t limit = input_memory_limit();
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw InputError(path, "gzip", "a stream zlib can open", "zlib refused to start");
  std::string out;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    if (out.size() >= limit) {
      inflateEnd(&stream);
      throw InputError(path, "inflated size", "at most the input memory limit " + format_byte_size(limit) + " (GRAPHCOST_MEMORY_LIMIT)",
                       "more than " + format_byte_size(out.size()));
    }
    const size_t room = static_cast<size_t>(std::min<uint64_t>(limit - out.size(), std::max<size_t>(1 << 20, out.size())));
    const size_t before = out.size();
    out.resize(before + room);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    stream.avail_out = static_cast<uInt>(room);
    status = inflate(&stream, Z_NO_FLUSH);
    out.resize(before + (room - stream.avail_out));
    if (status == Z_BUF_ERROR && stream.avail_in == 0) status = Z_DATA_ERROR;  // the input ended mid-stream
    if (status != Z_OK && status != Z_STREAM_END) {
      const std::string why = stream.msg != nullptr ? stream.msg : (stream.avail_in == 0 ? "truncated" : "corrupt");
      inflateEnd(&stream);
      throw InputError(path, "gzip stream", "a whole gzip stream", why + " after " + std::to_string(out.size()) + " bytes inflated");
    }
  }
  inflateEnd(&stream);
  return out;
}

}  // namespace

std::string read_text_file(const std::string& path) {
  const ByteSource file = ByteSource::open_file(path);
  if (file.size() > input_memory_limit()) {
    throw InputError(path, "size", "at most the input memory limit " + format_byte_size(input_memory_limit()) + " (GRAPHCOST_MEMORY_LIMIT)",
                     format_byte_size(file.size()));
  }
  std::string bytes(static_cast<size_t>(file.size()), '\0');
  if (!bytes.empty()) file.read(0, bytes.size(), reinterpret_cast<uint8_t*>(bytes.data()), "text");
  if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1f && static_cast<uint8_t>(bytes[1]) == 0x8b) return gunzip(bytes, path);
  return bytes;
}

}  // namespace graphcost
