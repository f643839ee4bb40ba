#include "synth/graph_families.h"

#include <algorithm>

#include "data/opcodes.h"

namespace graphcost {
namespace {

template <typename T>
T pick(std::mt19937_64& random, const std::vector<T>& choices) {
  return choices[random() % choices.size()];
}

// Builds programs with the usual HLO idioms; every weight is a parameter, every scalar is
// broadcast before elementwise use, as in real XLA graphs.
class ProgramBuilder {
 public:
  ProgramBuilder(int max_nodes, ElementType type, bool convolution_layouts = false, int min_nodes = 0)
      : max_nodes_(max_nodes), min_nodes_(min_nodes), type_(type) {
    hlo_.use_convolution_layouts(convolution_layouts);
  }

  HloBuilder& hlo() { return hlo_; }
  bool full() const { return hlo_.node_count() >= max_nodes_ * 9 / 10; }
  // Below the requested minimum size: families that repeat a block keep repeating it.
  bool short_of_minimum() const { return hlo_.node_count() < min_nodes_; }
  ElementType type() const { return type_; }

  int param(std::vector<int64_t> dims) { return hlo_.parameter(std::move(dims), type_, parameters_++); }

  // A per-channel vector broadcast to the shape of `like` along its last dimension.
  int channel_broadcast(int like) {
    const auto dims = hlo_.node(like).dims;  // a copy: adding nodes moves them
    const int vector = param({dims.back()});
    return hlo_.broadcast(vector, dims, {static_cast<int>(dims.size()) - 1});
  }

  int scalar_broadcast(int like) {
    const int scalar = hlo_.constant({}, type_);
    return hlo_.broadcast(scalar, hlo_.node(like).dims, {});
  }

  // Batch norm in inference form, then ReLU.
  int bn_relu(int x) {
    const int scaled = hlo_.elementwise(opcode::kMultiply, {x, channel_broadcast(x)});
    const int shifted = hlo_.elementwise(opcode_id("add"), {scaled, channel_broadcast(scaled)});
    return hlo_.elementwise(opcode_id("maximum"), {shifted, scalar_broadcast(shifted)});
  }

  int conv(int x, int64_t out_channels, int64_t k, int64_t stride, bool depthwise = false) {
    const auto dims = hlo_.node(x).dims;
    const size_t spatial = dims.size() - 2;
    std::vector<int64_t> kernel_dims(spatial, k);
    const int64_t in_channels = dims.back();
    kernel_dims.push_back(depthwise ? 1 : in_channels);
    kernel_dims.push_back(depthwise ? in_channels : out_channels);
    const int kernel = param(kernel_dims);
    return hlo_.convolution(x, kernel, std::vector<int64_t>(spatial, k), std::vector<int64_t>(spatial, stride),
                            depthwise ? in_channels : 1);
  }

  int conv_bn_relu(int x, int64_t out_channels, int64_t k, int64_t stride) { return bn_relu(conv(x, out_channels, k, stride)); }

  int pool(int x, int64_t window, int64_t stride) {
    const size_t rank = hlo_.node(x).dims.size();
    std::vector<int64_t> w(rank, 1), s(rank, 1);
    for (size_t d = 1; d + 1 < rank; ++d) {
      w[d] = window;
      s[d] = stride;
    }
    return hlo_.reduce_window(x, w, s);
  }

  // Mean over the spatial dimensions: (N, spatial..., C) -> (N, C).
  int global_pool(int x) {
    const size_t rank = hlo_.node(x).dims.size();
    std::vector<int> spatial;
    for (size_t d = 1; d + 1 < rank; ++d) spatial.push_back(static_cast<int>(d));
    const int sum = hlo_.reduce(x, spatial);
    return hlo_.elementwise(opcode_id("divide"), {sum, scalar_broadcast(sum)});
  }

  // (rows, in) x (in, out) + bias.
  int dense(int x, int64_t out) {
    const int64_t in = hlo_.node(x).dims.back();
    const int product = hlo_.dot(x, param({in, out}));
    return hlo_.elementwise(opcode_id("add"), {product, channel_broadcast(product)});
  }

