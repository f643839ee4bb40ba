#include "hlo/hlo_proto.h"

#include <algorithm>
#include <limits>

#include "common/checked_arithmetic.h"
#include "common/input_error.h"
#include "hlo/hlo_features.h"
#include "io/proto_wire.h"

namespace graphcost {
namespace {

// xla_data.proto's PrimitiveType values, by number, as HLO text spells them.
constexpr std::string_view kPrimitiveTypes[] = {
    "invalid",    "pred",       "s8",     "s16", "s32",    "s64",    "u8",   "u16",    "u32",      "u64",       "f16",   "f32",
    "f64",        "tuple",      "opaque", "c64", "bf16",   "token",  "c128", "f8e5m2", "f8e4m3fn", "s4",        "u4",    "f8e4m3b11fnuz",
    "f8e5m2fnuz", "f8e4m3fnuz", "s2",     "u2",  "f8e4m3", "f8e3m4", "s1",   "u1",     "f4e2m1fn", "f8e8m0fnu", "buffer"};
constexpr int kMaxTupleDepth = 64;
constexpr int64_t kUnboundedSize = std::numeric_limits<int64_t>::min();  // XLA's marker of an unbounded dynamic dim

// What the decoder keeps of an instruction until its computation's ids are known.
struct PendingIds {
  int64_t id = 0;
  size_t operands_begin = 0, operands_end = 0, callees_begin = 0, callees_end = 0;
  uint64_t offset = 0;
};

class ModuleDecoder {
 public:
  explicit ModuleDecoder(const std::string& source) : source_(source) {}

  HloModule decode(ProtoReader module_reader) {
    HloModule module;
    module.source = source_;
    std::string_view entry_name;
    int64_t entry_id = 0;
    bool entry_id_set = false;
    ProtoField field;
    while (module_reader.next(field)) {
      switch (field.number) {
        case 1:
          module.name = printable(module_reader.bytes(field));
          break;
        case 2:
          entry_name = module_reader.bytes(field);
          break;
        case 3:
          module.computations.push_back(computation(module_reader.nested(field, "HloComputationProto")));
          break;
        case 6:
          entry_id = module_reader.int64(field);
          entry_id_set = true;
          break;
        default:
          break;
      }
    }
    if (module.computations.empty()) module_reader.fail_at(module_reader.base_offset(), "", "at least one computation (field 3)", "none");
    module.entry = static_cast<int32_t>(module.computations.size()) - 1;
    for (size_t c = 0; c < module.computations.size(); ++c) {
      if ((entry_id_set && computation_ids_[c] == entry_id) || (!entry_id_set && module.computations[c].name == entry_name)) {
        module.entry = static_cast<int32_t>(c);
      }
    }
    module.computations[static_cast<size_t>(module.entry)].entry = true;
    return module;
  }

