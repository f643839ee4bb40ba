#include "common/io_error.h"

#include <cstring>

namespace graphcost {
namespace {

std::string join_message(const std::string& path, const std::string& operation, int system_error, const std::string& detail) {
  std::string message = path + ": " + operation + ": ";
  message += system_error != 0 ? std::string(std::strerror(system_error)) : detail;
  if (system_error != 0 && !detail.empty()) message += " (" + detail + ")";
  return message;
}

}  // namespace

IoError::IoError(std::string path, std::string operation, int system_error, const std::string& detail)
    : std::runtime_error(join_message(path, operation, system_error, detail)),
      path_(std::move(path)),
      operation_(std::move(operation)),
      system_error_(system_error) {}

}  // namespace graphcost
