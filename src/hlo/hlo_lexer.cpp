#include "hlo/hlo_lexer.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <limits>

#include "common/input_error.h"

namespace graphcost {
namespace {

// How much of the text a "found ..." part of a message quotes.
constexpr size_t kQuoteBytes = kExcerptBytes;

}  // namespace

HloLexer::HloLexer(std::string_view text, const std::string& source)
    : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), source_(source), line_scan_(text.data()) {}

void HloLexer::fail_at(const char* at, const std::string& expected, const std::string& found) const {
  // Lines end in \n, \r\n or a lone \r (classic Mac text).
  int64_t line = 1;
  const char* line_start = begin_;
  for (const char* q = begin_; q < at; ++q) {
    if (*q == '\n' || (*q == '\r' && (q + 1 >= end_ || q[1] != '\n'))) {
      ++line;
      line_start = q + 1;
    }
  }
  const std::string where = source_ + ":" + std::to_string(line) + ":" + std::to_string(at - line_start + 1);
  std::string context = context_kind_;
  if (!context_name_.empty()) context += " " + excerpt(context_name_);
  if (!attribute_.empty()) context += ", attribute " + excerpt(attribute_);
  throw InputError(where, context, expected, found);
}
void HloLexer::fail(const std::string& expected, const std::string& found) const { fail_at(p_, expected, found); }
void HloLexer::fail_here(const std::string& expected) const { fail_at(p_, expected, found_here()); }
std::string HloLexer::found_here() const {
  if (p_ >= end_) return "end of file";
  const std::string_view rest(p_, static_cast<size_t>(end_ - p_));
  if (rest.substr(0, 3) == "\xEF\xBB\xBF") return "a byte order mark (U+FEFF) inside the text";
  size_t length = 0;
  if (is_name_part_char(*p_) || *p_ == '%') {
    while (length < rest.size() && (is_name_part_char(rest[length]) || (length == 0 && rest[0] == '%'))) ++length;
  } else {
    length = std::max<size_t>(1, utf8_sequence_length(rest, 0));
    if (utf8_sequence_length(rest, 0) == 0 && static_cast<unsigned char>(*p_) >= 0x80) {
      return excerpt(rest.substr(0, 1)) + " (a byte that is not UTF-8)";
    }
  }
  return excerpt(rest.substr(0, length), kQuoteBytes);
}

void HloLexer::skip_comments() {
  while (p_ < end_) {
    if (is_space_char(*p_)) {
      ++p_;
    } else if (*p_ == '/' && p_ + 1 < end_ && p_[1] == '/') {
      const void* newline = std::memchr(p_, '\n', static_cast<size_t>(end_ - p_));
      p_ = newline ? static_cast<const char*>(newline) + 1 : end_;
    } else if (*p_ == '/' && p_ + 1 < end_ && p_[1] == '*') {
      const char* start = p_;
      p_ += 2;
      while (p_ + 1 < end_ && !(p_[0] == '*' && p_[1] == '/')) ++p_;
      if (p_ + 1 >= end_) fail_at(start, "'*/' closing this comment", "end of file");
      p_ += 2;
    } else {
      return;
    }
  }
}
void HloLexer::expect(char c, const char* what) {
  if (!accept(c)) fail_here(std::string("'") + c + "' " + what);
}
bool HloLexer::peek_word(std::string_view word) {
  skip_space();
  return static_cast<size_t>(end_ - p_) >= word.size() && std::string_view(p_, word.size()) == word &&
         (p_ + word.size() == end_ || !is_name_part_char(p_[word.size()]));
}
bool HloLexer::accept_word(std::string_view word) {
  if (!peek_word(word)) return false;
  p_ += word.size();
  return true;
}
void HloLexer::expect_word(std::string_view word) {
  if (!accept_word(word)) fail_here("'" + std::string(word) + "'");
}
// A name, without its optional leading '%'.
std::string_view HloLexer::name_view(const char* what) {
  skip_space();
  const char* start = p_;
  if (p_ < end_ && *p_ == '%') ++p_;
  if (p_ >= end_ || !is_name_start_char(*p_)) {
    p_ = start;
    fail_here(what);
  }
  const char* name_start = p_;
  while (p_ < end_ && is_name_part_char(*p_)) ++p_;
  return std::string_view(name_start, static_cast<size_t>(p_ - name_start));
}
std::string HloLexer::name(const char* what) { return std::string(name_view(what)); }
int64_t HloLexer::integer(const char* what) {
  skip_space();
  const char* start = p_;
  const bool negative = p_ < end_ && *p_ == '-';  // XLA's integers: -?[0-9]+ (no '+')
  if (negative) ++p_;
  if (p_ >= end_ || !is_digit_char(*p_)) {
    p_ = start;
    fail_here(what);
  }
  uint64_t value = 0;
  while (p_ < end_ && is_digit_char(*p_)) {
    const uint64_t digit = static_cast<uint64_t>(*p_ - '0');
    if (value > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) / 10) {
      const char* digits_end = p_;
      while (digits_end < end_ && is_digit_char(*digits_end)) ++digits_end;
      fail_at(start, std::string(what) + " within 64-bit range", excerpt(std::string_view(start, static_cast<size_t>(digits_end - start))));
    }
    value = value * 10 + digit;
    ++p_;
  }
  return negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
}
// A quoted string starting at p_ (escapes kept as written); p_ ends after the closing quote.
std::string_view HloLexer::string_literal() {
  const char* start = p_;
  ++p_;
  while (p_ < end_ && *p_ != '"') {
    if (*p_ == '\\' && p_ + 1 < end_) ++p_;
    ++p_;
  }
  if (p_ >= end_) fail_at(start, "'\"' closing this string", "end of file");
  ++p_;
  return std::string_view(start + 1, static_cast<size_t>(p_ - start - 2));
}
// Skips one attribute value: brackets, braces and parentheses balanced (strings and comments
// inside them skipped), other text up to a ',', a space or a closer at depth 0.
void HloLexer::skip_value(const char* what) {
  skip_space();
  const char* start = p_;
  std::string closers;  // a stack, not recursion: any nesting depth
  while (p_ < end_) {
    const char c = *p_;
    if (c == '"') {
      string_literal();
      continue;
    }
    if (c == '/' && p_ + 1 < end_ && (p_[1] == '/' || p_[1] == '*')) {
      if (closers.empty()) break;
      skip_space();
      continue;
    }
    if (c == '{' || c == '[' || c == '(') {
      closers.push_back(c == '{' ? '}' : c == '[' ? ']' : ')');
    } else if (c == '}' || c == ']' || c == ')') {
      if (closers.empty()) break;
      if (c != closers.back()) fail(std::string("'") + closers.back() + "' closing " + what, std::string("'") + c + "'");
      closers.pop_back();
    } else if (closers.empty() && (c == ',' || is_space_char(c))) {
      break;
    }
    ++p_;
  }
  if (!closers.empty()) fail(std::string("'") + closers.back() + "' closing " + what, "end of file");
  if (p_ == start) fail_here(std::string("a value of ") + what);
}
int32_t HloLexer::line_of(const char* at) {
  // Lines are counted incrementally: instructions come in text order. A \r counts unless a \n follows.
  for (; line_scan_ < at; ++line_scan_) {
    line_ += *line_scan_ == '\n' || (*line_scan_ == '\r' && (line_scan_ + 1 >= end_ || line_scan_[1] != '\n'));
  }
  return line_;
}

