// A CLI11 option whose value is an enum (common/named_values.h): the text is checked against the
// table's names (an unknown value is a usage error that lists them) and stored as the enum.
// cli_options/ (target graphcost_cli_options) is shared by graphcost and graphcost-eval.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "common/named_values.h"

namespace graphcost {

template <class Enum>
CLI::Option* add_named_option(CLI::App* command, const std::string& flag, Enum& target, const NameTable<Enum>& table,
                              const std::string& description) {
  return command
      ->add_option_function<std::string>(
          flag, [&target, &table, flag](const std::string& name) { target = value_named(table, name, flag); }, description)
      ->check(CLI::IsMember(names_in(table)))
      ->default_str(name_of(table, target));  // help shows the struct's default
}

}  // namespace graphcost
