// A CLI11 option for a seed: an unsigned decimal below 2^64, checked as text. CLI11 reads a uint64_t
// through strtoull, which takes "-1" as 2^64-1 and clamps 10^30 to 2^64-1 without a word; a seed
// that silently became another number would break "same seed, same bytes".
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include <CLI/CLI.hpp>

namespace graphcost {

inline CLI::Option* add_seed_option(CLI::App* command, uint64_t& target, const std::string& description) {
  return command->add_option_function<std::string>(
      "--seed",
      [&target](const std::string& text) {
        uint64_t value = 0;
        bool valid = !text.empty() && text.size() <= 20;
        for (const char c : text) {
          if (!valid) break;
          const uint64_t digit = static_cast<uint64_t>(c - '0');
          valid = c >= '0' && c <= '9' && value <= (std::numeric_limits<uint64_t>::max() - digit) / 10;
          value = value * 10 + digit;
        }
        if (!valid) throw CLI::ValidationError("--seed", "expected a whole number in 0..2^64-1, got '" + text + "'");
        target = value;
      },
      description);
}

}  // namespace graphcost