std::vector<int64_t> HloLexer::integer_list(const char* what) {  // {1,2,3} or {}
  std::vector<int64_t> values;
  expect('{', (std::string("opening ") + what).c_str());
  if (accept('}')) return values;
  do {
    values.push_back(integer(what));
  } while (accept(','));
  expect('}', (std::string("closing ") + what).c_str());
  return values;
}
// A bare word at depth 0: dim_labels, padding, window entries.
std::string_view HloLexer::bare_word() {
  skip_space();
  const char* start = p_;
  while (p_ < end_ && !is_space_char(*p_) && *p_ != ',' && *p_ != '}' && *p_ != '{' && *p_ != ')' && *p_ != '"' && *p_ != '=') {
    if (*p_ == '-' && p_ + 1 < end_ && p_[1] == '>') {
      p_ += 2;
      continue;
    }
    ++p_;
  }
  return std::string_view(start, static_cast<size_t>(p_ - start));
}
// "3x3", "1_1x0_2": numbers split by 'x' (and '_' inside one dim when `parts` > 1).
std::vector<std::vector<int64_t>> HloLexer::dim_groups(std::string_view text, const char* at, size_t min_parts, size_t max_parts,
                                                       const char* what) {
  std::vector<std::vector<int64_t>> groups;
  size_t i = 0;
  while (i <= text.size()) {
    std::vector<int64_t> parts;
    for (;;) {
      size_t j = i;
      bool negative = false;
      if (j < text.size() && text[j] == '-') {
        negative = true;
        ++j;
      }
      const size_t digits = j;
      int64_t value = 0;
      while (j < text.size() && is_digit_char(text[j]) && j - digits < 18) value = value * 10 + (text[j++] - '0');
      if (j == digits || (j < text.size() && is_digit_char(text[j]))) fail_at(at, what, excerpt(text));
      parts.push_back(negative ? -value : value);
      i = j;
      if (i < text.size() && text[i] == '_') {
        ++i;
        continue;
      }
      break;
    }
    if (parts.size() < min_parts || parts.size() > max_parts) fail_at(at, what, excerpt(text));
    groups.push_back(std::move(parts));
    if (i == text.size()) break;
    if (text[i] != 'x') fail_at(at, what, excerpt(text));
    ++i;
  }
  return groups;
}

std::string_view HloLexer::decode_string(std::string_view literal, std::deque<std::string>& store) {
  if (literal.find('\\') == std::string_view::npos) return literal;
  std::string out;
  out.reserve(literal.size());
  auto hex = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  };
  for (size_t i = 0; i < literal.size(); ++i) {
    if (literal[i] != '\\' || i + 1 == literal.size()) {
      out += literal[i];
      continue;
    }
    const char c = literal[++i];
    static const std::string_view kSimple = "n\nr\rt\ta\ab\bf\fv\v\\\\\'\'\"\"??";
    const size_t simple = kSimple.find(c);
    if (simple != std::string_view::npos && simple % 2 == 0) {
      out += kSimple[simple + 1];
    } else if (c >= '0' && c <= '7') {  // \ooo (what absl::CEscape writes for other bytes)
      int value = 0;
      size_t k = i;
      while (k < literal.size() && k < i + 3 && literal[k] >= '0' && literal[k] <= '7') value = value * 8 + (literal[k++] - '0');
      out += static_cast<char>(value & 0xFF);
      i = k - 1;
    } else if (c == 'x' && i + 1 < literal.size() && hex(literal[i + 1]) >= 0) {
      int value = 0;
      size_t k = i + 1;
      while (k < literal.size() && k < i + 3 && hex(literal[k]) >= 0) value = value * 16 + hex(literal[k++]);
      out += static_cast<char>(value);
      i = k - 1;
    } else {  // an escape absl would refuse: kept as written
      out += '\\';
      out += c;
    }
  }
  store.push_back(std::move(out));
  return store.back();
}

void HloLexer::set_context(const char* kind, std::string_view name) {
  context_kind_ = kind;
  context_name_ = name;
  attribute_ = {};
}

}  // namespace graphcost
