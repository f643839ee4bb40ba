#include "cli/info_command.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <unistd.h>

#include "common/input_error.h"
#include "data/dataset_survey.h"
#include "data/graph_summary.h"
#include "data/tpu_graph.h"
#include "hlo/graph_file.h"
#include "spaces/parameter_space.h"

namespace graphcost {

int run_info_command(const InfoOptions& options) {
  std::error_code error;
  if (std::filesystem::is_directory(options.path, error)) {
    const bool interactive = isatty(STDERR_FILENO) != 0;
    auto last_report = std::chrono::steady_clock::now();
    const SurveyProgress progress = [&](size_t done, size_t total, const std::string& file) {
      if (options.quiet) return true;
      const auto now = std::chrono::steady_clock::now();
      if (interactive) {
        std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, file.c_str());
        if (done == total) std::fprintf(stderr, "\r\033[K");
      } else if (now - last_report > std::chrono::seconds(5) || done == total) {
        std::fprintf(stderr, "info: %zu/%zu files checked\n", done, total);
        last_report = now;
      }
      return true;
    };
    const DatasetSurvey survey = survey_dataset(options.path, progress);
    if (options.json) {
      std::cout << dataset_survey_json(survey).dump(2) << "\n";
    } else {
      std::cout << format_dataset_survey(survey);
    }
    return survey.errors.empty() ? 0 : 1;
  }
  if (is_parameter_space_file(options.path)) {  // a kernel's parameter space (T4, Kernel Tuner cache, T1)
    const nlohmann::json summary = summarize_parameter_space(load_parameter_space(options.path));
    std::cout << (options.json ? summary.dump(2) + "\n" : parameter_space_text(summary));
    return 0;
  }
  const GraphSummary summary = summarize_graph(load_graph_file(options.path).graph);
  if (options.json) {
    std::cout << graph_summary_json(summary).dump(2) << "\n";
  } else {
    std::cout << format_graph_summary(summary);
  }
  return 0;
}

CLI::App* add_info_command(CLI::App& app, InfoOptions& info) {
  CLI::App* info_command = app.add_subcommand("info",
                                              "Summarise a TpuGraphs .npz file, a module, a kernel's parameter space (T4, Kernel Tuner "
                                              "cache, T1), or every file below a directory, checking the schema");
  info_command
      ->add_option("path", info.path, "an .npz file, a module, a space (.json[.gz]) or a directory (e.g. $GRAPHCOST_DATA/tpugraphs)")
      ->required();
  info_command->add_flag("--json", info.json, "print JSON instead of text");
  info_command->add_flag("-q,--quiet", info.quiet, "no progress on stderr");
  return info_command;
}

}  // namespace graphcost
