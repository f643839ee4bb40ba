#include "hlo/hlo_module.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <utility>

#include "common/checked_arithmetic.h"
#include "common/input_error.h"
#include "hlo/hlo_features.h"
#include "hlo/hlo_lexer.h"

namespace graphcost {
namespace {

// Tuple shapes nest by recursion; deeper text is refused (real modules nest 2-3 levels).
constexpr int kMaxTupleDepth = 64;

// Instruction names of the computation being read -> their index: open addressing over int32
// slots, at most half full (8 to 16 bytes a name), looked up through the instructions' own name
// views. A std::unordered_map node (about 56 bytes) was the parser's largest cost after the
// instructions on a module of a million one-line instructions.
class NameIndex {
 public:
  void clear() {
    slots_.assign(16, -1);
    count_ = 0;
  }
  int32_t find(std::string_view name, const std::vector<HloInstruction>& instructions) const {
    for (size_t slot = first_slot(name);; slot = (slot + 1) & (slots_.size() - 1)) {
      const int32_t index = slots_[slot];
      if (index < 0 || instructions[static_cast<size_t>(index)].name == name) return index;
    }
  }
  // `index` must be the last instruction, not yet indexed.
  void insert(int32_t index, const std::vector<HloInstruction>& instructions) {
    if (2 * (count_ + 1) > slots_.size()) {
      slots_.assign(slots_.size() * 2, -1);
      for (int32_t i = 0; i < index; ++i) place(i, instructions);
    }
    place(index, instructions);
    ++count_;
  }

 private:
  size_t first_slot(std::string_view name) const { return std::hash<std::string_view>()(name) & (slots_.size() - 1); }
  void place(int32_t index, const std::vector<HloInstruction>& instructions) {
    size_t slot = first_slot(instructions[static_cast<size_t>(index)].name);
    while (slots_[slot] >= 0) slot = (slot + 1) & (slots_.size() - 1);
    slots_[slot] = index;
  }
  std::vector<int32_t> slots_ = std::vector<int32_t>(16, -1);
  size_t count_ = 0;
};

// The element type names of XLA (xla_data.proto's PrimitiveType, as HLO text spells them). A shape
// of another name is refused: `tuple[2]` or a typo would otherwise become a shape of a type no
// reader knows.
constexpr std::string_view kElementTypes[] = {
    "pred",   "s1",         "s2",        "s4",       "s8",     "s16",    "s32",      "s64",           "u1",
    "u2",     "u4",         "u8",        "u16",      "u32",    "u64",    "f16",      "f32",           "f64",
    "bf16",   "c64",        "c128",      "f4e2m1fn", "f8e3m4", "f8e4m3", "f8e4m3fn", "f8e4m3b11fnuz", "f8e4m3fnuz",
    "f8e5m2", "f8e5m2fnuz", "f8e8m0fnu", "token",    "opaque"};

// The lines of a `{...}` block at `p` (which holds its '{'), without throwing on broken text (the
// parse proper reports that): an upper bound on its instructions, to reserve them at once (a
// growing vector would hold two copies of a million instructions while it moves them).
size_t lines_of_block(const char* p, const char* end) {
  size_t lines = 0, depth = 0;
  for (; p < end; ++p) {
    const char c = *p;
    if (c == '\n') {
      ++lines;
    } else if (c == '"') {
      for (++p; p < end && *p != '"'; ++p) {
        if (*p == '\\') ++p;
        else if (*p == '\n') ++lines;
      }
    } else if (c == '{' || c == '(' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ')' || c == ']') {
      if (--depth == 0) break;
    }
  }
  return lines;
}

class Parser : HloLexer {
 public:
  Parser(std::string_view text, const std::string& source, std::deque<std::string>& decoded) : HloLexer(text, source), decoded_(decoded) {}

  HloModule module() {
    HloModule module;
    module.source = source_;
    if (std::string_view(p_, static_cast<size_t>(end_ - p_)).substr(0, 3) == "\xEF\xBB\xBF") p_ += 3;  // a UTF-8 byte order mark
    set_context("module header");
    expect_word("HloModule");
    if (peek_word("ENTRY")) fail_here("the module's name (the text has none before ENTRY)");
    module.name = name("the module's name");
    while (accept(',')) skip_attribute();
    skip_info_blocks();
    set_context("computation");
    skip_space();
    if (p_ == end_) fail("at least one computation", "end of file");
    while (skip_space(), p_ < end_) module.computations.push_back(computation(module));
    resolve_pending_calls(module);
    module.entry = static_cast<int32_t>(module.computations.size()) - 1;
    for (size_t c = 0; c < module.computations.size(); ++c) {
      if (module.computations[c].entry) module.entry = static_cast<int32_t>(c);
    }
    return module;
  }

