#include "data/config_store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/internal_error.h"
#include "common/io_error.h"
#include "io/npz_file.h"
#include "io/zip_archive.h"

namespace graphcost {
namespace {

constexpr int kFormat = 1;
constexpr size_t kConfigsHeaderBytes = 128;  // configs.npy's header, written before the row count is known

struct SourceStamp {
  uint64_t bytes = 0;
  int64_t modified_ns = 0;
};

SourceStamp stamp_of(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw InputError(path, "", "a readable file", std::strerror(errno));
  return {static_cast<uint64_t>(info.st_size), static_cast<int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec};
}

// 128 bits of a row: FNV-1a and a multiply-rotate hash, independent of each other.
struct RowHash {
  uint64_t a, b;
  bool operator==(const RowHash& other) const { return a == other.a && b == other.b; }
};
struct RowHashOf {
  size_t operator()(const RowHash& h) const { return static_cast<size_t>(h.a ^ (h.b * 0x9e3779b97f4a7c15ull)); }
};
RowHash hash_row(const int8_t* row, size_t size) {
  uint64_t a = 1469598103934665603ull, b = 0x243f6a8885a308d3ull;
  for (size_t i = 0; i < size; ++i) {
    const uint64_t v = static_cast<uint8_t>(row[i]);
    a = (a ^ v) * 1099511628211ull;
    b = (b + v + 1) * 0xff51afd7ed558ccdull;
    b = (b << 29) | (b >> 35);
  }
  return {a, b};
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable file", "cannot open it");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json read_manifest(const std::string& folder) {
  const std::string path = folder + "/manifest.json";
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw InputError(folder, "manifest.json", "a prepared config store (graphcost prepare)", "none: unprepared or unfinished");
  }
  const nlohmann::json manifest = nlohmann::json::parse(read_text(path), nullptr, false);
  if (!manifest.is_object() || manifest.value("format", 0) != kFormat) {
    throw InputError(path, "format", "a config store manifest of format " + std::to_string(kFormat),
                     manifest.is_object() ? manifest.value("format", nlohmann::json()).dump() : "unparsable JSON");
  }
  for (const char* key : {"source", "source_bytes", "source_modified_ns", "nodes", "edges", "configurable", "configs", "distinct"}) {
    if (!manifest.contains(key)) throw InputError(path, key, "present", "missing");
  }
  return manifest;
}

// Reads node_config_feat's npy header from the member's first bytes.
NpyHeader config_header(const ZipReader& zip, const ZipMember& member, const std::string& source) {
  ByteBuffer prefix = zip.read_prefix(member, 4096);
  const size_t needed = NpyArray::header_bytes_needed(prefix.data(), prefix.size());
  if (needed > prefix.size() && needed <= NpyArray::kMaxHeaderBytes) prefix = zip.read_prefix(member, needed);
  return NpyArray::parse_header(prefix.data(), prefix.size(), source + ": node_config_feat.npy");
}

}  // namespace

std::string config_store_folder(const std::string& cache, const std::string& source) {
  const DatasetPath location = parse_dataset_path(source);
  if (!location.in_tree()) {
    throw InputError(source, "path", "a file inside a TpuGraphs tree (.../npz/layout/<family>/<search>/<split>/<name>.npz)",
                     "a path outside one");
  }
  if (location.is_tile()) throw InputError(source, "collection", "a layout file (tile configs are loaded whole)", location.collection);
  std::string collection_path = location.collection;
  std::replace(collection_path.begin(), collection_path.end(), ':', '/');
  return cache + "/" + collection_path + "/" + location.split + "/" + location.stem;
}

