#include "simulator/gemm_model.h"

#include <algorithm>
#include <cmath>

#include "metrics/kendall_tau.h"

namespace graphcost {
namespace {

double round_up(int64_t value, int64_t multiple) {
  return static_cast<double>((value + multiple - 1) / multiple) * static_cast<double>(multiple);
}

}  // namespace

double gemm_seconds(const Gemm& g, const HardwareModel& h) {
  const bool int8 = g.type == GemmType::Int8;
  const int64_t mxu = h.mxu_dim > 0 ? h.mxu_dim : 128;
  const double peak = int8 ? (h.mxu_flops_int8 > 0 ? h.mxu_flops_int8 : 2 * h.mxu_flops_bf16) : h.mxu_flops_bf16;
  const double compute = 2 * round_up(g.m, 8) * round_up(g.k, mxu) * round_up(g.n, mxu) / (peak * h.mxu_efficiency);
  const int64_t sublanes = int8 ? 32 : 8;  // memory tiles of the inputs; the 32-bit output's are (8, 128)
  const double in_bytes = int8 ? 1 : 2;
  const double a = round_up(g.m, sublanes) * round_up(g.k, h.lanes) * in_bytes;
  const double b = round_up(g.k, sublanes) * round_up(g.n, h.lanes) * in_bytes;
  const double c = round_up(g.m, 8) * round_up(g.n, h.lanes) * 4;
  const double bandwidth = h.hbm_bytes_per_second * h.hbm_efficiency;
  const bool vector_product = g.m == 1 || g.n == 1;
  double memory = c / bandwidth;
  for (const double input : {a, b}) {
    const bool resident = !vector_product && input <= h.resident_share * h.vmem_bytes;
    memory += input / (bandwidth * (resident ? h.resident_read_speedup : 1));
  }
  return h.launch_seconds + std::max(compute, memory) + h.overlap_share * std::min(compute, memory);
}

GemmFit gemm_fit_quality(const std::vector<Gemm>& gemms, const HardwareModel& hardware) {
  GemmFit fit;
  std::vector<double> errors, predicted, measured;
  for (const Gemm& g : gemms) {
    if (!(g.measured_s > 0)) continue;
    const double p = gemm_seconds(g, hardware);
    errors.push_back(std::fabs(p / g.measured_s - 1));
    predicted.push_back(p);
    measured.push_back(g.measured_s);
  }
  if (errors.empty()) return fit;
  std::sort(errors.begin(), errors.end());
  const auto at = [&](double q) {
    return errors[std::min(errors.size() - 1, static_cast<size_t>(q * static_cast<double>(errors.size())))];
  };
  const size_t n = errors.size();
  fit.median_error = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  fit.p90_error = at(0.9);
  fit.kendall_tau = predicted.size() >= 2 ? kendall_tau_b(predicted.data(), measured.data(), predicted.size()) : 0;
  return fit;
}

HardwareModel fit_gemm_efficiencies(const std::vector<Gemm>& gemms, HardwareModel start) {
  struct Parameter {
    double HardwareModel::*field;
    double low, high, step;
  };
  const Parameter parameters[] = {{&HardwareModel::mxu_efficiency, 0.3, 1.0, 0.05},
                                  {&HardwareModel::hbm_efficiency, 0.3, 1.0, 0.05},
                                  {&HardwareModel::overlap_share, 0.0, 1.0, 0.25},
                                  {&HardwareModel::resident_read_speedup, 1.0, 10.0, 0.5}};
  const auto objective = [&](const HardwareModel& h) {
    const GemmFit fit = gemm_fit_quality(gemms, h);
    return fit.median_error + 0.5 * fit.p90_error;
  };
  HardwareModel best = start;
  double best_value = objective(best);
  double steps[4];
  for (int i = 0; i < 4; ++i) steps[i] = parameters[i].step;
  for (int round = 0; round < 200; ++round) {
    bool improved = false;
    for (int i = 0; i < 4; ++i) {
      for (const double sign : {1.0, -1.0}) {
        HardwareModel trial = best;
        trial.*(parameters[i].field) = std::clamp(best.*(parameters[i].field) + sign * steps[i], parameters[i].low, parameters[i].high);
        const double value = objective(trial);
        if (value < best_value - 1e-12) {
          best = trial;
          best_value = value;
          improved = true;
        }
      }
    }
    if (!improved) {
      for (double& step : steps) step /= 2;
      if (steps[0] < 1e-3) break;
    }
  }
  return best;
}

}  // namespace graphcost
