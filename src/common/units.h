// Numbers as a person reads them: durations with their unit, ratios as a signed percentage.
#pragma once

#include <string>

namespace graphcost {

// 4 significant digits and the unit that keeps them readable: "8.521 us", "910.9 ms", "23.27 s".
std::string format_duration(double seconds);
// A runtime ratio as a change: 0.969 -> "-3.1%", 1.004 -> "+0.4%", 1 -> "0.0%".
std::string format_change(double ratio);

}  // namespace graphcost
