// node_feat of an HLO instruction: the 140 TpuGraphs columns (data/node_features.h names them),
// computed from the text as the dataset's featurizer (tpu_graphs featurizers.h,
// FeaturizeHloInstruction) computes them from the instruction's proto. docs/import.md lists each
// column's rule.
#pragma once

#include <array>
#include <string_view>

#include "data/node_features.h"
#include "hlo/hlo_module.h"

namespace graphcost {

// The one-hot column (2..20) of an element type name, or -1 for types newer than the dataset's
// list (f8 variants, s4, u4, ...), which get no column.
int element_type_column(std::string_view element_type);

// node_feat's feature_group_count / batch_group_count (columns 107, 108): the value written (text
// attribute or proto field), else what XLA's protos hold without one: 1 for a convolution or a
// custom-call (XLA sets both on them, and the dataset's featurizer copies the proto field), 0 for
// the rest. `written` is -1 when the module gives none.
int64_t group_count(const HloInstruction& instruction, int64_t written);

// The attribute of `instruction` whose values' sum or product (which node_feat holds) leaves 64-bit
// integers ("window size", "slice limit", ...), or nullptr when every one fits. Readers refuse such
// an instruction, so that every feature written is finite.
const char* field_beyond_64_bits(const HloInstruction& instruction);

// `is_root`: the instruction is the ROOT of its own computation.
std::array<float, kNodeFeatureCount> hlo_node_features(const HloInstruction& instruction, bool is_root);

}  // namespace graphcost
