// libFuzzer target: arbitrary bytes as a binary module file, read as graphcost reads one (the
// format told by content: an HloProto or HloModuleProto, tuning records of one module or of
// several), then built into graphs (a module's with layout configs; records' as the dataset's
// labelled layout or tile files). It must never crash or hang: a file is refused (InputError) or
// read, and what is read is finite and in range (an abort() here is a finding).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "common/input_error.h"
#include "hlo/hlo_graph.h"
#include "hlo/hlo_import.h"
#include "hlo/hlo_proto.h"
#include "hlo/module_configs.h"
#include "hlo/module_file.h"
#include "hlo/tuning_records.h"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

void check_graph(const graphcost::TpuGraph& graph) {
  for (const float value : graph.node_features) require(std::isfinite(value));
  for (const float value : graph.tile_config_features) require(std::isfinite(value));
  for (const graphcost::Edge& edge : graph.edges)
    require(edge.producer >= 0 && edge.producer < edge.consumer && edge.consumer < graph.node_count);
  for (const int8_t value : graph.layout_config_features) require(value >= -1 && value <= 5);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    const graphcost::ModuleFileFormat format = graphcost::detect_module_file_format(bytes, "fuzz.pb");
    if (format == graphcost::ModuleFileFormat::HloText) return 0;  // the text target's
    if (format == graphcost::ModuleFileFormat::HloProto || format == graphcost::ModuleFileFormat::HloModuleProto) {
      const graphcost::HloModule module =
          graphcost::parse_hlo_module_proto(std::move(bytes), "fuzz.pb", format == graphcost::ModuleFileFormat::HloProto);
      graphcost::HloGraph graph = graphcost::build_hlo_graph(module);
      graphcost::add_layout_configs(module, graph, 3, 1);
      check_graph(graph.graph);
      return 0;
    }
    const auto records = graphcost::read_tuning_records(std::make_shared<const std::string>(std::move(bytes)), "fuzz.pb",
                                                        format == graphcost::ModuleFileFormat::TuningData);
    for (const graphcost::ModuleTuningRecord& record : records) {
      try {
        const bool tile = graphcost::is_tile_record(record);
        check_graph(tile ? graphcost::tile_graph_from_record(record, "") : graphcost::layout_graph_from_record(record, ""));
      } catch (const graphcost::InputError&) {
      }
    }
  } catch (const graphcost::InputError&) {
  }
  return 0;
}
