#include "cli/prepare_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cli_options/collection_option.h"
#include "common/input_error.h"
#include "common/memory_limit.h"
#include "data/collection_files.h"
#include "data/config_store.h"
#include "data/dataset_path.h"

namespace graphcost {

int run_prepare_command(const PrepareCommandOptions& options) {
  const uint64_t memory_budget = options.memory_budget.empty() ? 0 : parse_byte_size(options.memory_budget, "--memory-budget");
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> files;
  for (const std::string& file : collection_files(options.data, options.collection, options.split)) {
    if (!parse_dataset_path(file).is_tile()) files.push_back(file);
  }
  if (files.empty()) {
    throw InputError(options.data, "collections " + options.collection + ", splits " + options.split, "layout .npz files", "none found");
  }
  if (memory_budget > 0) set_input_memory_limit(memory_budget);
  const size_t piece = config_store_piece_bytes(memory_budget);
  int64_t configs = 0, distinct = 0, reused = 0;
  uint64_t store_bytes = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const auto file_start = std::chrono::steady_clock::now();
    const PreparedStore prepared = prepare_config_store(files[i], config_store_folder(options.cache, files[i]), piece);
    configs += prepared.configs;
    distinct += prepared.distinct;
    reused += prepared.reused ? 1 : 0;
    store_bytes += prepared.store_bytes;
    if (!options.quiet) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - file_start).count();
      const DatasetPath location = parse_dataset_path(files[i]);
      char timing[64];
      std::snprintf(timing, sizeof timing, prepared.reused ? " (current, kept)" : " in %.1f s", seconds);
      std::fprintf(stderr, "prepare %zu/%zu %s %s/%s: %lld configs, %lld distinct%s\n", i + 1, files.size(), location.collection.c_str(),
                   location.split.c_str(), location.stem.c_str(), static_cast<long long>(prepared.configs),
                   static_cast<long long>(prepared.distinct), timing);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "prepared %zu layout files into %s (%lld already current): %lld configs, %lld distinct kept, %s of configs written, in %.1f s\n",
      files.size(), options.cache.c_str(), static_cast<long long>(reused), static_cast<long long>(configs),
      static_cast<long long>(distinct), format_byte_size(store_bytes).c_str(), seconds);
  return 0;
}

CLI::App* add_prepare_command(CLI::App& app, PrepareCommandOptions& prepare) {
  CLI::App* prepare_command = app.add_subcommand(
      "prepare", "Prepare layout files' configs into a config store (int8, deduplicated, memory-mapped) for train --cache");
  prepare_command->add_option("--data", prepare.data, "npz tree")->required();
  prepare_command->add_option("--cache", prepare.cache, "config store folder (created; current entries are kept)")->required();
  prepare_command->add_option("--collection", prepare.collection, "layout collection(s), comma list (default: all four)")
      ->check(collection_list_check);
  prepare_command->add_option("--split", prepare.split, "split(s)")->capture_default_str();
  prepare_command->add_option("--memory-budget", prepare.memory_budget, "inflate at most this much at once, e.g. 256MiB");
  prepare_command->add_flag("-q,--quiet", prepare.quiet, "no progress on stderr");
  return prepare_command;
}

}  // namespace graphcost
