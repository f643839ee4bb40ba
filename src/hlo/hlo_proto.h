// HLO modules in XLA's binary form: an HloModuleProto (xla/service/hlo.proto), or an HloProto
// holding one (what `--xla_dump_hlo_as_proto` writes as *.hlo.pb), read into the same HloModule
// the text parser builds (hlo/hlo_module.h), so both go through one graph builder and featurizer.
//
// Fields read (field numbers of hlo.proto and xla_data.proto; the rest is skipped):
//   HloProto: 1 hlo_module.   HloModuleProto: 1 name, 2 entry_computation_name, 3 computations,
//   6 entry_computation_id.   HloComputationProto: 1 name, 2 instructions, 5 id, 6 root_id.
//   HloInstructionProto: 1 name, 2 opcode, 3 shape, 7 metadata (OpMetadata 2 op_name),
//   9 parameter_number, 14 dimensions, 15 window (Window 1 dimensions: WindowDimension 1 size,
//   2 stride, 3 padding_low, 4 padding_high, 5 window_dilation, 6 base_dilation, 7 window_reversal),
//   16 convolution_dimension_numbers (3 kernel_input_feature, 4 kernel_output_feature, 6 kernel
//   spatial, 7 input_batch, 8 input_feature, 9 output_batch, 10 output_feature, 11 input spatial,
//   12 output spatial), 17 slice_dimensions (1 start, 2 limit, 3 stride), 20 dynamic_slice_sizes,
//   21 padding_config (1 dimensions: 1 edge_padding_low, 2 edge_padding_high, 3 interior_padding),
//   35 id, 36 operand_ids, 38 called_computation_ids, 50 feature_group_count,
//   58 batch_group_count, 60 is_stable.
//   ShapeProto: 2 element_type (PrimitiveType), 3 dimensions (INT64_MIN: unbounded, read as -1),
//   4 tuple_shapes, 5 layout (LayoutProto 1 minor_to_major).
// Absent scalars are 0 (proto3): an id of 0 is a real id, and window fields absent are 0, as the
// dataset's featurizer reads them.
//
// Order: nodes follow the proto's order (computations callees first, instructions operands
// first, as XLA writes them and as TpuGraphs numbers nodes). An operand or callee that is not
// earlier, an unknown id, a root that is no instruction of its computation, sizes past 64 bits
// (as for text), and anything the wire reader refuses (io/proto_wire.h) is an InputError with
// the byte offset. Shapes nest at most 64 tuple levels deep.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "hlo/hlo_module.h"

namespace graphcost {

// An HloModuleProto, or an HloProto holding one (`hlo_proto` says which is expected; detection by
// content is hlo/module_file.h's), read from the whole of `bytes`, which the module keeps.
HloModule parse_hlo_module_proto(std::string bytes, const std::string& source, bool hlo_proto);

// An HloModuleProto that sits inside a larger file (a tuning record): `module_bytes` is a view into
// `*file`, at `offset` in it; the module keeps `file`.
HloModule hlo_module_from_proto(std::shared_ptr<const std::string> file, std::string_view module_bytes, uint64_t offset,
                                const std::string& source);

// `module` as an HloModuleProto's bytes: every field above (ids: node and computation indices),
// so that a module read from text and written here reads back as the same graph.
std::string hlo_module_proto_bytes(const HloModule& module);

}  // namespace graphcost
