// A call made in a child process (fork) under a wall-clock timeout and a memory bound: how the
// measuring protocol runs one config (measure_configs.h), so a config whose kernel hangs, allocates
// without end or crashes (a Halide or LLVM defect: SIGILL, SIGSEGV) becomes a failure kept as data
// and the measurement goes on, with every result already taken kept.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace graphcost {

struct IsolationLimits {
  double timeout_seconds = 120;  // wall clock from the fork: compiling and every timed run
  uint64_t memory_bytes = 0;     // the child's data segment at most (RLIMIT_DATA); 0: no bound
};

// Whether a memory bound holds in this build: not under AddressSanitizer, whose shadow memory
// counts as data (the bound is then not set).
bool memory_bounds_hold();

// Half of this machine's physical memory: the default memory bound of a measured config.
uint64_t default_memory_bound();

// What became of the call.
struct IsolatedResult {
  bool completed = false;  // `call` returned: `bytes` is what it returned
  std::string bytes;
  std::string failure;  // otherwise why: "timed out after 120 s", "killed by signal 11 (SIGSEGV)", ...
};

// Runs `call` in a forked child bounded by `limits` and returns its bytes. The child shares the
// parent's memory as it was at the fork (copy on write) and ends with _exit: no destructor, no
// atexit handler, no buffered output of the parent runs twice. An exception `call` lets escape is
// a failure naming it. Not for a parent whose other threads hold locks the call needs.
IsolatedResult call_isolated(const std::function<std::string()>& call, const IsolationLimits& limits);

}  // namespace graphcost
