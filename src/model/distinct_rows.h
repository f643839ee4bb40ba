// DistinctRows: which (config, node) rows of a layout training batch hold the same values at each
// layer of the model, so that a training step computes each distinct row once.
//
// Two configs give a node the same input row when they give it the same layout values, and every
// non-configurable node the same row always. After a message layer two configs give a node the
// same row when they gave it and each of its neighbours the same rows before that layer. The
// configs of a batch share most rows: on the real nlp default file of bench/model_vs_pytorch.py
// (2,850 view nodes, 16 configs, 45,600 rows), the two layers compute about 13,000 and 19,500
// distinct rows. The test "a deduplicated batch equals the full one" checks values and gradients.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "model/graph_view.h"
#include "nn/ops.h"

namespace graphcost {

struct DistinctRows {
  int configs = 0;
  int nodes = 0;  // view nodes
  // The input layer's rows, node by node: the view node of each.
  std::vector<int32_t> input_nodes;
  // The config part of the input layer: input row `row` gets config `config`'s (batch index)
  // values at configurable slot `slot` (an index into view.configurable).
  struct ConfigPart {
    int32_t row;
    int32_t config;
    int32_t slot;
  };
  std::vector<ConfigPart> config_parts;
  // Each message layer's rows and what they read from the layer below.
  std::vector<std::shared_ptr<const nn::RowSources>> layers;
  // The last layer's row of each (config, node): config b's nodes at [b * nodes, (b + 1) * nodes).
  std::vector<int32_t> final_rows;
};

// `values[b]`: config b's layout value ids at the view's configurable nodes, in view.configurable
// order, `values_per_node` each. `layers`: the model's message layers.
DistinctRows plan_distinct_rows(const GraphView& view, const std::vector<std::vector<int32_t>>& values, int values_per_node, int layers);

}  // namespace graphcost
