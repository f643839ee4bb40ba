#include "hlo/hlo_layout_writer.h"

#include <algorithm>

#include "common/internal_error.h"

namespace graphcost {
namespace {

struct Edit {
  size_t at = 0, length = 0;  // bytes of the text replaced (0: an insertion)
  std::string text;
};

// A cursor over the text that skips spaces and comments, as the parser does.
class Scanner {
 public:
  Scanner(const std::string& text, size_t at) : text_(text), at_(at) {}
  size_t at() const { return at_; }
  char peek() {
    skip_space();
    return at_ < text_.size() ? text_[at_] : '\0';
  }
  void skip_space() {
    for (;;) {
      while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) ++at_;
      if (text_.compare(at_, 2, "/*") == 0) {
        const size_t end = text_.find("*/", at_ + 2);
        at_ = end == std::string::npos ? text_.size() : end + 2;
      } else if (text_.compare(at_, 2, "//") == 0) {
        const size_t end = text_.find('\n', at_);
        at_ = end == std::string::npos ? text_.size() : end + 1;
      } else {
        return;
      }
    }
  }
  void skip_word() {
    while (at_ < text_.size() && (isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_' || text_[at_] == '.' ||
                                  text_[at_] == '-' || text_[at_] == '%')) {
      ++at_;
    }
  }
  void skip_to_after(char c) {
    const size_t found = text_.find(c, at_);
    check_invariant(found != std::string::npos, "a parsed module's text holds what its parser read");
    at_ = found + 1;
  }
  void advance(size_t n) { at_ += n; }
  // An array shape at the cursor (`f32[2,3]` and an optional `{layout}`): the edit that gives it
  // `layout`, keeping any tiling after ':'. The cursor ends after the shape.
  Edit relayout_shape(const std::string& layout) {
    skip_space();
    skip_word();  // element type
    skip_to_after(']');
    Edit edit;
    if (at_ < text_.size() && text_[at_] == '{') {
      const size_t close = text_.find('}', at_);
      const size_t colon = text_.find(':', at_);
      const size_t end = colon != std::string::npos && colon < close ? colon : close;
      edit = {at_ + 1, end - at_ - 1, layout};
      at_ = close + 1;
    } else {
      edit = {at_, 0, "{" + layout + "}"};
    }
    return edit;
  }
  // The operand at the cursor, typed or not: its edit to `shape_text` (an operand shape written
  // out with the layout), and the cursor after the operand.
  Edit relayout_operand(const std::string& layout, const std::string& shape_text) {
    skip_space();
    const size_t start = at_;
    size_t q = at_;
    while (q < text_.size() && (islower(static_cast<unsigned char>(text_[q])) || isdigit(static_cast<unsigned char>(text_[q])))) ++q;
    if (q > start && q < text_.size() && text_[q] == '[') {  // typed: `f32[..]{..} %x`
      Edit edit = relayout_shape(layout);
      skip_space();
      skip_word();
      return edit;
    }
    skip_word();
    return {start, 0, shape_text + " "};
  }
  void skip_operand() {  // to the ',' or ')' that ends it, brackets balanced
    int depth = 0;
    while (at_ < text_.size()) {
      skip_space();
      const char c = text_[at_];
      if ((c == ',' || c == ')') && depth == 0) return;
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      ++at_;
    }
  }

 private:
  const std::string& text_;
  size_t at_;
};

// A block of 6 values (a minor_to_major prefix, -1 padded) completed to a permutation of `rank`
// dims with the remaining dims in `written`'s order; empty when the block is all -1.
std::vector<int> resolved(const int8_t* block, const std::vector<int>& written, size_t rank) {
  std::vector<int> layout;
  for (int k = 0; k < 6 && block[k] >= 0; ++k) layout.push_back(block[k]);
  if (layout.empty()) return {};
  for (const int dim : written) {
    if (std::find(layout.begin(), layout.end(), dim) == layout.end()) layout.push_back(dim);
  }
  layout.resize(std::min(layout.size(), rank));
  return layout;
}

std::string layout_text(const std::vector<int>& layout) {
  std::string text;
  for (size_t i = 0; i < layout.size(); ++i) text += (i ? "," : "") + std::to_string(layout[i]);
  return text;
}

std::string shape_text(const HloShape& shape, const std::vector<int>& layout) {
  std::string text = std::string(shape.element_type) + "[";
  for (size_t i = 0; i < shape.dims.size(); ++i)
    text += (i ? "," : "") + (shape.dims[i] < 0 ? std::string("?") : std::to_string(shape.dims[i]));
  return text + "]{" + layout_text(layout) + "}";
}

}  // namespace

std::string module_text_with_layouts(const HloModule& module, const std::vector<int32_t>& computation_first, const TpuGraph& graph,
                                     int32_t config) {
  check_invariant(module.from_text && module.bytes != nullptr, "module_text_with_layouts needs a module read from text");
  const std::string& text = *module.bytes;
  std::vector<Edit> edits;
  for (int32_t slot = 0; slot < graph.configurable_count(); ++slot) {
    const int32_t node = graph.configurable_nodes[static_cast<size_t>(slot)];
    const size_t c =
        static_cast<size_t>(std::upper_bound(computation_first.begin(), computation_first.end(), node) - computation_first.begin() - 1);
    const HloComputation& computation = module.computations[c];
    const HloInstruction& instruction = computation.instructions[static_cast<size_t>(node - computation_first[c])];
    int8_t block[18];
    for (int k = 0; k < 18; ++k) block[k] = graph.layout_value(config, slot, k);
    Scanner scanner(text, static_cast<size_t>(instruction.name.data() - text.data()) + instruction.name.size());
    scanner.skip_to_after('=');
    const std::vector<int> output = resolved(block, instruction.shape.minor_to_major, instruction.shape.dims.size());
    const Edit result = scanner.relayout_shape(layout_text(output));
    if (!output.empty()) edits.push_back(result);
    scanner.skip_space();
    scanner.skip_word();  // the opcode
    scanner.skip_to_after('(');
    for (size_t k = 0; k < instruction.operands.size() && k < 2; ++k) {
      const HloShape& operand = computation.instructions[static_cast<size_t>(instruction.operands[k])].shape;
      const std::vector<int> layout = resolved(block + 6 * (k + 1), operand.minor_to_major, operand.dims.size());
      const Edit edit = scanner.relayout_operand(layout_text(layout), shape_text(operand, layout));
      if (!layout.empty() && !operand.is_tuple()) edits.push_back(edit);
      scanner.skip_operand();
      if (scanner.peek() == ',') scanner.advance(1);
    }
  }
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.at < b.at; });
  std::string out;
  out.reserve(text.size() + edits.size() * 16);
  size_t at = 0;
  for (const Edit& edit : edits) {
    out.append(text, at, edit.at - at);
    out += edit.text;
    at = edit.at + edit.length;
  }
  out.append(text, at, std::string::npos);
  return out;
}

}  // namespace graphcost
