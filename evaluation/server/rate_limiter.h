// RateLimiter: a token bucket per key, for `serve` (competition_server.h): `per_minute` requests a
// minute, in bursts of up to a quarter of that (at least 4). Keys are addresses and verified team
// ids, never anything a client can make up freely. Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace graphcost {

class RateLimiter {
 public:
  explicit RateLimiter(int per_minute);
  // Takes one request from `key`'s bucket: false when it is empty.
  bool allow(const std::string& key);

 private:
  using Clock = std::chrono::steady_clock;
  // Buckets that would be full again are the same as no bucket: many distinct addresses cost
  // memory only while they keep sending.
  void forget_full_buckets(Clock::time_point now);

  struct Bucket {
    double tokens;
    Clock::time_point last;
  };
  const double per_second_, capacity_;
  std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;
};

}  // namespace graphcost
