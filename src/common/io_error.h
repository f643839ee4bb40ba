// IoError: the machine refused an operation on a file that was itself fine: a write that failed
// (disk full, permissions, a read-only folder), a read that the device failed (EIO). Distinct from
// InputError, whose input is wrong: retrying an IoError elsewhere can succeed, retrying an
// InputError cannot. what() is "<path>: <operation>: <system message>"; the CLIs exit with 4.
#pragma once

#include <stdexcept>
#include <string>

namespace graphcost {

class IoError : public std::runtime_error {
 public:
  // `system_error` is the errno value of the failure (0: none; `detail` then says what happened).
  IoError(std::string path, std::string operation, int system_error, const std::string& detail = "");

  const std::string& path() const { return path_; }
  const std::string& operation() const { return operation_; }
  int system_error() const { return system_error_; }  // errno (0: none)

 private:
  std::string path_, operation_;
  int system_error_ = 0;
};

}  // namespace graphcost
