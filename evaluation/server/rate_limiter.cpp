#include "server/rate_limiter.h"

#include <algorithm>
#include <iterator>

namespace graphcost {

RateLimiter::RateLimiter(int per_minute) : per_second_(per_minute / 60.0), capacity_(std::max(4.0, per_minute / 4.0)) {}

bool RateLimiter::allow(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  const Clock::time_point now = Clock::now();
  if (buckets_.size() > 100000) forget_full_buckets(now);
  auto [it, inserted] = buckets_.try_emplace(key, Bucket{capacity_, now});
  Bucket& bucket = it->second;
  if (!inserted) {
    const double elapsed = std::chrono::duration<double>(now - bucket.last).count();
    bucket.tokens = std::min(capacity_, bucket.tokens + elapsed * per_second_);
    bucket.last = now;
  }
  if (bucket.tokens < 1) return false;
  bucket.tokens -= 1;
  return true;
}

void RateLimiter::forget_full_buckets(Clock::time_point now) {
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    const double elapsed = std::chrono::duration<double>(now - it->second.last).count();
    it = it->second.tokens + elapsed * per_second_ >= capacity_ ? buckets_.erase(it) : std::next(it);
  }
}

}  // namespace graphcost
