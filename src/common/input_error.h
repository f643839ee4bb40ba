// InputError: the one error type for bad input (a malformed file, a wrong schema, a bad argument).
// It names the file, the field, what was expected and what was found; what() joins them as
//   "<file>: <field>: expected <expected>, got <actual>"
// Library code throws it; each boundary (CLI main, web API, tests) catches it once and turns it into
// an exit code or a UI message. A broken internal invariant is an InternalError (check_invariant,
// common/internal_error.h), never an InputError.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace graphcost {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string field, std::string expected, std::string actual);

  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }
  const std::string& expected() const { return expected_; }
  const std::string& actual() const { return actual_; }

  // The same error seen from an outer context: `outer_field` is prefixed to the field
  // (e.g. "member 'node_feat.npy'" + "header 'shape'"); an empty file is filled in.
  InputError within(const std::string& outer_file, const std::string& outer_field) const;

 private:
  std::string file_, field_, expected_, actual_;
};

// `text` with control bytes (below 0x20, and 0x7f) and bytes that are not valid UTF-8 written as
// \xNN: for printing names that come from files (zip members, team names, paths) to a terminal,
// where ESC sequences would act, and for storing them where UTF-8 is promised (node names).
std::string printable(std::string_view text);

// `text` as printable() writes it, in quotes, cut to its first `max_bytes` bytes (at a character
// boundary) with "... (N bytes)" after: the one bound on how much of an input any message quotes,
// so a 10 MB name never becomes a 10 MB error.
constexpr size_t kExcerptBytes = 64;
std::string excerpt(std::string_view text, size_t max_bytes = kExcerptBytes);

// The length of the valid UTF-8 sequence at text[i], or 0 when the byte there does not start one
// (a stray continuation byte, an overlong form, a surrogate, a truncated sequence).
size_t utf8_sequence_length(std::string_view text, size_t i);

}  // namespace graphcost
