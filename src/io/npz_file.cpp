#include "io/npz_file.h"

#include <algorithm>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "common/memory_limit.h"

namespace graphcost {

const NpyArray* NpzFile::find(const std::string& array_name) const {
  for (const auto& [name, array] : arrays) {
    if (name == array_name) return &array;
  }
  return nullptr;
}

NpzFile read_npz(ByteSource source, const NpzReadOptions& options) {
  const std::string name = source.name();
  const uint64_t limit = options.memory_limit != 0 ? options.memory_limit : input_memory_limit();
  try {
    ZipReader archive(std::move(source));
    NpzFile file;
    file.source_name = name;
    file.arrays.reserve(archive.members().size());
    const std::string suffix = ".npy";
    for (const ZipMember& member : archive.members()) {
      if (member.name.size() <= suffix.size() || member.name.compare(member.name.size() - suffix.size(), suffix.size(), suffix) != 0) {
        throw InputError(name, "member '" + member.name + "'", "a .npy member (an .npz archive)", "another kind of member");
      }
      file.names.push_back(member.name.substr(0, member.name.size() - suffix.size()));
    }
    uint64_t charged = 0;
    for (size_t index = 0; index < archive.members().size(); ++index) {
      const ZipMember& member = archive.members()[index];
      const std::string& array_name = file.names[index];
      if (!options.only.empty() && std::find(options.only.begin(), options.only.end(), array_name) == options.only.end()) {
        continue;  // never inflated
      }
      const std::string field = "member '" + member.name + "'";
      // Headers are ~128 bytes: 4 KiB almost always holds one; a longer one is read again whole.
      ByteBuffer prefix = archive.read_prefix(member, 4096);
      const size_t needed = NpyArray::header_bytes_needed(prefix.data(), prefix.size());
      if (needed > prefix.size()) prefix = archive.read_prefix(member, std::min(needed, NpyArray::kMaxHeaderBytes + 16));
      const NpyHeader header = NpyArray::parse_header(prefix.data(), prefix.size(), member.name);
      if (header.total_bytes() != member.uncompressed_size) {
        throw InputError(name, field,
                         "the " + std::to_string(header.total_bytes()) + " bytes its npy header declares (shape " +
                             shape_text(header.shape) + " of " + dtype_name(header.dtype) + " + " + std::to_string(header.data_offset) +
                             " header bytes) as its zip size",
                         std::to_string(member.uncompressed_size) + " bytes in the zip directory");
      }
      if (options.check_header) {
        try {
          options.check_header(array_name, header);
        } catch (const InputError& error) {
          throw error.within(name, field);
        }
      }
      charged += member.uncompressed_size;
      if (charged > limit) {
        throw InputError(
            name, field,
            "at most " + format_byte_size(limit) +
                " of arrays in all (the input memory limit: GRAPHCOST_MEMORY_LIMIT, "
                "default half of physical memory)",
            format_byte_size(member.uncompressed_size) + " for this array, " + format_byte_size(charged) + " with the arrays before it");
      }
      ByteBuffer bytes;
      try {
        bytes = archive.read(member);
      } catch (const std::bad_alloc&) {
        throw InputError(name, field, "memory for its " + format_byte_size(member.uncompressed_size),
                         "an allocation failure (out of memory or under ulimit -v)");
      }
      file.arrays.emplace_back(array_name, NpyArray::parse(std::move(bytes), member.name));
    }
    return file;
  } catch (const InputError& error) {
    throw error.within(name, "");
  }
}

NpzFile read_npz_file(const std::string& path, const NpzReadOptions& options) { return read_npz(ByteSource::open_file(path), options); }

void write_npz(const std::string& path, const std::vector<std::pair<std::string, const NpyArray*>>& arrays, ZipCompression compression) {
  NpzWriter writer(path, compression);
  for (const auto& [name, array] : arrays) writer.add(name, *array);
  writer.finish();
}

NpzWriter::NpzWriter(std::string path, ZipCompression compression, const std::vector<std::string>& inputs)
    : writer_(std::move(path), inputs), compression_(compression) {}

void NpzWriter::add(const std::string& name, const NpyArray& array) {
  const std::vector<uint8_t> header = array.header_bytes();
  writer_.add(name + ".npy", {{header.data(), header.size()}, {array.data(), array.byte_size()}}, compression_);
}

void NpzWriter::add_streamed(const std::string& name, DType dtype, const std::vector<int64_t>& shape, bool fortran_order,
                             const std::function<void(const ZipWriter::ByteSink&)>& produce) {
  uint64_t expected = dtype_size(dtype);
  for (const int64_t dim : shape) expected *= static_cast<uint64_t>(dim);
  writer_.add_streamed(name + ".npy", compression_, [&](const ZipWriter::ByteSink& write) {
    const std::vector<uint8_t> header = NpyArray::header_for(dtype, shape, fortran_order);
    write(header.data(), header.size());
    uint64_t written = 0;
    produce([&](const void* data, size_t size) {
      written += size;
      check_invariant(written <= expected, "a streamed npy array holds no more bytes than its shape");
      write(data, size);
    });
    check_invariant(written == expected, "a streamed npy array holds the bytes its shape declares");
  });
}

void NpzWriter::finish() { writer_.finish(); }

}  // namespace graphcost