 private:
  void skip_attribute() {
    attribute_ = name_view("an attribute name");
    expect('=', "after the attribute name");
    skip_value("the attribute");
    attribute_ = {};
  }
  // FileNames / FunctionNames / FileLocations / StackFrames: numbered entries of newer dumps.
  void skip_info_blocks() {
    for (;;) {
      skip_space();
      const char* start = p_;
      if (!(accept_word("FileNames") || accept_word("FunctionNames") || accept_word("FileLocations") || accept_word("StackFrames"))) return;
      set_context("block", std::string_view(start, static_cast<size_t>(p_ - start)));
      while (skip_space(), p_ < end_ && is_digit_char(*p_)) {
        integer("an entry number");
        skip_value("an entry");
      }
      set_context("module header");
    }
  }

  // ---- shapes ----
  HloShape shape(int depth = 0) {
    skip_space();
    HloShape result;
    if (p_ < end_ && *p_ == '(') {
      if (depth >= kMaxTupleDepth) fail_here("tuple shapes nested at most " + std::to_string(kMaxTupleDepth) + " deep");
      ++p_;
      result.element_type = "tuple";
      if (!accept(')')) {
        do {
          result.elements.push_back(shape(depth + 1));
        } while (accept(','));
        expect(')', "closing the tuple shape");
      }
      return result;
    }
    const char* start = p_;
    while (p_ < end_ && ((*p_ >= 'a' && *p_ <= 'z') || is_digit_char(*p_))) ++p_;
    if (p_ == start || is_digit_char(*start)) {
      p_ = start;
      fail_here("a shape (an element type such as f32, then [dims], or a '(' tuple)");
    }
    result.element_type = std::string_view(start, static_cast<size_t>(p_ - start));
    if (std::find(std::begin(kElementTypes), std::end(kElementTypes), result.element_type) == std::end(kElementTypes)) {
      const char* type_end = p_;
      p_ = start;
      fail_at(start, "an element type (pred, s8..s64, u8..u64, f16, bf16, f32, f64, c64, c128, f8 and 4-bit types, token)",
              excerpt(std::string_view(start, static_cast<size_t>(type_end - start))));
    }
    if (p_ >= end_ || *p_ != '[') {
      if (result.element_type == "token" || result.element_type == "opaque") return result;  // old dumps: `token`
      fail_here("'[' starting the dimensions of a " + std::string(result.element_type) + " shape");
    }
    const char* dims_start = p_;
    ++p_;
    if (!accept(']')) {
      do {
        skip_space();
        if (accept('?')) {
          result.dims.push_back(-1);
          continue;
        }
        if (p_ + 1 < end_ && p_[0] == '<' && p_[1] == '=') p_ += 2;
        const int64_t dim = integer("a dimension size (N, <=N or ?)");
        if (dim < 0) fail_at(p_ - 1, "a dimension size of 0 or more", std::to_string(dim));
        result.dims.push_back(dim);
      } while (accept(','));
      expect(']', "closing the dimensions");
      // The features hold the dims' sum and product (as XLA, the element count must fit 64 bits).
      if (!checked_sum_and_product(result.dims.size(), [&](size_t i) { return result.dims[i]; })) {
        fail_at(dims_start, "dimensions whose product (the element count) fits in 64 bits",
                excerpt(std::string_view(dims_start, static_cast<size_t>(p_ - dims_start))));
      }
    }
    // A layout follows the dims directly: `f32[2,3]{1,0}`; `-> f32[2] {` opens a computation.
    if (p_ < end_ && *p_ == '{') {
      ++p_;
      result.layout_written = true;
      if (!peek('}') && !peek(':')) {
        do {
          const int64_t dim = integer("a minor_to_major dimension index");
          if (dim < 0 || dim >= static_cast<int64_t>(result.dims.size())) {
            fail_at(p_ - 1, "a dimension index below the rank " + std::to_string(result.dims.size()), std::to_string(dim));
          }
          if (std::find(result.minor_to_major.begin(), result.minor_to_major.end(), static_cast<int>(dim)) != result.minor_to_major.end()) {
            fail_at(p_ - 1, "each dimension once in the layout (a permutation)", std::to_string(dim) + " again");
          }
          result.minor_to_major.push_back(static_cast<int>(dim));
        } while (accept(','));
      }
      if (accept(':')) {  // tiling, element size, memory space, ...: not featurized
        while (!peek('}') && p_ < end_) skip_value("the layout's tiling");
      }
      expect('}', "closing the layout");
      if (!result.minor_to_major.empty() && result.minor_to_major.size() != result.dims.size()) {
        fail_at(p_ - 1, "a layout listing all " + std::to_string(result.dims.size()) + " dimensions",
                std::to_string(result.minor_to_major.size()) + " listed");
      }
      if (result.minor_to_major.empty() && !result.dims.empty()) result.layout_written = false;
    }
    if (result.minor_to_major.empty()) {
      for (size_t d = result.dims.size(); d-- > 0;) result.minor_to_major.push_back(static_cast<int>(d));
    }
    return result;
  }