 private:
  HloComputation computation(ProtoReader reader) {
    HloComputation result;
    int64_t id = 0, root_id = 0;
    std::vector<PendingIds> pending;
    ProtoField field;
    const uint64_t offset = reader.base_offset();
    while (reader.next(field)) {
      switch (field.number) {
        case 1:
          result.name = printable(reader.bytes(field));
          break;
        case 2: {
          PendingIds ids;
          result.instructions.push_back(instruction(reader.nested(field, "HloInstructionProto"), ids));
          pending.push_back(ids);
          break;
        }
        case 5:
          id = reader.int64(field);
          break;
        case 6:
          root_id = reader.int64(field);
          break;
        default:
          break;
      }
    }
    if (result.instructions.empty()) reader.fail_at(offset, "", "at least one instruction (field 2)", "none");
    // Instruction ids -> indices in this computation; operands must come earlier.
    std::vector<std::pair<int64_t, int32_t>> index;
    index.reserve(pending.size());
    for (size_t i = 0; i < pending.size(); ++i) index.emplace_back(pending[i].id, static_cast<int32_t>(i));
    std::sort(index.begin(), index.end());
    for (size_t i = 1; i < index.size(); ++i) {
      if (index[i].first == index[i - 1].first) {
        reader.fail_at(pending[static_cast<size_t>(index[i].second)].offset, "instruction", "an id not used before in its computation",
                       std::to_string(index[i].first) + " again");
      }
    }
    const auto find = [&](int64_t wanted) {
      const auto at = std::lower_bound(index.begin(), index.end(), std::make_pair(wanted, std::numeric_limits<int32_t>::min()));
      return at != index.end() && at->first == wanted ? at->second : -1;
    };
    for (size_t i = 0; i < pending.size(); ++i) {
      HloInstruction& instruction = result.instructions[i];
      for (size_t k = pending[i].operands_begin; k < pending[i].operands_end; ++k) {
        const int32_t operand = find(operand_ids_[k]);
        if (operand < 0 || operand >= static_cast<int32_t>(i)) {
          reader.fail_at(pending[i].offset, "instruction " + excerpt(instruction.name) + " operand_ids",
                         "ids of instructions earlier in its computation", std::to_string(operand_ids_[k]));
        }
        instruction.operands.push_back(operand);
      }
      for (size_t k = pending[i].callees_begin; k < pending[i].callees_end; ++k) {
        const auto callee = std::find(computation_ids_.begin(), computation_ids_.end(), callee_ids_[k]);
        if (callee == computation_ids_.end()) {
          reader.fail_at(pending[i].offset, "instruction " + excerpt(instruction.name) + " called_computation_ids",
                         "ids of computations earlier in the module (XLA writes callees first)", std::to_string(callee_ids_[k]));
        }
        instruction.called_computations.push_back(static_cast<int32_t>(callee - computation_ids_.begin()));
      }
    }
    const int32_t root = find(root_id);
    if (root < 0)
      reader.fail_at(offset, "computation " + excerpt(result.name) + " root_id", "the id of one of its instructions",
                     std::to_string(root_id));
    result.root = root;
    result.instructions[static_cast<size_t>(root)].marked_root = true;
    computation_ids_.push_back(id);
    operand_ids_.clear();
    callee_ids_.clear();
    return result;
  }

  HloInstruction instruction(ProtoReader reader, PendingIds& ids) {
    HloInstruction result;
    ids.offset = reader.base_offset();
    ids.operands_begin = ids.operands_end = operand_ids_.size();
    ids.callees_begin = ids.callees_end = callee_ids_.size();
    bool has_parameter_number = false;
    ProtoField field;
    while (reader.next(field)) {
      switch (field.number) {
        case 1:
          result.name = reader.bytes(field);
          break;
        case 2:
          result.opcode = reader.bytes(field);
          break;
        case 3:
          result.shape = shape(reader.nested(field, "ShapeProto"), 0);
          break;
        case 7:
          metadata(reader.nested(field, "OpMetadata"), result);
          break;
        case 9:
          result.parameter_number = reader.int64(field);
          has_parameter_number = true;
          break;
        case 14:
          reader.append_int64s(field, result.dimensions);
          break;
        case 15:
          window(reader.nested(field, "Window"), op(result));
          break;
        case 16:
          convolution_dims(reader.nested(field, "ConvolutionDimensionNumbers"), op(result));
          break;
        case 17:
          op(result).slice.push_back(slice(reader.nested(field, "SliceDimensions")));
          break;
        case 20:
          reader.append_int64s(field, op(result).dynamic_slice_sizes);
          break;
        case 21:
          padding(reader.nested(field, "PaddingConfig"), op(result));
          break;
        case 35:
          ids.id = reader.int64(field);
          break;
        case 36:
          reader.append_int64s(field, operand_ids_);
          break;
        case 38:
          reader.append_int64s(field, callee_ids_);
          break;
        case 50:
          op(result).feature_group_count = reader.int64(field);
          break;
        case 58:
          op(result).batch_group_count = reader.int64(field);
          break;
        case 60:
          result.is_stable = reader.boolean(field);
          break;
        default:
          break;
      }
    }
    ids.operands_end = operand_ids_.size();
    ids.callees_end = callee_ids_.size();
    if (!has_parameter_number && result.opcode == "parameter") result.parameter_number = 0;  // proto3 omits a 0
    if (result.opcode == "convolution" || result.opcode == "custom-call") {
      // An absent group count is a 0 on the wire, and the dataset's featurizer writes it so.
      if (op(result).feature_group_count < 0) op(result).feature_group_count = 0;
      if (op(result).batch_group_count < 0) op(result).batch_group_count = 0;
    }
    if (result.opcode.empty()) reader.fail_at(ids.offset, "", "an opcode (field 2)", "none");
    if (const char* field_name = field_beyond_64_bits(result)) {
      reader.fail_at(ids.offset, "instruction " + excerpt(result.name),
                     std::string(field_name) + " values whose sum and product fit in 64 bits (node_feat holds both)",
                     "a sum or product beyond 2^63-1");
    }
    return result;
  }

