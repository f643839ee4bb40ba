// NameTable: an enum's values and the names that stand for them in options, JSON and messages.
// Text becomes an enum once, where it enters (CLI options, files); code passes the enum. An
// unknown name is refused with the list of valid ones.
//   const NameTable<RankingLoss>& ranking_loss_names();   // {{"listmle", RankingLoss::ListMle}, ...}
//   value_named(ranking_loss_names(), "hinge", "loss")    // RankingLoss::Hinge
//   name_of(ranking_loss_names(), RankingLoss::Hinge)     // "hinge"
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/input_error.h"
#include "common/internal_error.h"

namespace graphcost {

template <class Enum>
using NameTable = std::vector<std::pair<std::string, Enum>>;

// The names in table order ("listmle, hinge, mse" when joined), e.g. for CLI::IsMember.
template <class Enum>
std::vector<std::string> names_in(const NameTable<Enum>& table) {
  std::vector<std::string> names;
  for (const auto& [name, value] : table) names.push_back(name);
  return names;
}

// The value named `name`; InputError naming `what` and every valid name otherwise.
template <class Enum>
Enum value_named(const NameTable<Enum>& table, const std::string& name, const std::string& what) {
  std::string valid;
  for (const auto& [known, value] : table) {
    if (known == name) return value;
    valid += (valid.empty() ? "" : ", ") + known;
  }
  throw InputError("", what, "one of " + valid, "'" + printable(name) + "'");
}

template <class Enum>
const std::string& name_of(const NameTable<Enum>& table, Enum value) {
  for (const auto& [name, known] : table) {
    if (known == value) return name;
  }
  throw InternalError("an enum value without a name");
}

}  // namespace graphcost