  // ---- computations and instructions ----
  HloComputation computation(HloModule& module) {
    HloComputation result;
    set_context("computation");
    const char* entry_at = (skip_space(), p_);
    result.entry = accept_word("ENTRY");
    if (result.entry && entry_seen_) fail_at(entry_at, "one ENTRY computation", "a second one");
    entry_seen_ = entry_seen_ || result.entry;
    const std::string_view name_text = name_view("a computation name (or 'ENTRY')");
    result.name = std::string(name_text);
    set_context("computation", name_text);
    if (computation_index_.count(name_text)) fail_at(p_ - 1, "a computation name not used before", excerpt(result.name) + " again");
    if (peek('(')) {  // the signature: parameters -> result shape
      skip_value("the computation's parameter list");
      skip_space();
      if (!(p_ + 1 < end_ && p_[0] == '-' && p_[1] == '>')) fail_here("'->' and the result shape after the parameter list");
      p_ += 2;
      shape();
    }
    expect('{', "opening the computation's instructions");
    instruction_index_.clear();
    std::vector<HloInstruction>& instructions = result.instructions;
    instructions.reserve(lines_of_block(p_ - 1, end_) + 1);
    while (!accept('}')) {
      if (p_ >= end_) fail("'}' closing computation " + excerpt(result.name), "end of file");
      instructions.push_back(instruction(result.name, instructions, module));
      instruction_index_.insert(static_cast<int32_t>(instructions.size()) - 1, instructions);
      set_context("computation", name_text);
    }
    if (result.instructions.empty()) fail_at(p_ - 1, "at least one instruction", "an empty computation");
    result.root = static_cast<int32_t>(result.instructions.size()) - 1;
    int roots = 0;
    for (size_t i = 0; i < result.instructions.size(); ++i) {
      if (result.instructions[i].marked_root) {
        result.root = static_cast<int32_t>(i);
        ++roots;
      }
    }
    if (roots > 1) fail_at(p_ - 1, "at most one ROOT instruction", std::to_string(roots) + " in computation " + excerpt(result.name));
    while (accept(',')) skip_attribute();  // execution_thread="..."
    computation_index_.emplace(name_text, static_cast<int32_t>(module.computations.size()));
    return result;
  }

  HloInstruction instruction(const std::string& computation, const std::vector<HloInstruction>& earlier, const HloModule& module) {
    HloInstruction result;
    result.marked_root = accept_word("ROOT");
    skip_space();
    result.line = line_of(p_);
    const char* name_start = p_;
    const std::string_view name_text = name_view("an instruction name (or '}' closing the computation)");
    result.name = name_text;
    set_context("instruction", name_text);
    if (instruction_index_.find(name_text, earlier) >= 0) {
      fail_at(name_start, "a name not used before in computation " + excerpt(computation), excerpt(name_text) + " again");
    }
    expect('=', "after the instruction's name");
    result.shape = shape();
    skip_space();
    const char* opcode_start = p_;
    while (p_ < end_ && (is_name_part_char(*p_))) ++p_;
    if (p_ == opcode_start) fail_here("an opcode (add, convolution, ...)");
    result.opcode = std::string_view(opcode_start, static_cast<size_t>(p_ - opcode_start));
    operands(result, computation, earlier);
    while (accept(',')) attribute(result, module);
    if (const char* field = field_beyond_64_bits(result)) {
      fail_at(name_start, std::string(field) + " values whose sum and product fit in 64 bits (node_feat holds both)",
              "a sum or product beyond 2^63-1");
    }
    return result;
  }

