#include "common/error_exit.h"

#include <cstdio>
#include <new>
#include <system_error>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "common/io_error.h"

namespace graphcost {

int report_error(const std::exception& error) {
  const std::string message = printable(error.what());
  if (dynamic_cast<const InputError*>(&error) != nullptr) {
    std::fprintf(stderr, "error: %s\n", message.c_str());
    return kExitBadInput;
  }
  if (dynamic_cast<const IoError*>(&error) != nullptr) {
    std::fprintf(stderr, "error: %s\n", message.c_str());
    return kExitSystemError;
  }
  if (dynamic_cast<const std::system_error*>(&error) != nullptr) {  // the OS refused (std::filesystem too)
    std::fprintf(stderr, "error: %s\n", message.c_str());
    return kExitSystemError;
  }
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr) {
    std::fprintf(stderr, "error: out of memory (%s)\n", message.c_str());
    return kExitSystemError;
  }
  std::fprintf(stderr, "internal error, please report: %s\n", message.c_str());
  return kExitInternalError;
}

}  // namespace graphcost
