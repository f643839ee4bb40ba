// HloLexer: the tokens of XLA HLO text (names with an optional '%', integers, strings, bare words,
// balanced values) read from a cursor over the whole text, with `//` and `/* */` comments skipped
// as space. The parser (hlo/hlo_module.cpp) derives from it. Errors are InputError with the file
// "<source>:<line>:<column>" and the context set by the parser ("instruction 'x', attribute
// 'window'"); line and column are computed only when an error is thrown.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace graphcost {

class HloLexer {
 protected:
  // `text` and `source` must outlive the lexer (names are views into the text).
  HloLexer(std::string_view text, const std::string& source);

  // Inline: the parser asks these once or more per byte.
  static bool is_name_start_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  static bool is_name_part_char(char c) { return is_name_start_char(c) || (c >= '0' && c <= '9') || c == '.' || c == '-'; }
  static bool is_digit_char(char c) { return c >= '0' && c <= '9'; }
  static bool is_space_char(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

  // Errors at `at` (or the cursor): "expected <expected>, got <found>".
  [[noreturn]] void fail_at(const char* at, const std::string& expected, const std::string& found) const;
  [[noreturn]] void fail(const std::string& expected, const std::string& found) const;
  [[noreturn]] void fail_here(const std::string& expected) const;  // found: the token at the cursor
  std::string found_here() const;
  // What is being read, for messages. `name` must outlive its use (a view into the text).
  void set_context(const char* kind, std::string_view name = {});

  void skip_space() {  // spaces and comments
    while (p_ < end_ && is_space_char(*p_)) ++p_;
    if (p_ + 1 < end_ && p_[0] == '/' && (p_[1] == '/' || p_[1] == '*')) skip_comments();
  }
  bool peek(char c) {
    skip_space();
    return p_ < end_ && *p_ == c;
  }
  bool accept(char c) {
    if (!peek(c)) return false;
    ++p_;
    return true;
  }
  void expect(char c, const char* what);
  bool peek_word(std::string_view word);
  bool accept_word(std::string_view word);
  void expect_word(std::string_view word);
  std::string_view name_view(const char* what);  // a name without its '%'; a view into the text
  std::string name(const char* what);
  int64_t integer(const char* what);  // decimal, optionally signed, within int64
  // A quoted string at the cursor (escapes kept as written); the cursor ends after its quote.
  std::string_view string_literal();
  // A string literal's content with its escapes resolved (\n, \", \\, octal \ooo, \xHH), as
  // XLA's parser reads it: the literal itself when it has none, else a string kept in `store`.
  static std::string_view decode_string(std::string_view literal, std::deque<std::string>& store);
  // Skips one attribute value: brackets, braces and parentheses balanced (strings and comments
  // inside them skipped, with a stack: any depth), other text up to a ',', a space or a closer.
  void skip_value(const char* what);
  std::vector<int64_t> integer_list(const char* what);  // {1,2,3} or {}
  std::string_view bare_word();                         // text up to a space, ',', '=', a brace or quote
  // "3x3", "1_1x0_2": numbers split by 'x' into dims, each dim's numbers split by '_' (min..max of them).
  std::vector<std::vector<int64_t>> dim_groups(std::string_view text, const char* at, size_t min_parts, size_t max_parts, const char* what);
  int32_t line_of(const char* at);  // 1-based; `at` must not move backwards between calls
  void skip_comments();             // skip_space's slow path: comments and the space after them

  const char* begin_;
  const char* p_;  // the cursor
  const char* end_;
  const std::string& source_;
  const char* context_kind_ = "";
  std::string_view context_name_, attribute_;

 private:
  const char* line_scan_;
  int32_t line_ = 1;
};

}  // namespace graphcost