  void operands(HloInstruction& result, const std::string& computation, const std::vector<HloInstruction>& earlier) {
    expect('(', ("opening the operands of " + std::string(result.opcode)).c_str());
    if (result.opcode == "constant") {  // a literal, not operand names
      const char* literal_start = --p_;
      skip_value("the constant's literal");
      op(result).kept_text.emplace_back("literal", std::string_view(literal_start, static_cast<size_t>(p_ - literal_start)));
      return;
    }
    if (result.opcode == "parameter") {
      result.parameter_number = integer("the parameter's number");
      if (result.parameter_number < 0) fail_at(p_ - 1, "a parameter number of 0 or more", std::to_string(result.parameter_number));
      expect(')', "closing parameter(K)");
      return;
    }
    if (accept(')')) return;
    do {
      skip_space();
      // An operand may carry its shape: `f32[2] %x`, `(f32[], s32[]) %t`.
      if (p_ < end_ && *p_ == '(') {
        shape();
      } else {
        const char* q = p_;
        while (q < end_ && ((*q >= 'a' && *q <= 'z') || is_digit_char(*q))) ++q;
        if (q < end_ && q > p_ && *q == '[') shape();
      }
      skip_space();
      const char* operand_start = p_;
      const std::string_view operand = name_view("an operand name");
      const int32_t found = instruction_index_.find(operand, earlier);
      if (found < 0) fail_at(operand_start, "an instruction defined earlier in computation " + excerpt(computation), excerpt(operand));
      result.operands.push_back(found);
    } while (accept(','));
    expect(')', "closing the operands (or ',' before the next)");
  }

  // ---- attributes ----
  static HloOpAttributes& op(HloInstruction& instruction) {
    if (!instruction.attributes) instruction.attributes = std::make_shared<HloOpAttributes>();
    return *instruction.attributes;
  }
  void window(HloInstruction& result) {
    expect('{', "opening the window");
    std::vector<std::vector<std::vector<int64_t>>> fields(6);  // size stride pad lhs_dilate rhs_dilate rhs_reversal
    static constexpr const char* kKeys[] = {"size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal"};
    while (!accept('}')) {
      if (p_ >= end_) fail("'}' closing the window", "end of file");
      const std::string key = name("a window field (size, stride, pad, lhs_dilate, rhs_dilate, rhs_reversal)");
      expect('=', "after the window field");
      skip_space();
      const char* at = p_;
      const std::string_view value = bare_word();
      const auto k = std::find(std::begin(kKeys), std::end(kKeys), key) - std::begin(kKeys);
      if (k == 6) continue;  // a newer field: not featurized
      fields[static_cast<size_t>(k)] = k == 2 ? dim_groups(value, at, 2, 2, "low_high padding per dim, e.g. 1_1x0_0")
                                              : dim_groups(value, at, 1, 1, "one number per dim, e.g. 3x3");
    }
    size_t rank = 0;
    for (const auto& field : fields) rank = std::max(rank, field.size());
    for (size_t f = 0; f < fields.size(); ++f) {
      if (!fields[f].empty() && fields[f].size() != rank) {
        fail_at(p_ - 1, "window fields of " + std::to_string(rank) + " dims",
                std::string(kKeys[f]) + " with " + std::to_string(fields[f].size()));
      }
    }
    op(result).window.assign(rank, HloWindowDim{});
    for (size_t d = 0; d < rank; ++d) {
      HloWindowDim& dim = op(result).window[d];
      if (!fields[0].empty()) dim.size = fields[0][d][0];
      if (!fields[1].empty()) dim.stride = fields[1][d][0];
      if (!fields[2].empty()) dim.padding_low = fields[2][d][0], dim.padding_high = fields[2][d][1];
      if (!fields[3].empty()) dim.base_dilation = fields[3][d][0];
      if (!fields[4].empty()) dim.window_dilation = fields[4][d][0];
      if (!fields[5].empty()) dim.reversal = fields[5][d][0] != 0;
    }
  }

