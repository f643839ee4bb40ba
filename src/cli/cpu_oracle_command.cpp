#include "cli/cpu_oracle_command.h"

#include <charconv>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "lowering/cpu_oracle.h"
#include "tune/tuning_target.h"

namespace graphcost {

CLI::App* add_cpu_oracle_command(CLI::App& app, CpuOracleCommandOptions& options) {
  CLI::App* command = app.add_subcommand(
      "oracle", "The cpu oracle as a process: config indices on stdin, one JSON measurement a line on stdout (graphcost.CpuOracle)");
  command->add_option("target", options.target, "a module (HLO text or proto), as `graphcost tune` takes it")->required();
  command->add_option("--kernel", options.kernel, "tune this instruction as a module of its own");
  command->add_option("--candidates", options.candidates, "random configs beside config 0, as tune's")->capture_default_str();
  command->add_option("--seed", options.seed, "the candidates' seed, as tune's")->capture_default_str();
  command->add_option("--timeout", options.timeout, "seconds a config may take, compiling included (then a failure)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--threads", options.threads, "cores a measurement uses")->check(CLI::Range(1, 1024))->capture_default_str();
  return command;
}

namespace {

// The config index `line` names, or -1 with `why` said.
int64_t config_of(const std::string& line, int64_t configs, std::string& why) {
  int64_t config = -1;
  const auto [end, error] = std::from_chars(line.data(), line.data() + line.size(), config);
  if (error != std::errc() || end != line.data() + line.size() || line.empty()) {
    why = "expected a config index (an integer on a line of its own), got '" + line.substr(0, 40) + "'";
    return -1;
  }
  if (config < 0 || config >= configs) {
    why = "expected a config index from 0 to " + std::to_string(configs - 1) + ", got " + std::to_string(config);
    return -1;
  }
  return config;
}

}  // namespace

int run_cpu_oracle_command(const CpuOracleCommandOptions& options) {
  const TuningTarget target = load_tuning_target(options.target, options.candidates, options.seed, "", options.kernel);
  MeasureOptions protocol;
  protocol.timeout_seconds = options.timeout;
  protocol.threads = options.threads;
  Oracle oracle = cpu_oracle(target, protocol, nullptr);
  std::cout << nlohmann::json{{"target", target.path}, {"fingerprint", target.fingerprint}, {"configs", target.graph.config_count}}.dump()
            << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string why;
    const int64_t config = config_of(line, target.graph.config_count, why);
    if (config < 0) {
      std::cout << nlohmann::json{{"error", why}}.dump() << std::endl;
      continue;
    }
    const Measurement m = oracle.measure(static_cast<int32_t>(config));
    std::cout << nlohmann::json{{"config", config},
                                {"status", m.ok() ? "ok" : "failed"},
                                {"seconds", m.ok() ? m.seconds : 0.0},
                                {"runs", m.runs},
                                {"message", m.message}}
                     .dump()
              << std::endl;
  }
  return 0;
}

}  // namespace graphcost
