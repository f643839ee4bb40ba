#include "common/error_exit.h"

#include <cstdio>
#include <new>
#include <system_error>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "common/io_error.h"

namespace graphcost {

namespace {

bool is_system_failure(const std::exception& error) {  // the machine, not the input or the code
  return dynamic_cast<const IoError*>(&error) != nullptr || dynamic_cast<const std::system_error*>(&error) != nullptr ||
         dynamic_cast<const std::bad_alloc*>(&error) != nullptr;
}

}  // namespace

int exit_code(const std::exception& error) {
  if (dynamic_cast<const InputError*>(&error) != nullptr) return kExitBadInput;
  return is_system_failure(error) ? kExitSystemError : kExitInternalError;
}

std::string error_message(const std::exception& error) {
  const std::string what = printable(error.what());
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr) return "out of memory (" + what + ")";
  if (exit_code(error) == kExitInternalError) return "internal error, please report: " + what;
  return what;
}

int report_error(const std::exception& error) {
  const int code = exit_code(error);
  std::fprintf(stderr, "%s%s\n", code == kExitInternalError ? "" : "error: ", error_message(error).c_str());
  return code;
}

}  // namespace graphcost
