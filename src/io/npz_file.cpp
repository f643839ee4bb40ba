#include "io/npz_file.h"

#include "common/input_error.h"

namespace graphcost {

const NpyArray* NpzFile::find(const std::string& array_name) const {
  for (const auto& [name, array] : arrays) {
    if (name == array_name) return &array;
  }
  return nullptr;
}

NpzFile read_npz(ByteSource source) {
  const std::string name = source.name();
  try {
    ZipReader archive(std::move(source));
    NpzFile file;
    file.source_name = name;
    file.arrays.reserve(archive.members().size());
    for (const ZipMember& member : archive.members()) {
      const std::string suffix = ".npy";
      if (member.name.size() <= suffix.size() ||
          member.name.compare(member.name.size() - suffix.size(), suffix.size(), suffix) != 0) {
        throw InputError(name, "member '" + member.name + "'", "a .npy member (an .npz archive)",
                         "another kind of member");
      }
      NpyArray array = NpyArray::parse(archive.read(member), member.name);
      file.arrays.emplace_back(member.name.substr(0, member.name.size() - suffix.size()),
                               std::move(array));
    }
    return file;
  } catch (const InputError& error) {
    throw error.within(name, "");
  }
}

NpzFile read_npz_file(const std::string& path) { return read_npz(ByteSource::open_file(path)); }

void write_npz(const std::string& path,
               const std::vector<std::pair<std::string, const NpyArray*>>& arrays,
               ZipCompression compression) {
  ZipWriter writer(path);
  for (const auto& [name, array] : arrays) {
    const std::vector<uint8_t> header = array->header_bytes();
    writer.add(name + ".npy", {{header.data(), header.size()}, {array->data(), array->byte_size()}},
               compression);
  }
  writer.finish();
}

}  // namespace graphcost
