// The machine a benchmark ran on, printed with every figure so another machine can check it:
// the CPU model and the cores this process may use, and a calibration, the median time of a fixed
// single-thread workload like the model's inner loop (float 64x64 matrix products through Eigen,
// AVX natively, 128-bit SIMD in WebAssembly). Figures are comparable across machines as ratios to a
// peer measured in the same run, or as multiples of the calibration.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace graphcost::bench {

struct Machine {
  std::string cpu;            // /proc/cpuinfo "model name" ("unknown" when unreadable)
  int cores = 0;              // hardware threads available
  double calibration_ms = 0;  // median of 5 runs of the calibration workload
};

Machine measure_machine();
// "machine: AMD EPYC 7B13, 2 cores, calibration 41.2 ms (2,000 64x64 float products, 1 thread)"
std::string machine_line(const Machine& machine);
nlohmann::json machine_json(const Machine& machine);

}  // namespace graphcost::bench
