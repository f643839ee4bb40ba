// Synthetic XLA programs shaped like the sources of TpuGraphs: ResNet and Inception convnets,
// EfficientNet (depthwise convolutions, squeeze-excite), UNet-3D, RNN loops (while loops with body
// and condition computations), BERT-style encoders (dots, softmax, layer norm), and small fused
// tile kernels. Sizes are drawn from `random`; graphs stop growing near `max_nodes`.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "simulator/hlo_builder.h"

namespace graphcost {

enum class GraphFamily { ResNet, Inception, EfficientNet, UNet3D, Rnn, Bert };
const char* family_name(GraphFamily family);
// Families of the layout:xla collections (convnets, UNet, RNN) and of layout:nlp (encoders).
const std::vector<GraphFamily>& xla_families();
const std::vector<GraphFamily>& nlp_families();

// `min_nodes` (0: none) makes the families built from a repeated block (bert's encoder layers)
// repeat it until the graph reaches that size; the others keep their natural size.
HloBuilder build_program(GraphFamily family, std::mt19937_64& random, int max_nodes, int min_nodes = 0);

// A fused kernel (tile collection): parameters -> a few ops -> the root fusion output.
HloBuilder build_tile_kernel(std::mt19937_64& random);

}  // namespace graphcost
