#include "lowering/isolated_call.h"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <exception>
#include <new>

namespace graphcost {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;  // its shadow memory counts as data: no bound can hold
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// Writes all of `bytes` to `fd` (a pipe): false when the reader went away.
bool write_all(int fd, const char* bytes, size_t size) {
  while (size > 0) {
    const ssize_t written = write(fd, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    bytes += written, size -= static_cast<size_t>(written);
  }
  return true;
}

// The child's side: the call's bytes after a status byte ('+': returned, '!': what it threw).
[[noreturn]] void run_child(const std::function<std::string()>& call, const IsolationLimits& limits, int out) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // the measuring process gone (killed), its child goes too
  std::signal(SIGINT, SIG_IGN);      // Ctrl-C stops the parent between configs, not this one midway
  for (const int crash : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) std::signal(crash, SIG_DFL);  // a crash is named by its signal
  if (limits.memory_bytes > 0 && !kAddressSanitizer) {
    struct rlimit bound;
    bound.rlim_cur = bound.rlim_max = limits.memory_bytes;
    setrlimit(RLIMIT_DATA, &bound);
  }
  std::string message;
  try {
    message = "+" + call();
  } catch (const std::bad_alloc&) {
    message = "!out of memory (the bound is " + std::to_string(limits.memory_bytes >> 20) + " MiB)";
  } catch (const std::exception& error) {
    message = std::string("!") + error.what();
  } catch (...) {
    message = "!an exception that is not a std::exception";
  }
  _exit(write_all(out, message.data(), message.size()) ? 0 : 3);
}

std::string signal_text(int signal) {
  const char* name = signal == SIGSEGV   ? "SIGSEGV"
                     : signal == SIGILL  ? "SIGILL"
                     : signal == SIGBUS  ? "SIGBUS"
                     : signal == SIGFPE  ? "SIGFPE"
                     : signal == SIGABRT ? "SIGABRT"
                     : signal == SIGKILL ? "SIGKILL"
                                         : "";
  return "killed by signal " + std::to_string(signal) + (*name ? std::string(" (") + name + ")" : "");
}

}  // namespace

bool memory_bounds_hold() { return !kAddressSanitizer; }

uint64_t default_memory_bound() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2 : 0;
}

IsolatedResult call_isolated(const std::function<std::string()>& call, const IsolationLimits& limits) {
  IsolatedResult result;
  int channel[2];
  if (pipe(channel) != 0) {
    result.failure = std::string("no pipe to a measuring process: ") + std::strerror(errno);
    return result;
  }
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t child = fork();
  if (child < 0) {
    close(channel[0]), close(channel[1]);
    result.failure = std::string("no measuring process: ") + std::strerror(errno);
    return result;
  }
  if (child == 0) {
    close(channel[0]);
    run_child(call, limits, channel[1]);
  }
  close(channel[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limits.timeout_seconds);
  bool timed_out = false;
  char buffer[65536];
  for (;;) {
    const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd ready{channel[0], POLLIN, 0};
    const int polled = poll(&ready, 1, static_cast<int>(std::min(left * 1000 + 1, 60000.0)));
    if (polled < 0 && errno == EINTR) continue;
    if (polled <= 0) continue;
    const ssize_t got = read(channel[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // the child closed its end: it has written everything
    result.bytes.append(buffer, static_cast<size_t>(got));
  }
  close(channel[0]);
  if (timed_out) kill(child, SIGKILL);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    char text[64];
    std::snprintf(text, sizeof text, "timed out after %g s", limits.timeout_seconds);
    result.failure = text;
  } else if (WIFSIGNALED(status)) {
    result.failure = signal_text(WTERMSIG(status));
  } else if (result.bytes.empty() || (result.bytes[0] != '+' && result.bytes[0] != '!')) {
    result.failure = "the measuring process ended without a result (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
  } else if (result.bytes[0] == '!') {
    result.failure = result.bytes.substr(1);
  } else {
    result.completed = true;
    result.bytes.erase(0, 1);
    return result;
  }
  result.bytes.clear();
  return result;
}

}  // namespace graphcost