  HloShape shape(ProtoReader reader, int depth) {
    if (depth >= kMaxTupleDepth) {
      reader.fail_at(reader.base_offset(), "", "tuple shapes nested at most " + std::to_string(kMaxTupleDepth) + " deep", "deeper");
    }
    HloShape result;
    int64_t type = 0;
    bool layout = false;
    std::vector<int64_t> minor_to_major;
    ProtoField field;
    while (reader.next(field)) {
      switch (field.number) {
        case 2:
          type = reader.int64(field);
          break;
        case 3:
          reader.append_int64s(field, result.dims);
          break;
        case 4:
          result.elements.push_back(shape(reader.nested(field, "ShapeProto"), depth + 1));
          break;
        case 5: {
          layout = true;
          ProtoReader layout_reader = reader.nested(field, "LayoutProto");
          ProtoField layout_field;
          while (layout_reader.next(layout_field)) {
            if (layout_field.number == 1) layout_reader.append_int64s(layout_field, minor_to_major);
          }
          break;
        }
        default:
          break;
      }
    }
    const uint64_t at = reader.base_offset();
    if (type < 0 || type >= static_cast<int64_t>(std::size(kPrimitiveTypes))) {
      reader.fail_at(at, "element_type", "a PrimitiveType of xla_data.proto (0..34)", std::to_string(type));
    }
    result.element_type = kPrimitiveTypes[static_cast<size_t>(type)];
    for (int64_t& dim : result.dims) {
      if (dim == kUnboundedSize) dim = -1;  // '?' in text
      if (dim < -1) reader.fail_at(at, "dimensions", "sizes of 0 or more (or XLA's unbounded marker)", std::to_string(dim));
    }
    if (!checked_sum_and_product(result.dims.size(), [&](size_t i) { return result.dims[i]; })) {
      reader.fail_at(at, "dimensions", "dimensions whose product (the element count) fits in 64 bits", "more");
    }
    if (!minor_to_major.empty() && minor_to_major.size() != result.dims.size()) {
      reader.fail_at(at, "layout minor_to_major", "all " + std::to_string(result.dims.size()) + " dimensions",
                     std::to_string(minor_to_major.size()) + " listed");
    }
    std::vector<bool> seen(result.dims.size(), false);
    for (const int64_t dim : minor_to_major) {
      if (dim < 0 || dim >= static_cast<int64_t>(result.dims.size()) || seen[static_cast<size_t>(dim)]) {
        reader.fail_at(at, "layout minor_to_major", "a permutation of the dimensions",
                       "dimension " + std::to_string(dim) + " out of range or repeated");
      }
      seen[static_cast<size_t>(dim)] = true;
      result.minor_to_major.push_back(static_cast<int>(dim));
    }
    result.layout_written = layout && (!minor_to_major.empty() || result.dims.empty()) && !result.is_tuple();
    if (result.minor_to_major.empty()) {
      for (size_t d = result.dims.size(); d-- > 0;) result.minor_to_major.push_back(static_cast<int>(d));
    }
    return result;
  }

  static HloOpAttributes& op(HloInstruction& instruction) {
    if (!instruction.attributes) instruction.attributes = std::make_shared<HloOpAttributes>();
    return *instruction.attributes;
  }

  static void metadata(ProtoReader reader, HloInstruction& result) {
    ProtoField field;
    while (reader.next(field)) {
      if (field.number == 2) result.op_name = reader.bytes(field);
    }
  }

