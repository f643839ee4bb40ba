// The error policy's one boundary for the command-line tools: an exception that ended a command
// becomes a message on stderr and an exit code.
//   InputError     exit 1  "error: <file>: <field>: expected ..., got ..."
//   (usage)        exit 2  printed by CLI11 before any command runs (graphcost-eval: 1, its 2 is an
//                          invalid submission)
//   InternalError  exit 3  "internal error, please report: ..." (also any exception of no known kind)
//   IoError        exit 4  "error: <path>: <operation>: <system message>"; also std::system_error
//                          (std::filesystem) and out of memory: the machine, not the input
// Names from files are printed through printable() (no terminal escapes).
#pragma once

#include <exception>
#include <string>

namespace graphcost {

constexpr int kExitBadInput = 1, kExitUsage = 2, kExitInternalError = 3, kExitSystemError = 4;

// What a user reads about `error` (the text after "error: " above, or the internal-error line),
// and its exit code; the browser app shows the same text.
std::string error_message(const std::exception& error);
int exit_code(const std::exception& error);
// Prints "error: <message>" (or the internal-error line) to stderr and returns the exit code.
int report_error(const std::exception& error);

}  // namespace graphcost