namespace {

ConfigStoreManifest parse_manifest(const nlohmann::json& manifest, const std::string& folder) {
  ConfigStoreManifest out;
  try {
    out.source = manifest["source"].get<std::string>();
    out.nodes = manifest["nodes"].get<int64_t>();
    out.edges = manifest["edges"].get<int64_t>();
    out.configurable = manifest["configurable"].get<int64_t>();
    out.configs = manifest["configs"].get<int64_t>();
    out.distinct = manifest["distinct"].get<int64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(folder + "/manifest.json", "counts", "integers", e.what());
  }
  if (out.nodes <= 0 || out.edges < 0 || out.configurable < 0 || out.distinct <= 0 || out.distinct > out.configs) {
    throw InputError(folder + "/manifest.json", "counts", "positive nodes and 0 < distinct <= configs", manifest.dump());
  }
  return out;
}

// The manifest of a finished entry made from `source` as it is now, read once; nothing when the
// entry is missing, unfinished, stale or its manifest is corrupt (preparing again rebuilds it).
std::optional<ConfigStoreManifest> current_manifest(const std::string& folder, const std::string& source) {
  try {
    const nlohmann::json manifest = read_manifest(folder);
    const SourceStamp now = stamp_of(source);
    if (manifest["source_bytes"].get<uint64_t>() != now.bytes || manifest["source_modified_ns"].get<int64_t>() != now.modified_ns) {
      return std::nullopt;
    }
    return parse_manifest(manifest, folder);
  } catch (const InputError&) {
    return std::nullopt;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

bool config_store_is_current(const std::string& folder, const std::string& source) { return current_manifest(folder, source).has_value(); }

size_t config_store_piece_bytes(uint64_t memory_budget) {
  constexpr uint64_t kLargest = 4u << 20;
  return static_cast<size_t>(memory_budget > 0 ? std::min<uint64_t>(kLargest, memory_budget / 16) : kLargest);
}

namespace {

// node_config_feat's npy header, checked against the structure (c configs, nc configurable nodes)
// before a byte of its data is read.
NpyHeader checked_config_header(const ZipReader& zip, const ZipMember& member, const std::string& source, int64_t c, int64_t nc) {
  const NpyHeader header = config_header(zip, member, source);
  const std::vector<int64_t> expected_shape = {c, nc, kLayoutConfigFeatureCount};
  if (header.shape != expected_shape) {
    throw InputError(source, "node_config_feat", "shape " + shape_text(expected_shape) + " (config_runtime's c, node_config_ids' nc, 18)",
                     "shape " + shape_text(header.shape));
  }
  if (header.dtype != DType::Float32 && header.dtype != DType::Float64) {
    throw InputError(source, "node_config_feat", "a float dtype (float32 on disk)", dtype_name(header.dtype));
  }
  if (header.fortran_order && c > 1 && nc > 0) throw InputError(source, "node_config_feat", "C order", "Fortran order");
  if (member.uncompressed_size != header.total_bytes()) {
    throw InputError(source, "node_config_feat", std::to_string(header.total_bytes()) + " bytes (header + data)",
                     std::to_string(member.uncompressed_size) + " bytes in the archive");
  }

  return header;
}

// Each distinct config's runtime: the mean of its copies' (rounded to the nearest ns), with the
// copy counts.
std::pair<std::vector<int64_t>, std::vector<int64_t>> averaged_runtimes(const TpuGraph& graph, const std::vector<int32_t>& distinct_of,
                                                                        int64_t distinct, const std::string& source) {
  const int64_t c = graph.config_count;
  std::vector<int64_t> sums(static_cast<size_t>(distinct), 0), copies(static_cast<size_t>(distinct), 0);
  for (int64_t r = 0; r < c; ++r) {
    const size_t d = static_cast<size_t>(distinct_of[static_cast<size_t>(r)]);
    sums[d] += graph.config_runtime_ns[static_cast<size_t>(r)];  // runtimes < 2^63 / 10^5 in practice; checked below
    copies[d] += 1;
  }
  std::vector<int64_t> runtimes(static_cast<size_t>(distinct));
  for (size_t d = 0; d < runtimes.size(); ++d) {
    if (sums[d] < 0) throw InputError(source, "config_runtime", "runtimes whose sum fits in 64 bits", "an overflowing sum");
    runtimes[d] = (sums[d] + copies[d] / 2) / copies[d];
  }

  return {runtimes, copies};
}

// structure.npz: the graph without its configs, and the distinct configs' runtimes and copies.
void write_store_structure(const std::string& path, const TpuGraph& graph, const std::vector<int64_t>& runtimes,
                           const std::vector<int64_t>& copies) {
  const int64_t nc = graph.configurable_count(), distinct = static_cast<int64_t>(runtimes.size());
  std::vector<int64_t> ids(graph.configurable_nodes.begin(), graph.configurable_nodes.end());
  std::vector<int64_t> edge_values;
  for (const Edge& e : graph.edges) edge_values.push_back(e.consumer), edge_values.push_back(e.producer);
  const NpyArray node_feat = NpyArray::from_values<float>({graph.node_count, kNodeFeatureCount}, graph.node_features);
  const NpyArray node_opcode = NpyArray::from_values<uint8_t>({graph.node_count}, graph.node_opcodes);
  const NpyArray edge_index = NpyArray::from_values<int64_t>({static_cast<int64_t>(graph.edges.size()), 2}, edge_values);
  const NpyArray config_ids = NpyArray::from_values<int64_t>({nc}, ids);
  const NpyArray splits = NpyArray::from_values<int64_t>({1, static_cast<int64_t>(graph.node_splits.size())}, graph.node_splits);
  const NpyArray runtime = NpyArray::from_values<int64_t>({distinct}, runtimes);
  const NpyArray copy_counts = NpyArray::from_values<int64_t>({distinct}, copies);
  write_npz(path,
            {{"node_feat", &node_feat},
             {"node_opcode", &node_opcode},
             {"edge_index", &edge_index},
             {"node_config_ids", &config_ids},
             {"node_splits", &splits},
             {"config_runtime", &runtime},
             {"config_copies", &copy_counts}},
            ZipCompression::Deflate);
}

}  // namespace

PreparedStore prepare_config_store(const std::string& source, const std::string& folder, size_t piece_bytes) {
  PreparedStore result;
  if (const std::optional<ConfigStoreManifest> manifest = current_manifest(folder, source)) {
    result.configs = manifest->configs;
    result.distinct = manifest->distinct;
    result.reused = true;
    return result;
  }
  const SourceStamp stamp = stamp_of(source);
  // The structure, validated as load_tpu_graph validates it, without node_config_feat.
  NpzReadOptions options;
  options.only = {"node_feat", "node_opcode", "edge_index", "node_config_ids", "config_runtime", "node_splits"};
  TpuGraph graph = tpu_graph_from_npz(read_npz_file(source, options), source, LayoutConfigs::Elsewhere);
  const int64_t c = graph.config_count, nc = graph.configurable_count();
  const size_t row_values = static_cast<size_t>(nc) * kLayoutConfigFeatureCount;

  const ZipReader zip(ByteSource::open_file(source));
  const ZipMember* member = zip.find("node_config_feat.npy");
  if (member == nullptr) throw InputError(source, "key 'node_config_feat'", "present in a layout file", "missing");
  const NpyHeader header = checked_config_header(zip, *member, source, c, nc);

  std::error_code created;
  std::filesystem::create_directories(folder, created);
  if (created) throw IoError(folder, "create the folder", created.value());
  ::unlink((folder + "/manifest.json").c_str());  // the entry is unfinished until the new manifest lands

  AtomicFile configs_file(folder + "/configs.npy", {source});
  const std::vector<uint8_t> placeholder =
      NpyArray::header_for(DType::Int8, {0, nc, kLayoutConfigFeatureCount}, false, kConfigsHeaderBytes);
  configs_file.write(placeholder.data(), placeholder.size());

  const size_t element_bytes = dtype_size(header.dtype);
  const size_t row_bytes = row_values * element_bytes;
  std::vector<uint8_t> row(std::max<size_t>(row_bytes, 1));
  std::vector<int8_t> values(row_values);
  size_t row_fill = 0;
  uint64_t skip = header.data_offset;
  int64_t next_row = 0;
  std::unordered_map<RowHash, int32_t, RowHashOf> distinct_of_hash;
  std::vector<int32_t> distinct_of(static_cast<size_t>(c));
  auto finish_row = [&] {
    for (size_t k = 0; k < row_values; ++k) {
      const float value = header.dtype == DType::Float32 ? reinterpret_cast<const float*>(row.data())[k]
                                                         : static_cast<float>(reinterpret_cast<const double*>(row.data())[k]);
      values[k] = layout_config_value(value, source, static_cast<uint64_t>(next_row) * row_values + k, nc);
    }
    const auto [found, added] =
        distinct_of_hash.emplace(hash_row(values.data(), values.size()), static_cast<int32_t>(distinct_of_hash.size()));
    if (added) configs_file.write(values.data(), values.size());
    distinct_of[static_cast<size_t>(next_row)] = found->second;
    ++next_row;
  };
  if (row_bytes == 0) {  // no configurable nodes: every config is the same empty row
    for (int64_t r = 0; r < c; ++r) finish_row();
  } else {
    zip.read_in_pieces(*member, piece_bytes, [&](const uint8_t* data, size_t size) {
      const size_t skipped = static_cast<size_t>(std::min<uint64_t>(skip, size));
      skip -= skipped;
      for (size_t at = skipped; at < size;) {
        const size_t take = std::min(size - at, row_bytes - row_fill);
        std::memcpy(row.data() + row_fill, data + at, take);
        row_fill += take;
        at += take;
        if (row_fill == row_bytes) {
          finish_row();
          row_fill = 0;
        }
      }
    });
  }
  if (next_row != c) throw InternalError("prepare_config_store: " + std::to_string(next_row) + " rows of " + std::to_string(c));

  const int64_t distinct = static_cast<int64_t>(distinct_of_hash.size());
  const std::pair<std::vector<int64_t>, std::vector<int64_t>> averaged = averaged_runtimes(graph, distinct_of, distinct, source);
  const std::vector<int64_t>& runtimes = averaged.first;
  const std::vector<int64_t>& copies = averaged.second;

  const std::vector<uint8_t> final_header =
      NpyArray::header_for(DType::Int8, {distinct, nc, kLayoutConfigFeatureCount}, false, kConfigsHeaderBytes);
  if (final_header.size() != placeholder.size()) throw InternalError("configs.npy header size changed");
  configs_file.overwrite(0, final_header.data(), final_header.size());
  result.store_bytes = configs_file.written();
  configs_file.commit();

  write_store_structure(folder + "/structure.npz", graph, runtimes, copies);

  const nlohmann::json manifest = {{"format", kFormat},           {"source", source},
                                   {"source_bytes", stamp.bytes}, {"source_modified_ns", stamp.modified_ns},
                                   {"nodes", graph.node_count},   {"edges", graph.edges.size()},
                                   {"configurable", nc},          {"configs", c},
                                   {"distinct", distinct},        {"runtimes_hidden", graph.runtimes_hidden}};
  write_file_atomically(folder + "/manifest.json", manifest.dump(1) + "\n");
  result.configs = c;
  result.distinct = distinct;
  return result;
}

ConfigStoreManifest read_config_store_manifest(const std::string& folder) { return parse_manifest(read_manifest(folder), folder); }

std::unique_ptr<StoredGraph> StoredGraph::open(const std::string& folder, const std::string& source) {
  const std::optional<ConfigStoreManifest> current = current_manifest(folder, source);
  if (!current) {
    read_config_store_manifest(folder);  // names an unfinished entry or a corrupt manifest
    throw InputError(folder, "manifest.json", "an entry made from " + source + " as it is now",
                     "a stale one (run graphcost prepare again)");
  }
  const ConfigStoreManifest& manifest = *current;
  std::unique_ptr<StoredGraph> stored(new StoredGraph());
  const std::string structure = folder + "/structure.npz";
  NpzFile npz = read_npz_file(structure);
  stored->graph_ = tpu_graph_from_npz(npz, structure, LayoutConfigs::Elsewhere);
  TpuGraph& graph = stored->graph_;
  if (graph.config_count != manifest.distinct) {
    throw InputError(structure, "config_runtime", std::to_string(manifest.distinct) + " configs (manifest)",
                     std::to_string(graph.config_count));
  }
  const NpyArray* copies = npz.find("config_copies");
  if (copies == nullptr || copies->shape() != std::vector<int64_t>{graph.config_count}) {
    throw InputError(structure, "config_copies", "shape (" + std::to_string(graph.config_count) + ",)",
                     copies == nullptr ? "missing" : copies->shape_text());
  }
  stored->copies_ = copies->to_vector<int64_t>(structure, "config_copies");
  int64_t total = 0;
  for (int64_t n : stored->copies_) {
    if (n < 1) throw InputError(structure, "config_copies", "counts >= 1", std::to_string(n));
    total += n;
  }
  if (total != manifest.configs)
    throw InputError(structure, "config_copies", "a sum of " + std::to_string(manifest.configs), std::to_string(total));
  stored->runtimes_ = graph.config_runtime_ns;
  graph.source = source;
  graph.location = parse_dataset_path(source);
  graph.config_runtime_ns.clear();
  graph.config_count = 0;

  // configs.npy: an int8 (distinct, nc, 18) array, mapped read-only.
  stored->configs_path_ = folder + "/configs.npy";
  const std::string& path = stored->configs_path_;
  stored->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (stored->fd_ < 0) throw InputError(path, "", "a readable file", std::strerror(errno));
  struct stat info {};
  ::fstat(stored->fd_, &info);
  std::vector<uint8_t> head(static_cast<size_t>(std::min<off_t>(info.st_size, 4096)));
  if (::pread(stored->fd_, head.data(), head.size(), 0) != static_cast<ssize_t>(head.size()))
    throw InputError(path, "header", "readable", "a short read");
  const NpyHeader header = NpyArray::parse_header(head.data(), head.size(), path);
  const std::vector<int64_t> shape = {manifest.distinct, graph.configurable_count(), kLayoutConfigFeatureCount};
  if (header.dtype != DType::Int8 || header.shape != shape || header.fortran_order) {
    throw InputError(path, "header", "int8 shape " + shape_text(shape) + " in C order",
                     std::string(dtype_name(header.dtype)) + " shape " + shape_text(header.shape));
  }
  if (static_cast<uint64_t>(info.st_size) != header.total_bytes()) {
    throw InputError(path, "size", std::to_string(header.total_bytes()) + " bytes", std::to_string(info.st_size) + " bytes (truncated?)");
  }
  stored->map_bytes_ = static_cast<size_t>(info.st_size);
  void* map = ::mmap(nullptr, stored->map_bytes_, PROT_READ, MAP_SHARED, stored->fd_, 0);
  if (map == MAP_FAILED) throw IoError(path, "map it into memory", errno);
  ::madvise(map, stored->map_bytes_, MADV_RANDOM);
  stored->map_ = static_cast<const uint8_t*>(map);
  stored->data_offset_ = header.data_offset;
  stored->row_bytes_ = static_cast<size_t>(graph.configurable_count()) * kLayoutConfigFeatureCount;
  return stored;
}

StoredGraph::~StoredGraph() {
  if (map_ != nullptr) ::munmap(const_cast<uint8_t*>(map_), map_bytes_);
  if (fd_ >= 0) ::close(fd_);
}

const TpuGraph& StoredGraph::select(const std::vector<int32_t>& configs) {
  graph_.layout_config_features.resize(configs.size() * row_bytes_);
  graph_.config_runtime_ns.resize(configs.size());
  for (size_t i = 0; i < configs.size(); ++i) {
    const int32_t c = configs[i];
    check_invariant(c >= 0 && c < config_count(), "StoredGraph::select: config out of range");
    std::memcpy(graph_.layout_config_features.data() + i * row_bytes_, map_ + data_offset_ + static_cast<size_t>(c) * row_bytes_,
                row_bytes_);
    graph_.config_runtime_ns[i] = runtimes_[static_cast<size_t>(c)];
  }
  // The pages read leave this process (they stay in the kernel's page cache), so what it holds
  // does not grow with the configs it has read. The whole mapping, not just the rows: a fault
  // also maps neighbouring cached pages (fault-around), which count as resident too.
  if (!configs.empty()) ::madvise(const_cast<uint8_t*>(map_), map_bytes_, MADV_DONTNEED);
  graph_.config_count = static_cast<int32_t>(configs.size());
  return graph_;
}

}  // namespace graphcost