  static void window(ProtoReader reader, HloOpAttributes& attributes) {
    ProtoField field;
    while (reader.next(field)) {
      if (field.number != 1) continue;
      ProtoReader dim_reader = reader.nested(field, "WindowDimension");
      HloWindowDim dim{0, 0, 0, 0, 0, 0, false};  // proto3: absent fields are 0
      ProtoField f;
      while (dim_reader.next(f)) {
        switch (f.number) {
          case 1:
            dim.size = dim_reader.int64(f);
            break;
          case 2:
            dim.stride = dim_reader.int64(f);
            break;
          case 3:
            dim.padding_low = dim_reader.int64(f);
            break;
          case 4:
            dim.padding_high = dim_reader.int64(f);
            break;
          case 5:
            dim.window_dilation = dim_reader.int64(f);
            break;
          case 6:
            dim.base_dilation = dim_reader.int64(f);
            break;
          case 7:
            dim.reversal = dim_reader.boolean(f);
            break;
          default:
            break;
        }
      }
      attributes.window.push_back(dim);
    }
  }

  static void convolution_dims(ProtoReader reader, HloOpAttributes& attributes) {
    HloConvolutionDims& dims = attributes.convolution_dims;
    attributes.has_convolution_dims = true;
    ProtoField field;
    while (reader.next(field)) {
      switch (field.number) {
        case 3:
          dims.kernel_input_feature = reader.int64(field);
          break;
        case 4:
          dims.kernel_output_feature = reader.int64(field);
          break;
        case 6:
          reader.append_int64s(field, dims.kernel_spatial);
          break;
        case 7:
          dims.input_batch = reader.int64(field);
          break;
        case 8:
          dims.input_feature = reader.int64(field);
          break;
        case 9:
          dims.output_batch = reader.int64(field);
          break;
        case 10:
          dims.output_feature = reader.int64(field);
          break;
        case 11:
          reader.append_int64s(field, dims.input_spatial);
          break;
        case 12:
          reader.append_int64s(field, dims.output_spatial);
          break;
        default:
          break;
      }
    }
  }

  static HloSliceDim slice(ProtoReader reader) {
    HloSliceDim dim{0, 0, 0};
    ProtoField field;
    while (reader.next(field)) {
      if (field.number == 1) dim.start = reader.int64(field);
      if (field.number == 2) dim.limit = reader.int64(field);
      if (field.number == 3) dim.stride = reader.int64(field);
    }
    return dim;
  }

  static void padding(ProtoReader reader, HloOpAttributes& attributes) {
    ProtoField field;
    while (reader.next(field)) {
      if (field.number != 1) continue;
      ProtoReader dim_reader = reader.nested(field, "PaddingConfigDimension");
      HloPaddingDim dim;
      ProtoField f;
      while (dim_reader.next(f)) {
        if (f.number == 1) dim.low = dim_reader.int64(f);
        if (f.number == 2) dim.high = dim_reader.int64(f);
        if (f.number == 3) dim.interior = dim_reader.int64(f);
      }
      attributes.padding.push_back(dim);
    }
  }

