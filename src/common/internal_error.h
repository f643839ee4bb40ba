// InternalError: a broken invariant inside graphcost (a caller passed what the API rules out, a
// state that cannot happen), never a user's mistake. The CLIs print "internal error, please
// report: ..." and exit with 3; the browser app shows the same text. Bad input is InputError
// (common/input_error.h), a failing disk or device is IoError (common/io_error.h).
#pragma once

#include <stdexcept>
#include <string>

namespace graphcost {

class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& what) : std::logic_error(what) {}
};

// Throws InternalError(`what`) unless `condition` holds: the invariant checks kept in release.
inline void check_invariant(bool condition, const char* what) {
  if (!condition) throw InternalError(what);
}

}  // namespace graphcost