  int layer_norm(int x) {
    const auto dims = hlo_.node(x).dims;
    const int last = static_cast<int>(dims.size()) - 1;
    std::vector<int> keep;
    for (int d = 0; d < last; ++d) keep.push_back(d);
    const int mean = hlo_.reduce(x, {last});
    const int centered = hlo_.elementwise(opcode_id("subtract"), {x, hlo_.broadcast(mean, dims, keep)});
    const int square = hlo_.elementwise(opcode::kMultiply, {centered, centered});
    const int variance = hlo_.reduce(square, {last});
    const int inverse = hlo_.elementwise(opcode_id("rsqrt"), {variance});
    const int normed = hlo_.elementwise(opcode::kMultiply, {centered, hlo_.broadcast(inverse, dims, keep)});
    const int scaled = hlo_.elementwise(opcode::kMultiply, {normed, channel_broadcast(normed)});
    return hlo_.elementwise(opcode_id("add"), {scaled, channel_broadcast(scaled)});
  }

  int finish(int output) {
    const int root = hlo_.tuple({output});
    hlo_.mark_root(root);
    return root;
  }

 private:
  int max_nodes_;
  int min_nodes_;
  ElementType type_;
  HloBuilder hlo_;
  int parameters_ = 0;
};

HloBuilder resnet(std::mt19937_64& random, int max_nodes) {
  ProgramBuilder b(max_nodes, pick<ElementType>(random, {ElementType::BF16, ElementType::F32}), /*convolution_layouts=*/true);
  const int64_t batch = pick<int64_t>(random, {8, 16, 32, 64, 128}), size = pick<int64_t>(random, {32, 64, 112, 224});
  int x = b.param({batch, size, size, 3});
  x = b.pool(b.conv_bn_relu(x, 64, 7, 2), 3, 2);
  const int64_t widths[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4 && !b.full(); ++stage) {
    const int blocks = 1 + static_cast<int>(random() % 6);
    for (int block = 0; block < blocks && !b.full(); ++block) {
      const int64_t stride = block == 0 && stage > 0 ? 2 : 1;
      const int64_t out = widths[stage] * 4;
      int shortcut = x;
      if (block == 0) shortcut = b.bn_relu(b.conv(x, out, 1, stride));
      int y = b.conv_bn_relu(x, widths[stage], 1, 1);
      y = b.conv_bn_relu(y, widths[stage], 3, stride);
      y = b.conv(y, out, 1, 1);
      y = b.hlo().elementwise(opcode_id("add"), {y, shortcut});
      x = b.hlo().elementwise(opcode_id("maximum"), {y, b.scalar_broadcast(y)});
    }
  }
  b.finish(b.dense(b.global_pool(x), 1000));
  return std::move(b.hlo());
}

HloBuilder inception(std::mt19937_64& random, int max_nodes) {
  ProgramBuilder b(max_nodes, pick<ElementType>(random, {ElementType::BF16, ElementType::F32}), /*convolution_layouts=*/true);
  const int64_t batch = pick<int64_t>(random, {16, 32, 64, 128});
  int x = b.param({batch, 299, 299, 3});
  x = b.conv_bn_relu(x, 32, 3, 2);
  x = b.pool(b.conv_bn_relu(x, 64, 3, 1), 3, 2);
  int64_t width = 64;
  for (int module = 0; !b.full() && module < 11; ++module) {
    const int64_t stride = module % 4 == 3 ? 2 : 1;
    const int a = b.conv_bn_relu(x, width, 1, stride);
    const int c = b.conv_bn_relu(b.conv_bn_relu(x, width / 2, 1, 1), width, 3, stride);
    const int d = b.conv_bn_relu(b.conv_bn_relu(b.conv_bn_relu(x, width / 4, 1, 1), width / 2, 3, 1), width / 2, 3, stride);
    const int e = b.conv_bn_relu(b.pool(x, 3, stride), width / 2, 1, 1);
    x = b.hlo().concatenate({a, c, d, e}, 3);
    if (stride == 2) width = std::min<int64_t>(width * 2, 384);
  }
  b.finish(b.dense(b.global_pool(x), 1000));
  return std::move(b.hlo());
}

HloBuilder efficientnet(std::mt19937_64& random, int max_nodes) {
  ProgramBuilder b(max_nodes, ElementType::BF16, /*convolution_layouts=*/true);
  const int64_t batch = pick<int64_t>(random, {16, 32, 64, 128}), size = pick<int64_t>(random, {224, 240, 260, 300});
  int x = b.conv_bn_relu(b.param({batch, size, size, 3}), 32, 3, 2);
  const int64_t channels[] = {16, 24, 40, 80, 112, 192, 320};
  for (int stage = 0; stage < 7 && !b.full(); ++stage) {
    const int repeats = 1 + static_cast<int>(random() % 4);
    for (int r = 0; r < repeats && !b.full(); ++r) {
      const int64_t in = b.hlo().node(x).dims.back(), expanded = in * 6;
      const int64_t stride = r == 0 && stage % 2 == 1 ? 2 : 1;
      int y = b.conv_bn_relu(x, expanded, 1, 1);
      y = b.bn_relu(b.conv(y, expanded, pick<int64_t>(random, {3, 5}), stride, /*depthwise=*/true));
      // Squeeze-excite: pool -> dense -> swish -> dense -> sigmoid -> scale.
      int se = b.dense(b.global_pool(y), std::max<int64_t>(1, in / 4));
      se = b.hlo().elementwise(opcode::kMultiply, {se, b.hlo().elementwise(opcode_id("logistic"), {se})});
      se = b.hlo().elementwise(opcode_id("logistic"), {b.dense(se, expanded)});
      const auto dims = b.hlo().node(y).dims;
      y = b.hlo().elementwise(opcode::kMultiply, {y, b.hlo().broadcast(se, dims, {0, 3})});
      y = b.bn_relu(b.conv(y, channels[stage], 1, 1));
      if (stride == 1 && in == channels[stage]) y = b.hlo().elementwise(opcode_id("add"), {y, x});
      x = y;
    }
  }
  b.finish(b.dense(b.global_pool(b.conv_bn_relu(x, 1280, 1, 1)), 1000));
  return std::move(b.hlo());
}

HloBuilder unet3d(std::mt19937_64& random, int max_nodes) {
  ProgramBuilder b(max_nodes, pick<ElementType>(random, {ElementType::BF16, ElementType::F32}), /*convolution_layouts=*/true);
  const int64_t batch = pick<int64_t>(random, {1, 2, 4}), size = pick<int64_t>(random, {64, 96, 128});
  int x = b.param({batch, size, size, size, pick<int64_t>(random, {1, 4})});
  std::vector<int> skips;
  int64_t width = 32;
  const int depth = 3 + static_cast<int>(random() % 2);
  for (int level = 0; level < depth && !b.full(); ++level) {
    x = b.conv_bn_relu(b.conv_bn_relu(x, width, 3, 1), width, 3, 1);
    skips.push_back(x);
    x = b.pool(x, 2, 2);
    width *= 2;
  }
  x = b.conv_bn_relu(x, width, 3, 1);
  for (int level = static_cast<int>(skips.size()) - 1; level >= 0 && !b.full(); --level) {
    width /= 2;
    x = b.conv(x, width, 2, 1);
    for (int axis = 1; axis <= 3; ++axis) x = b.hlo().concatenate({x, x}, axis);  // upsample x2
    x = b.hlo().concatenate({x, skips[static_cast<size_t>(level)]}, 4);
    x = b.conv_bn_relu(b.conv_bn_relu(x, width, 3, 1), width, 3, 1);
  }
  b.finish(b.conv(x, 3, 1, 1));
  return std::move(b.hlo());
}

HloBuilder rnn(std::mt19937_64& random, int max_nodes) {
  ProgramBuilder b(max_nodes, ElementType::F32);
  HloBuilder& h = b.hlo();
  const int64_t batch = pick<int64_t>(random, {8, 32, 64}), input = pick<int64_t>(random, {128, 256, 512}),
                hidden = pick<int64_t>(random, {256, 512, 1024}), steps = pick<int64_t>(random, {16, 32, 64});
  const int layers = 1 + static_cast<int>(random() % 4);
  h.begin_computation();  // entry
  int sequence = b.param({steps * batch, input});
  std::vector<int> outputs;
  for (int layer = 0; layer < layers && !b.full(); ++layer) {
    const int64_t in = h.node(sequence).dims.back();
    const int state = b.param({batch, hidden});
    const int init = h.tuple({state, sequence});
    const int loop = h.while_loop(init, {});
    sequence = h.get_tuple_element(loop, {steps * batch, in}, ElementType::F32, 1);
    sequence = b.dense(h.reshape(h.get_tuple_element(loop, {batch, hidden}, ElementType::F32, 0), {batch, hidden}), in);
    sequence = h.concatenate(std::vector<int>(static_cast<size_t>(steps), sequence), 0);
    outputs.push_back(sequence);
    // The loop body: h' = tanh(x W + h U + b) (an LSTM-like gate block, four gates).
    h.begin_computation();
    const int carried = h.parameter({}, ElementType::Tuple, 0);
    int hidden_state = h.get_tuple_element(carried, {batch, hidden}, ElementType::F32, 0);
    const int x_t = h.get_tuple_element(carried, {batch, in}, ElementType::F32, 1);
    for (int gate = 0; gate < 4; ++gate) {
      const int gx = h.dot(x_t, b.param({in, hidden}));
      const int gh = h.dot(hidden_state, b.param({hidden, hidden}));
      const int sum = h.elementwise(opcode_id("add"), {gx, gh});
      hidden_state =
          h.elementwise(opcode_id(gate == 3 ? "tanh" : "logistic"), {h.elementwise(opcode_id("add"), {sum, b.channel_broadcast(sum)})});
    }
    const int body_root = h.tuple({hidden_state, x_t});
    h.mark_root(body_root);
    // The loop condition: step < steps.
    h.begin_computation();
    const int condition_state = h.parameter({}, ElementType::Tuple, 0);
    const int counter = h.get_tuple_element(condition_state, {}, ElementType::S32, 2);
    h.mark_root(h.compare(counter, h.constant({}, ElementType::S32)));
    h.begin_computation();  // back in the entry computation (a new split, as the encoder emits it)
  }
  b.finish(b.dense(outputs.back(), 1000));
  return std::move(b.hlo());
}

HloBuilder bert(std::mt19937_64& random, int max_nodes, int min_nodes) {
  ProgramBuilder b(max_nodes, pick<ElementType>(random, {ElementType::BF16, ElementType::F32}), false, min_nodes);
  HloBuilder& h = b.hlo();
  const int64_t batch = pick<int64_t>(random, {8, 16, 32}), seq = pick<int64_t>(random, {128, 256, 512});
  const int64_t hidden = pick<int64_t>(random, {256, 512, 768, 1024}), heads = pick<int64_t>(random, {4, 8, 16});
  const int64_t head_dim = hidden / heads;
  int x = b.layer_norm(b.param({batch * seq, hidden}));
  const int layers = 2 + static_cast<int>(random() % 23);
  for (int layer = 0; (layer < layers || b.short_of_minimum()) && !b.full(); ++layer) {
    auto split_heads = [&](int t, bool transpose_last) {
      const int r = h.reshape(t, {batch, seq, heads, head_dim});
      return h.transpose(r, transpose_last ? std::vector<int>{0, 2, 3, 1} : std::vector<int>{0, 2, 1, 3});
    };
    const int q = split_heads(b.dense(x, hidden), false);
    const int k = split_heads(b.dense(x, hidden), true);
    const int v = split_heads(b.dense(x, hidden), false);
    const int scores = h.dot(q, k);  // (batch, heads, seq, seq)
    const auto score_dims = h.node(scores).dims;
    const int max = h.reduce(scores, {3});
    const int shifted = h.elementwise(opcode_id("subtract"), {scores, h.broadcast(max, score_dims, {0, 1, 2})});
    const int exponent = h.elementwise(opcode_id("exponential"), {shifted});
    const int sum = h.reduce(exponent, {3});
    const int probabilities = h.elementwise(opcode_id("divide"), {exponent, h.broadcast(sum, score_dims, {0, 1, 2})});
    const int context = h.dot(probabilities, v);  // (batch, heads, seq, head_dim)
    const int merged = h.reshape(h.transpose(context, {0, 2, 1, 3}), {batch * seq, hidden});
    x = b.layer_norm(h.elementwise(opcode_id("add"), {b.dense(merged, hidden), x}));
    int ffn = b.dense(x, hidden * 4);
    const int cube = h.elementwise(opcode::kMultiply, {ffn, h.elementwise(opcode::kMultiply, {ffn, ffn})});
    const int inner = h.elementwise(
        opcode_id("tanh"), {h.elementwise(opcode_id("add"), {ffn, h.elementwise(opcode::kMultiply, {cube, b.scalar_broadcast(cube)})})});
    ffn = h.elementwise(opcode::kMultiply, {ffn, h.elementwise(opcode_id("add"), {inner, b.scalar_broadcast(inner)})});
    x = b.layer_norm(h.elementwise(opcode_id("add"), {b.dense(ffn, hidden), x}));
  }
  b.finish(b.dense(x, 2));
  return std::move(b.hlo());
}

}  // namespace

const char* family_name(GraphFamily family) {
  switch (family) {
    case GraphFamily::ResNet:
      return "resnet";
    case GraphFamily::Inception:
      return "inception";
    case GraphFamily::EfficientNet:
      return "efficientnet";
    case GraphFamily::UNet3D:
      return "unet3d";
    case GraphFamily::Rnn:
      return "rnn";
    case GraphFamily::Bert:
      return "bert";
  }
  return "?";
}

const std::vector<GraphFamily>& xla_families() {
  static const std::vector<GraphFamily> families = {GraphFamily::ResNet, GraphFamily::Inception, GraphFamily::EfficientNet,
                                                    GraphFamily::UNet3D, GraphFamily::Rnn};
  return families;
}

const std::vector<GraphFamily>& nlp_families() {
  static const std::vector<GraphFamily> families = {GraphFamily::Bert};
  return families;
}

HloBuilder build_program(GraphFamily family, std::mt19937_64& random, int max_nodes, int min_nodes) {
  switch (family) {
    case GraphFamily::ResNet:
      return resnet(random, max_nodes);
    case GraphFamily::Inception:
      return inception(random, max_nodes);
    case GraphFamily::EfficientNet:
      return efficientnet(random, max_nodes);
    case GraphFamily::UNet3D:
      return unet3d(random, max_nodes);
    case GraphFamily::Rnn:
      return rnn(random, max_nodes);
    case GraphFamily::Bert:
      return bert(random, max_nodes, min_nodes);
  }
  return resnet(random, max_nodes);
}

HloBuilder build_tile_kernel(std::mt19937_64& random) {
  ProgramBuilder b(1000, pick<ElementType>(random, {ElementType::BF16, ElementType::F32}));
  HloBuilder& h = b.hlo();
  const int pattern = static_cast<int>(random() % 4);
  int out;
  if (pattern == 0) {  // convolution + bias + relu
    const int64_t n = pick<int64_t>(random, {8, 32, 128}), s = pick<int64_t>(random, {7, 14, 28, 56}),
                  c = pick<int64_t>(random, {64, 128, 256, 512});
    out = b.conv_bn_relu(b.param({n, s, s, c}), pick<int64_t>(random, {64, 128, 256, 512}), pick<int64_t>(random, {1, 3}), 1);
  } else if (pattern == 1) {  // dense + bias + activation
    const int64_t m = pick<int64_t>(random, {256, 1024, 4096, 16384}), k = pick<int64_t>(random, {256, 768, 1024, 4096});
    out = b.dense(b.param({m, k}), pick<int64_t>(random, {256, 768, 1024, 4096}));
    out = h.elementwise(opcode_id("tanh"), {out});
  } else if (pattern == 2) {  // elementwise chain
    const int64_t n = pick<int64_t>(random, {8, 32, 128}), s = pick<int64_t>(random, {14, 28, 56, 112}),
                  c = pick<int64_t>(random, {32, 64, 128, 256});
    out = b.param({n, s, s, c});
    const int steps = 2 + static_cast<int>(random() % 6);
    for (int i = 0; i < steps; ++i) {
      out = h.elementwise(pick<int>(random, {opcode::kMultiply, opcode_id("add"), opcode_id("subtract"), opcode_id("maximum")}),
                          {out, b.scalar_broadcast(out)});
    }
  } else {  // reduction
    const int64_t rows = pick<int64_t>(random, {1024, 8192, 65536}), cols = pick<int64_t>(random, {128, 512, 1024, 4096});
    const int x = b.param({rows, cols});
    const int e = h.elementwise(opcode_id("exponential"), {x});
    out = h.reduce(e, {1});
  }
  h.mark_root(out);
  return std::move(h);
}

}  // namespace graphcost
