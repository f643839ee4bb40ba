#include "hlo/graph_file.h"

#include <memory>
#include <vector>

#include "common/input_error.h"
#include "hlo/hlo_import.h"
#include "hlo/module_file.h"
#include "hlo/tuning_records.h"

namespace graphcost {

GraphFile load_graph_file(const std::string& path, const HloImportOptions& options) {
  GraphFile file;
  if (is_npz_file(path)) {
    file.graph = load_tpu_graph(path);
    return file;
  }
  std::string bytes = read_module_file(path);
  const ModuleFileFormat format = detect_module_file_format(bytes, path);
  if (format != ModuleFileFormat::ModuleTuningData && format != ModuleFileFormat::TuningData) {
    HloLayoutImport imported = import_hlo_layout(path, options);
    file.graph = std::move(imported.graph);
    file.module = std::move(imported.module);
    file.computation_first = std::move(imported.computation_first);
    return file;
  }
  const std::vector<ModuleTuningRecord> records =
      read_tuning_records(std::make_shared<const std::string>(std::move(bytes)), path, format == ModuleFileFormat::TuningData);
  if (records.size() != 1) {
    throw InputError(path, "modules", "one module's tuning records (`graphcost import FILE --out DIR` writes a file for each of several)",
                     std::to_string(records.size()) + " in a TuningData");
  }
  const bool tile = is_tile_record(records[0]);
  const std::string provenance = record_provenance(path, format, records[0], 0, 1, tile);
  file.graph = tile ? tile_graph_from_record(records[0], provenance) : layout_graph_from_record(records[0], provenance);
  check_features_finite(file.graph);
  return file;
}

}  // namespace graphcost
