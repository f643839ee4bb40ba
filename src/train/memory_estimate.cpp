#include "train/memory_estimate.h"

#include <algorithm>
#include <limits>

#include "common/input_error.h"
#include "common/io_error.h"
#include "common/memory_limit.h"
#include "io/npz_file.h"
#include "io/zip_archive.h"
#include "model/graph_view.h"
#include "model/layout_inference.h"

namespace graphcost {

std::string MemoryEstimate::text() const {
  return "structure " + format_byte_size(structure) + " (" + std::to_string(graphs) + " graphs) + configs " + format_byte_size(configs) +
         " + a step " + format_byte_size(step) + " + validation " + format_byte_size(validation) + " + the program " +
         format_byte_size(program);
}

uint64_t step_rows(const std::string& file, int hops) {
  try {
    // The graph's structure through the one schema reader (data/tpu_graph.h), its configs left
    // in the file: the same checks as any load, without the largest array.
    NpzReadOptions only;
    only.only = {"node_feat",      "node_opcode", "edge_index",  "node_config_ids",
                 "config_runtime", "node_splits", "config_feat", "config_runtime_normalizers"};
    const TpuGraph graph = tpu_graph_from_npz(read_npz_file(file, only), file, LayoutConfigs::Elsewhere);
    if (graph.kind != GraphKind::Layout || hops < 0) return static_cast<uint64_t>(graph.node_count);
    return static_cast<uint64_t>(make_graph_view(graph, hops).size());
  } catch (const InputError&) {
    return 0;
  } catch (const IoError&) {
    return 0;
  }
}

MemoryEstimate estimate_training_memory(const std::vector<std::string>& files, const TrainOptions& options) {
  MemoryEstimate estimate;
  const bool use_cache = !options.cache.empty() && collection_kind(options.collection) == GraphKind::Layout;
  uint64_t largest_rows = 0, largest_load = 0, largest_valid_rows = 0;
  const bool layout = collection_kind(options.collection) == GraphKind::Layout;
  for (const std::string& file : files) {
    const ZipReader zip(ByteSource::open_file(file));
    auto bytes = [&](const char* name) {
      const ZipMember* member = zip.find(name);
      return member != nullptr ? member->uncompressed_size : 0;
    };
    const uint64_t node_bytes = bytes("node_feat.npy"), config_bytes = bytes("node_config_feat.npy");
    const uint64_t runtime_bytes = bytes("config_runtime.npy");
    const uint64_t nodes = node_bytes / (kNodeFeatureCount * sizeof(float));
    // Node features twice (as read, and normalised for the model), the graph and its view (edges
    // as pairs of int32, both directions), runtimes (and the store's copy counts).
    estimate.structure += 2 * node_bytes + bytes("node_opcode.npy") + 2 * bytes("edge_index.npy") + bytes("node_config_ids.npy") +
                          bytes("node_splits.npy") + (use_cache ? 2 : 1) * runtime_bytes + bytes("config_feat.npy") +
                          bytes("config_runtime_normalizers.npy");
    if (!use_cache) {
      estimate.configs += config_bytes / sizeof(float);         // int8 in memory
      largest_load = std::max(largest_load, 2 * config_bytes);  // while loading: float32 as read + converted
    }
    // A file whose structure cannot be read counts whole (loading it will say why).
    const uint64_t view = layout ? step_rows(file, options.model.hops) : 0;
    largest_rows = std::max(largest_rows, view > 0 ? view : nodes);
    const uint64_t configs = runtime_bytes / sizeof(int64_t), row_bytes = config_bytes / std::max<uint64_t>(configs, 1) / sizeof(float);
    const int limit = validation_limit(options);
    largest_valid_rows =
        std::max(largest_valid_rows, row_bytes * (limit > 0 ? std::min<uint64_t>(configs, static_cast<uint64_t>(limit)) : configs));
    ++estimate.graphs;
  }
  estimate.configs += largest_load;
  // Validation ranks one graph at a time (one thread): its sampled rows (when read from a store)
  // and the inference's state tables.
  estimate.validation = (use_cache ? largest_valid_rows : 0) + 3 * layout_state_memory();
  // A step's activations and gradients: configs x view rows of hidden floats, 8 such matrices per
  // layer and the input, 6 more per layer with cross-config attention (measured with the fused
  // layers: 4.5 KiB a row at hidden 64, 2 layers, 16 configs of the real 2,850-row nlp view, where
  // this counts 6 KiB; docs/scaling.md).
  const uint64_t matrices = 8 * static_cast<uint64_t>(std::max(1, options.model.layers + 1)) +
                            (options.model.cross_config_attention ? 6 * static_cast<uint64_t>(std::max(0, options.model.layers)) : 0);
  const uint64_t per_row = static_cast<uint64_t>(std::max(1, options.model.hidden)) * sizeof(float) * matrices;
  estimate.step = static_cast<uint64_t>(options.configs_per_step) * largest_rows * per_row;
  estimate.program = 32ull << 20;  // the binary, its libraries and the model (measured: 28-31 MiB)
  return estimate;
}

int enforce_memory_budget(const TrainOptions& options, const std::vector<std::string>& held, bool use_cache) {
  // Validation's state tables (interned row states, layout_inference.cpp) get what the budget
  // leaves after everything else, at most their usual 128 MiB and at least a 24th of the budget;
  // with the slack of growing vectors they can take 3 times that (counted in the estimate). A
  // smaller table recomputes more, never changes a result.
  // A resumed run trains the checkpoint's model: its widths and hops size the step.
  TrainOptions sized = options;
  if (options.resume) sized.model = CostModel::load(options.out).config();
  const size_t usual_tables = layout_state_memory();
  set_layout_state_memory(0);
  MemoryEstimate estimate;
  try {
    estimate = estimate_training_memory(held, sized);  // without the tables
  } catch (...) {
    set_layout_state_memory(usual_tables);
    throw;
  }
  const uint64_t left = options.memory_budget > estimate.total() ? (options.memory_budget - estimate.total()) / 3 : 0;
  set_layout_state_memory(static_cast<size_t>(std::min<uint64_t>(usual_tables, std::max(options.memory_budget / 24, left))));
  estimate.validation += 3 * layout_state_memory();  // as estimate_training_memory counts them
  if (estimate.total() > options.memory_budget) {
    // Fewer configs per step shrink the step: propose the most that fit (a binary search over
    // the estimate, which grows with them), so the user need not guess.
    std::string proposal;
    int low = 1, high = sized.configs_per_step;  // low fits (or is the floor), high does not
    while (high - low > 1) {
      const int middle = (low + high) / 2;
      TrainOptions fewer = sized;
      fewer.configs_per_step = middle;
      (estimate_training_memory(held, fewer).total() <= options.memory_budget ? low : high) = middle;
    }
    if (low >= 2) {
      TrainOptions fewer = sized;
      fewer.configs_per_step = low;
      if (estimate_training_memory(held, fewer).total() <= options.memory_budget) {
        if (options.fit_configs_per_step) {
          set_input_memory_limit(options.memory_budget);
          return low;
        }
        proposal = "; --configs-per-step " + std::to_string(low) + " fits";
      }
    }
    set_layout_state_memory(usual_tables);
    throw InputError(options.data, "memory budget",
                     "at least " + format_byte_size(estimate.total()) + " for this run (" + estimate.text() +
                         (use_cache ? "" : "; a config store holds no configs") + proposal + ")",
                     format_byte_size(options.memory_budget));
  }
  set_input_memory_limit(options.memory_budget);
  return options.configs_per_step;
}

}  // namespace graphcost