  // b01f_01io->b01f: positions of b, f and the spatial digits (input), i, o and digits (kernel),
  // b, f and digits (output).
  void convolution_dims(HloInstruction& result) {
    skip_space();
    const char* at = p_;
    const std::string_view text = bare_word();
    const char* expected = "dim_labels like b01f_01io->b01f";
    const size_t underscore = text.find('_'), arrow = text.find("->");
    if (underscore == std::string_view::npos || arrow == std::string_view::npos || underscore > arrow) fail_at(at, expected, excerpt(text));
    const std::string_view parts[3] = {text.substr(0, underscore), text.substr(underscore + 1, arrow - underscore - 1),
                                       text.substr(arrow + 2)};
    const char roles[3][2] = {{'b', 'f'}, {'i', 'o'}, {'b', 'f'}};
    int64_t role_dims[3][2];
    std::vector<int64_t> spatial[3];
    for (int part = 0; part < 3; ++part) {
      const std::string_view labels = parts[part];
      int64_t found[2] = {-1, -1};
      std::vector<int64_t> positions(labels.size(), -1);
      for (size_t i = 0; i < labels.size(); ++i) {
        const char c = labels[i];
        if (c == roles[part][0] && found[0] < 0) {
          found[0] = static_cast<int64_t>(i);
        } else if (c == roles[part][1] && found[1] < 0) {
          found[1] = static_cast<int64_t>(i);
        } else if (is_digit_char(c) && static_cast<size_t>(c - '0') < labels.size() && positions[static_cast<size_t>(c - '0')] < 0) {
          positions[static_cast<size_t>(c - '0')] = static_cast<int64_t>(i);
        } else {
          fail_at(at, expected, excerpt(text));
        }
      }
      const size_t spatial_count = labels.size() >= 2 ? labels.size() - 2 : 0;
      if (found[0] < 0 || found[1] < 0) fail_at(at, expected, excerpt(text));
      for (size_t s = 0; s < spatial_count; ++s) {
        if (positions[s] < 0) fail_at(at, expected, excerpt(text));
        spatial[part].push_back(positions[s]);
      }
      role_dims[part][0] = found[0];
      role_dims[part][1] = found[1];
    }
    HloConvolutionDims& dims = op(result).convolution_dims;
    dims.input_batch = role_dims[0][0];
    dims.input_feature = role_dims[0][1];
    dims.kernel_input_feature = role_dims[1][0];
    dims.kernel_output_feature = role_dims[1][1];
    dims.output_batch = role_dims[2][0];
    dims.output_feature = role_dims[2][1];
    dims.input_spatial = std::move(spatial[0]);
    dims.kernel_spatial = std::move(spatial[1]);
    dims.output_spatial = std::move(spatial[2]);
    op(result).has_convolution_dims = true;
  }

  void slice(HloInstruction& result) {  // {[start:limit], [start:limit:stride]}
    expect('{', "opening slice={[start:limit:stride], ...}");
    if (accept('}')) return;
    do {
      expect('[', "opening a slice dim [start:limit:stride]");
      HloSliceDim dim;
      dim.start = integer("a slice start");
      expect(':', "between slice start and limit");
      dim.limit = integer("a slice limit");
      if (accept(':')) dim.stride = integer("a slice stride");
      expect(']', "closing the slice dim");
      op(result).slice.push_back(dim);
    } while (accept(','));
    expect('}', "closing the slice");
  }

  void called_computations(HloInstruction& result, const HloModule& module) {
    auto one = [&] {
      skip_space();
      const char* at = p_;
      const std::string_view name_text = name_view("a computation name");
      const auto found = computation_index_.find(name_text);
      if (found != computation_index_.end()) {
        result.called_computations.push_back(found->second);
      } else {
        pending_calls_.push_back({at, std::string(name_text), static_cast<int32_t>(module.computations.size())});
        result.called_computations.push_back(-1);
      }
    };
    if (accept('{')) {
      if (accept('}')) return;
      do {
        one();
      } while (accept(','));
      expect('}', "closing the list of computations");
    } else {
      one();
    }
  }

  void metadata(HloInstruction& result) {
    expect('{', "opening metadata={...}");
    while (!accept('}')) {
      if (p_ >= end_) fail("'}' closing the metadata", "end of file");
      const std::string_view key = name_view("a metadata field");
      expect('=', "after the metadata field");
      skip_space();
      if (key == "op_name" && p_ < end_ && *p_ == '"') {
        result.op_name = decode_string(string_literal(), decoded_);
      } else {
        skip_value("a metadata field");
      }
    }
  }

