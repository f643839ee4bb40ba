#include "machine.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>
#include <vector>

#include <Eigen/Core>

namespace graphcost::bench {
namespace {

constexpr int kProducts = 2000;

// "AMD EPYC (family 25 model 1, 2445 MHz, avx2 fma)": the model name alone can be as vague as that.
std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, name = "unknown", family, model, mhz, vector;
  auto value = [&](const std::string& text) {
    const size_t colon = text.find(':');
    return colon == std::string::npos || colon + 2 > text.size() ? std::string() : text.substr(colon + 2);
  };
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) name = value(line);
    else if (line.rfind("cpu family", 0) == 0) family = value(line);
    else if (line.rfind("model\t", 0) == 0) model = value(line);
    else if (line.rfind("cpu MHz", 0) == 0) mhz = value(line).substr(0, value(line).find('.'));
    else if (line.rfind("flags", 0) == 0) {
      for (const char* flag : {"avx512f", "avx2", "fma"}) {
        if ((" " + value(line) + " ").find(std::string(" ") + flag + " ") != std::string::npos)
          vector += (vector.empty() ? "" : " ") + std::string(flag);
      }
      break;  // the first processor describes them all
    }
  }
  return name + " (family " + (family.empty() ? "?" : family) + " model " + (model.empty() ? "?" : model) + ", " +
         (mhz.empty() ? "?" : mhz) + " MHz, " + (vector.empty() ? "no avx" : vector) + ")";
}

double calibration_ms() {
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Matrix a = Matrix::Random(64, 64), b = Matrix::Random(64, 64), c(64, 64);
  std::vector<double> runs;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kProducts; ++i) {
      c.noalias() = a * b;
      a(i % 64, 0) += c(0, i % 64) * 1e-9f;  // a data dependency: the products cannot be skipped
    }
    runs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

}  // namespace

Machine measure_machine() {
  Machine machine;
  machine.cpu = cpu_model();
  machine.cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  machine.calibration_ms = calibration_ms();
  return machine;
}

std::string machine_line(const Machine& machine) {
  char text[512];
  std::snprintf(text, sizeof text, "machine: %s, %d cores, calibration %.1f ms (%d 64x64 float products, 1 thread)", machine.cpu.c_str(),
                machine.cores, machine.calibration_ms, kProducts);
  return text;
}

nlohmann::json machine_json(const Machine& machine) {
  return {{"cpu", machine.cpu}, {"cores", machine.cores}, {"calibration_ms", machine.calibration_ms}, {"calibration_products", kProducts}};
}

}  // namespace graphcost::bench
