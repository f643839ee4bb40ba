// The app's "predicted vs measured" plot as numbers a person reads: each config's point, axes
// with units and ticks, and a title with the ranking metrics. Kept apart from drawing so the
// native tests check it (tests/test_ranking_session.cpp).
//   x: the predicted runtime change from config 0, in %, when the model's runtime calibration
//      supports figures for this graph (RuntimeCalibration::estimate_speedup); otherwise the
//      predicted rank (1 = the model's pick), and `x_note` says why there is no runtime.
//   y: the measured runtime, log scale, ticks at round durations ("910 ms").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/cost_model.h"

namespace graphcost {

struct AxisTick {
  float at = 0;  // 0..1 along the axis
  std::string label;
};

struct ScatterAxes {
  std::vector<float> x, y;  // per config, 0..1 (y: 0 = the fastest measured)
  std::string x_label, y_label, x_note, title;
  std::vector<AxisTick> x_ticks, y_ticks;
};

// `costs` and `runtimes_ns` per config (runtimes > 0); `order` the configs by cost, best first;
// `kendall_tau` and `top5_slowdown` as the ranking measured them.
ScatterAxes scatter_axes(const std::vector<float>& costs, const std::vector<int64_t>& runtimes_ns, const std::vector<int32_t>& order,
                         const RuntimeCalibration& calibration, int64_t graph_nodes, double kendall_tau, double top5_slowdown);

// About `most` round values covering [low, high] (steps of 1, 2 or 5 times a power of ten).
std::vector<double> round_ticks(double low, double high, int most = 5);

}  // namespace graphcost