  void attribute(HloInstruction& result, const HloModule& module) {
    skip_space();
    const char* key_start = p_;
    const std::string_view key = name_view("an attribute name");
    attribute_ = key;
    expect('=', "after the attribute name");
    if (key == "dimensions") {
      result.dimensions = integer_list("dimensions");
    } else if (key == "iota_dimension") {
      result.dimensions = {integer("the iota dimension")};
    } else if (key == "window") {
      window(result);
    } else if (key == "dim_labels") {
      convolution_dims(result);
    } else if (key == "feature_group_count") {
      op(result).feature_group_count = integer("the feature group count");
    } else if (key == "batch_group_count") {
      op(result).batch_group_count = integer("the batch group count");
    } else if (key == "slice") {
      slice(result);
    } else if (key == "dynamic_slice_sizes") {
      op(result).dynamic_slice_sizes = integer_list("dynamic_slice_sizes");
    } else if (key == "padding" && result.opcode == "pad") {
      skip_space();
      const char* at = p_;
      for (const auto& group : dim_groups(bare_word(), at, 2, 3, "low_high[_interior] padding per dim, e.g. 0_1x2_2_0")) {
        op(result).padding.push_back({group[0], group[1], group.size() > 2 ? group[2] : 0});
      }
    } else if (key == "is_stable") {
      skip_space();
      if (accept_word("true")) {
        result.is_stable = true;
      } else if (!accept_word("false")) {
        fail_here("true or false");
      }
    } else if (key == "calls" || key == "to_apply" || key == "condition" || key == "body" || key == "branch_computations" ||
               key == "true_computation" || key == "false_computation" || key == "called_computations") {
      called_computations(result, module);
    } else if (key == "metadata") {
      metadata(result);
    } else {
      skip_space();
      const char* value_start = p_;
      skip_value("the attribute");
      if (key == "lhs_contracting_dims" || key == "rhs_contracting_dims" || key == "lhs_batch_dims" || key == "rhs_batch_dims" ||
          key == "direction" || key == "index") {
        op(result).kept_text.emplace_back(key, std::string_view(value_start, static_cast<size_t>(p_ - value_start)));
      }
    }
    (void)key_start;
    attribute_ = {};
  }

  void resolve_pending_calls(HloModule& module) {
    for (const PendingCall& call : pending_calls_) {
      const auto found = computation_index_.find(call.name);
      set_context("called computation");
      if (found == computation_index_.end()) fail_at(call.at, "a computation defined in this module", excerpt(call.name));
      fail_at(call.at, "a computation defined before its caller (XLA prints callees first)", excerpt(call.name) + ", defined later");
    }
    (void)module;
  }

  struct PendingCall {
    const char* at;
    std::string name;
    int32_t caller_computation;
  };

  // Names are views into the text, which the module keeps.
  std::unordered_map<std::string_view, int32_t> computation_index_;
  NameIndex instruction_index_;  // of the computation being read
  std::vector<PendingCall> pending_calls_;
  std::deque<std::string>& decoded_;
  bool entry_seen_ = false;
};

}  // namespace

std::string_view HloOpAttributes::text_of(std::string_view key) const {
  for (const auto& [name, text] : kept_text) {
    if (name == key) return text;
  }
  return {};
}

const HloOpAttributes& HloInstruction::op_attributes() const {
  static const HloOpAttributes none;
  return attributes ? *attributes : none;
}

int64_t HloModule::instruction_count() const {
  int64_t count = 0;
  for (const HloComputation& computation : computations) count += static_cast<int64_t>(computation.instructions.size());
  return count;
}

HloModule parse_hlo_module(std::string text, const std::string& source) {
  auto bytes = std::make_shared<const std::string>(std::move(text));
  auto decoded = std::make_shared<std::deque<std::string>>();
  HloModule module = Parser(*bytes, source, *decoded).module();
  module.bytes = std::move(bytes);
  module.decoded = std::move(decoded);
  module.from_text = true;
  return module;
}

bool HloShape::has_dynamic_dimension() const { return std::find(dims.begin(), dims.end(), -1) != dims.end(); }

bool is_hlo_text_path(const std::string& path) {
  auto ends_with = [&](const char* suffix) {
    const size_t n = std::strlen(suffix);
    return path.size() >= n && path.compare(path.size() - n, n, suffix) == 0;
  };
  return ends_with(".hlo") || ends_with(".txt");
}

}  // namespace graphcost
