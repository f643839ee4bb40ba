#include "common/units.h"

#include <cmath>
#include <cstdio>

namespace graphcost {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  const double magnitude = std::fabs(seconds);
  const char* unit = "s";
  double value = seconds;
  if (magnitude == 0) {
    return "0 s";
  } else if (magnitude < 1e-6) {
    value = seconds * 1e9, unit = "ns";
  } else if (magnitude < 1e-3) {
    value = seconds * 1e6, unit = "us";
  } else if (magnitude < 1) {
    value = seconds * 1e3, unit = "ms";
  }
  char text[48];
  std::snprintf(text, sizeof text, std::fabs(value) >= 1000 ? "%.0f %s" : "%.4g %s", value, unit);
  return text;
}

std::string format_change(double ratio) {
  if (!std::isfinite(ratio)) return "-";
  const double percent = (ratio - 1) * 100;
  char text[32];
  if (std::fabs(percent) < 0.05) return "0.0%";
  std::snprintf(text, sizeof text, "%+.1f%%", percent);
  return text;
}

}  // namespace graphcost
