#include "sessions/scatter_axes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/units.h"

namespace graphcost {

std::vector<double> round_ticks(double low, double high, int most) {
  std::vector<double> ticks;
  if (!std::isfinite(low) || !std::isfinite(high) || high < low || most < 1) return ticks;
  if (high == low) return {low};
  const double rough = (high - low) / most;
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = power;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * power;
    if ((high - low) / step <= most) break;
  }
  for (double value = std::ceil(low / step) * step; value <= high + step * 1e-9; value += step) {
    ticks.push_back(std::fabs(value) < step * 1e-9 ? 0.0 : value);
  }
  return ticks;
}

ScatterAxes scatter_axes(const std::vector<float>& costs, const std::vector<int64_t>& runtimes_ns, const std::vector<int32_t>& order,
                         const RuntimeCalibration& calibration, int64_t graph_nodes, double kendall_tau, double top5_slowdown) {
  ScatterAxes axes;
  const size_t n = std::min(costs.size(), runtimes_ns.size());
  if (n == 0) return axes;
  // x: predicted change from config 0 when the calibration supports a figure for the widest gap.
  const auto [cheapest, dearest] = std::minmax_element(costs.begin(), costs.begin() + static_cast<std::ptrdiff_t>(n));
  const SpeedupEstimate widest = calibration.estimate_speedup(*dearest, *cheapest, graph_nodes);
  const SpeedupEstimate to_first = calibration.estimate_speedup(costs[0], *cheapest, graph_nodes);
  if (widest.supported && to_first.supported) {
    std::vector<double> change(n);
    for (size_t c = 0; c < n; ++c) change[c] = 100.0 * (1.0 / calibration.predicted_speedup(costs[0], costs[c]) - 1.0);
    const auto [low, high] = std::minmax_element(change.begin(), change.end());
    const double span = std::max(1e-9, *high - *low);
    for (size_t c = 0; c < n; ++c) axes.x.push_back(static_cast<float>((change[c] - *low) / span));
    for (double tick : round_ticks(*low, *high)) {
      char label[32];
      std::snprintf(label, sizeof label, "%+g%%", tick);
      axes.x_ticks.push_back({static_cast<float>((tick - *low) / span), tick == 0 ? "config 0" : label});
    }
    axes.x_label = "predicted runtime vs config 0";
  } else {
    std::vector<float> rank(n);
    for (size_t r = 0; r < order.size() && r < n; ++r) rank[static_cast<size_t>(order[r])] = static_cast<float>(r);
    const float last = std::max(1.0f, static_cast<float>(n - 1));
    for (size_t c = 0; c < n; ++c) axes.x.push_back(rank[c] / last);
    for (double tick : round_ticks(1, static_cast<double>(n))) {
      axes.x_ticks.push_back({static_cast<float>((tick - 1) / last), std::to_string(static_cast<long long>(tick))});
    }
    axes.x_label = "predicted rank (1 = the model's pick)";
    axes.x_note = "no predicted runtimes: " + (widest.supported ? to_first.reason : widest.reason);
  }
  // y: measured runtime on a log scale.
  std::vector<double> log_runtime(n);
  for (size_t c = 0; c < n; ++c) log_runtime[c] = std::log(static_cast<double>(std::max<int64_t>(1, runtimes_ns[c])) * 1e-9);
  const auto [low, high] = std::minmax_element(log_runtime.begin(), log_runtime.end());
  const double span = std::max(1e-12, *high - *low);
  for (size_t c = 0; c < n; ++c) axes.y.push_back(static_cast<float>((log_runtime[c] - *low) / span));
  for (double tick : round_ticks(std::exp(*low), std::exp(*high))) {
    if (tick <= 0) continue;
    axes.y_ticks.push_back({static_cast<float>((std::log(tick) - *low) / span), format_duration(tick)});
  }
  axes.y_label = "measured runtime (log scale)";
  char title[160];
  std::snprintf(title, sizeof title, "%zu configs: Kendall tau %.3f, top-5 slowdown %.3f", n, kendall_tau, top5_slowdown);
  axes.title = title;
  return axes;
}

}  // namespace graphcost
