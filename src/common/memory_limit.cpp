#include "common/memory_limit.h"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "common/input_error.h"

namespace graphcost {
namespace {

std::mutex limit_mutex;
uint64_t limit_bytes = 0;  // 0: not decided yet

}  // namespace

uint64_t parse_byte_size(const std::string& text, const std::string& what) {
  auto refuse = [&]() -> uint64_t {
    throw InputError(what, "", "a size such as 512MiB, 4GiB, 1.5GB or 1000000 (bytes)", "'" + text + "'");
  };
  size_t position = 0;
  while (position < text.size() && (std::isdigit(static_cast<unsigned char>(text[position])) || text[position] == '.')) {
    ++position;
  }
  if (position == 0) return refuse();
  char* end = nullptr;
  const std::string number = text.substr(0, position);
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(value) || value <= 0) return refuse();
  std::string unit;
  for (size_t i = position; i < text.size(); ++i) {
    if (text[i] != ' ') unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  }
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();
  double scale = 0;
  if (unit.empty()) scale = 1;
  else if (unit == "ki" || unit == "k") scale = unit == "k" ? 1e3 : 1024.0;
  else if (unit == "mi") scale = 1024.0 * 1024;
  else if (unit == "gi") scale = 1024.0 * 1024 * 1024;
  else if (unit == "ti") scale = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "m") scale = 1e6;
  else if (unit == "g") scale = 1e9;
  else if (unit == "t") scale = 1e12;
  else return refuse();
  const double bytes = value * scale;
  if (bytes < 1 || bytes > 9.2e18) return refuse();
  return static_cast<uint64_t>(bytes);
}

std::string format_byte_size(uint64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0) std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  else std::snprintf(text, sizeof text, "%.3g %s", value, units[unit]);
  return text;
}

uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 4ull << 30;  // unknown (WebAssembly): assume 4 GiB
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

uint64_t input_memory_limit() {
  std::lock_guard<std::mutex> lock(limit_mutex);
  if (limit_bytes == 0) {
    const char* text = std::getenv("GRAPHCOST_MEMORY_LIMIT");
    limit_bytes = text != nullptr && *text != '\0' ? parse_byte_size(text, "GRAPHCOST_MEMORY_LIMIT") : physical_memory_bytes() / 2;
  }
  return limit_bytes;
}

void set_input_memory_limit(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(limit_mutex);
  limit_bytes = bytes;
}

}  // namespace graphcost
