#include "cli/command_oracle.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/io_error.h"
#include "hlo/hlo_layout_writer.h"

namespace graphcost {
namespace {

struct Run {
  MeasurementStatus status = MeasurementStatus::Ok;
  double seconds = 0;
  std::string message;
};

// The last non-empty line of `output`, trimmed.
std::string last_line(const std::string& output) {
  size_t end = output.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  const size_t start = output.find_last_of('\n', end);
  std::string line = output.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
  const size_t first = line.find_first_not_of(" \t");
  return first == std::string::npos ? "" : line.substr(first);
}

Run run_once(const CommandOracleOptions& options, const std::vector<std::string>& arguments, const std::string& log_path) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw IoError("pipe", "create", errno);
  const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (log_fd < 0) throw IoError(log_path, "open", errno);
  const pid_t pid = ::fork();
  if (pid < 0) throw IoError("fork", "start the measure command", errno);
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    ::close(log_fd);
    std::vector<const char*> argv = {"sh", "-c", nullptr, "sh"};
    const std::string script = options.command + " \"$@\"";
    argv[2] = script.c_str();
    for (const std::string& argument : arguments) argv.push_back(argument.c_str());
    argv.push_back(nullptr);
    ::execv("/bin/sh", const_cast<char* const*>(argv.data()));
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(pipe_fds[1]);
  ::close(log_fd);
  std::string output;
  const auto start = std::chrono::steady_clock::now();
  Run run;
  bool killed = false;
  for (;;) {
    pollfd fd{pipe_fds[0], POLLIN, 0};
    const int ready = ::poll(&fd, 1, 100);
    if (ready > 0) {
      char buffer[4096];
      const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
      if (n > 0) {
        output.append(buffer, static_cast<size_t>(n));
        if (output.size() > (1u << 20)) output.erase(0, output.size() - (64u << 10));  // the last line is what counts
        continue;
      }
      if (n == 0) break;  // the command closed its stdout
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool stop = options.stop && options.stop();
    if (elapsed > options.timeout_seconds || stop) {
      ::kill(-pid, SIGKILL);
      killed = true;
      run.status = stop ? MeasurementStatus::Stopped : MeasurementStatus::Timeout;
      char text[96];
      std::snprintf(text, sizeof text, "no answer within %.0f s (killed)", options.timeout_seconds);
      if (!stop) run.message = text;
      break;
    }
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (killed) return run;
  if (WIFSIGNALED(status)) {
    run.status = MeasurementStatus::Failed;
    run.message = "killed by signal " + std::to_string(WTERMSIG(status));
    return run;
  }
  if (WEXITSTATUS(status) != 0) {
    run.status = MeasurementStatus::Failed;
    run.message = "exit status " + std::to_string(WEXITSTATUS(status));
    return run;
  }
  const std::string line = last_line(output);
  char* end = nullptr;
  const double seconds = std::strtod(line.c_str(), &end);
  if (line.empty() || end != line.c_str() + line.size() || !std::isfinite(seconds) || seconds <= 0) {
    run.status = MeasurementStatus::Garbage;
    run.message = "last line of stdout is not a positive number of seconds: " + excerpt(line);
    return run;
  }
  run.seconds = seconds;
  return run;
}

}  // namespace

Oracle command_oracle(const TuningTarget& target, const CommandOracleOptions& options) {
  if (options.command.empty()) throw InputError("--measure", "", "a command that times a config (docs/tuning.md)", "none");
  if (options.repeats < 1) throw InputError("--repeats", "", "1 or more runs per measurement", std::to_string(options.repeats));
  std::error_code error;
  std::filesystem::create_directories(options.work_dir, error);
  if (!std::filesystem::is_directory(options.work_dir))
    throw InputError(options.work_dir, "", "a folder for the measure files", "not a folder");
  Oracle oracle;
  oracle.name = "command";
  const TuningTarget* t = &target;
  oracle.measure = [t, options](int32_t config) {
    const std::string base = (std::filesystem::path(options.work_dir) / ("config-" + std::to_string(config))).string();
    std::vector<std::string> arguments = {base + ".json"};
    write_file_atomically(base + ".json", describe_config(*t, config).dump(1) + "\n");
    if (t->module && t->module->from_text && t->graph.kind == GraphKind::Layout) {
      arguments.push_back(base + ".hlo");
      write_file_atomically(base + ".hlo", module_text_with_layouts(*t->module, t->computation_first, t->graph, config));
    }
    Measurement m;
    m.config = config;
    for (int r = 0; r < options.repeats; ++r) {
      const Run run = run_once(options, arguments, base + ".log");
      if (run.status == MeasurementStatus::Stopped) {
        m.status = MeasurementStatus::Stopped;
        return m;
      }
      if (run.status != MeasurementStatus::Ok) {
        m.status = run.status;
        m.message =
            run.message + (options.repeats > 1 ? " (run " + std::to_string(r + 1) + " of " + std::to_string(options.repeats) + ")" : "");
        return m;
      }
      m.runs.push_back(run.seconds);
    }
    std::vector<double> sorted = m.runs;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    m.seconds = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    return m;
  };
  return oracle;
}

}  // namespace graphcost