  const std::string& source_;
  std::vector<int64_t> computation_ids_;           // by computation index
  std::vector<int64_t> operand_ids_, callee_ids_;  // of the computation being read
};

// The writer's side: HloModule -> HloModuleProto bytes.
void write_shape(ProtoWriter& out, int field, const HloShape& shape) {
  ProtoWriter message;
  const auto type = std::find(std::begin(kPrimitiveTypes), std::end(kPrimitiveTypes), shape.element_type);
  message.integer(2, type == std::end(kPrimitiveTypes) ? 0 : type - std::begin(kPrimitiveTypes));
  std::vector<int64_t> dims = shape.dims;
  for (int64_t& dim : dims) {
    if (dim == -1) dim = kUnboundedSize;
  }
  message.packed(3, dims);
  for (const HloShape& element : shape.elements) write_shape(message, 4, element);
  if (shape.layout_written) {
    ProtoWriter layout;
    layout.packed(1, std::vector<int64_t>(shape.minor_to_major.begin(), shape.minor_to_major.end()));
    message.message(5, layout);
  }
  out.message(field, message);
}

void write_attributes(ProtoWriter& out, const HloOpAttributes& a) {
  if (!a.window.empty()) {
    ProtoWriter window;
    for (const HloWindowDim& d : a.window) {
      ProtoWriter dim;
      dim.integer(1, d.size), dim.integer(2, d.stride), dim.integer(3, d.padding_low), dim.integer(4, d.padding_high);
      dim.integer(5, d.window_dilation), dim.integer(6, d.base_dilation), dim.integer(7, d.reversal);
      window.message(1, dim);
    }
    out.message(15, window);
  }
  if (a.has_convolution_dims) {
    const HloConvolutionDims& c = a.convolution_dims;
    ProtoWriter dims;
    dims.integer(3, c.kernel_input_feature), dims.integer(4, c.kernel_output_feature), dims.packed(6, c.kernel_spatial);
    dims.integer(7, c.input_batch), dims.integer(8, c.input_feature), dims.integer(9, c.output_batch);
    dims.integer(10, c.output_feature), dims.packed(11, c.input_spatial), dims.packed(12, c.output_spatial);
    out.message(16, dims);
  }
  for (const HloSliceDim& d : a.slice) {
    ProtoWriter dim;
    dim.integer(1, d.start), dim.integer(2, d.limit), dim.integer(3, d.stride);
    out.message(17, dim);
  }
  out.packed(20, a.dynamic_slice_sizes);
  if (!a.padding.empty()) {
    ProtoWriter padding;
    for (const HloPaddingDim& d : a.padding) {
      ProtoWriter dim;
      dim.integer(1, d.low), dim.integer(2, d.high), dim.integer(3, d.interior);
      padding.message(1, dim);
    }
    out.message(21, padding);
  }
}

}  // namespace

std::string hlo_module_proto_bytes(const HloModule& module) {
  ProtoWriter out;
  out.text(1, module.name);
  out.text(2, module.computations[static_cast<size_t>(module.entry)].name);
  int64_t next_id = 0;
  for (size_t c = 0; c < module.computations.size(); ++c) {
    const HloComputation& computation = module.computations[c];
    ProtoWriter message;
    message.text(1, computation.name);
    const int64_t first = next_id;
    for (const HloInstruction& instruction : computation.instructions) {
      ProtoWriter i;
      i.text(1, instruction.name);
      i.text(2, instruction.opcode);
      write_shape(i, 3, instruction.shape);
      if (!instruction.op_name.empty()) {
        ProtoWriter metadata;
        metadata.text(2, instruction.op_name);
        i.message(7, metadata);
      }
      if (instruction.parameter_number >= 0) i.integer(9, instruction.parameter_number);
      i.packed(14, instruction.dimensions);
      if (instruction.attributes) write_attributes(i, *instruction.attributes);
      const HloOpAttributes& attributes = instruction.op_attributes();
      i.integer(50, group_count(instruction, attributes.feature_group_count));  // what node_feat holds
      i.integer(58, group_count(instruction, attributes.batch_group_count));
      i.integer(35, next_id++);
      std::vector<int64_t> operands, callees;
      for (const int32_t operand : instruction.operands) operands.push_back(first + operand);
      for (const int32_t callee : instruction.called_computations) callees.push_back(callee);
      i.packed(36, operands);
      i.packed(38, callees);
      i.integer(60, instruction.is_stable);
      message.message(2, i);
    }
    message.integer(5, static_cast<int64_t>(c));
    message.integer(6, first + computation.root);
    out.message(3, message);
  }
  out.integer(6, module.entry);
  return out.take();
}

HloModule hlo_module_from_proto(std::shared_ptr<const std::string> file, std::string_view module_bytes, uint64_t offset,
                                const std::string& source) {
  HloModule module = ModuleDecoder(source).decode(ProtoReader(module_bytes, offset, source, "HloModuleProto"));
  module.bytes = std::move(file);
  module.decoded = std::make_shared<std::deque<std::string>>();
  return module;
}

HloModule parse_hlo_module_proto(std::string bytes, const std::string& source, bool hlo_proto) {
  auto file = std::make_shared<const std::string>(std::move(bytes));
  std::string_view module_bytes = *file;
  uint64_t offset = 0;
  if (hlo_proto) {
    ProtoReader reader(*file, 0, source, "HloProto");
    ProtoField field;
    bool found = false;
    while (reader.next(field)) {
      if (field.number != 1) continue;
      module_bytes = reader.bytes(field);
      offset = static_cast<uint64_t>(module_bytes.data() - file->data());
      found = true;
    }
    if (!found) reader.fail_at(0, "", "an HloModuleProto (field 1 hlo_module)", "none");
  }
  return hlo_module_from_proto(file, module_bytes, offset, source);
}

}  // namespace graphcost
