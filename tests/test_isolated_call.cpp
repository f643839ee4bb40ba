// lowering/isolated_call.h: a call in a bounded child process; what it returns, throws, or dies of.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <thread>
#include <vector>

#include "lowering/isolated_call.h"

using graphcost::call_isolated;
using graphcost::IsolationLimits;

TEST_CASE("call_isolated returns the child's bytes, binary ones included") {
  const std::string sent("a\0b\xff", 4);
  const auto result = call_isolated([&] { return sent; }, IsolationLimits{10, 0});
  REQUIRE(result.completed);
  CHECK(result.bytes == sent);
  CHECK(result.failure.empty());
}

TEST_CASE("call_isolated: what the call throws is a failure naming it") {
  const auto result = call_isolated([]() -> std::string { throw std::runtime_error("no such kernel"); }, IsolationLimits{10, 0});
  CHECK_FALSE(result.completed);
  CHECK(result.failure == "no such kernel");
}

TEST_CASE("call_isolated: a call past its timeout is killed and said to be") {
  const auto start = std::chrono::steady_clock::now();
  const auto result = call_isolated(
      [] {
        std::this_thread::sleep_for(std::chrono::seconds(30));
        return std::string("late");
      },
      IsolationLimits{0.3, 0});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK_FALSE(result.completed);
  CHECK(result.failure == "timed out after 0.3 s");
  CHECK(took < 10);
}

TEST_CASE("call_isolated: a crash in the call is a failure, the caller goes on") {
  const auto result = call_isolated(
      []() -> std::string {
        std::raise(SIGSEGV);
        return "unreachable";
      },
      IsolationLimits{10, 0});
  CHECK_FALSE(result.completed);
  if (graphcost::memory_bounds_hold()) {
    CHECK(result.failure == "killed by signal 11 (SIGSEGV)");
  } else {  // AddressSanitizer may keep its own SIGSEGV handler: it reports and exits
    CHECK((result.failure == "killed by signal 11 (SIGSEGV)" || result.failure.find("without a result") != std::string::npos));
  }
}

TEST_CASE("call_isolated: an allocation past the memory bound is a failure") {
  if (!graphcost::memory_bounds_hold()) {
    WARN("this build (AddressSanitizer) sets no memory bound");
    return;
  }
  const auto result = call_isolated(
      [] {
        std::vector<char> huge(size_t{1} << 30, 1);  // 1 GiB against a 256 MiB bound
        return std::string(1, huge.back());
      },
      IsolationLimits{30, uint64_t{256} << 20});
  CHECK_FALSE(result.completed);
  CHECK(result.failure == "out of memory (the bound is 256 MiB)");
}
