// How a model's costs map to runtimes (RuntimeCalibration, model/cost_model.h): fitted on labelled
// graphs after training (`train`) or on demand (`graphcost calibrate`), read by predicted speedups.
#pragma once

#include <vector>

#include "model/cost_model.h"
#include "train/model_validation.h"

namespace graphcost {

// The model's RuntimeCalibration (cost_model.h) on labelled graphs: log runtime (tile graphs:
// runtime / normalizer) regressed on the predicted cost within each graph, pooled. Not fitted
// (slope 0) when no graph has two configs of different runtime, or when costs do not rise with
// runtimes; `graphs` and `configs` count the labelled graphs used either way.
RuntimeCalibration fit_runtime_calibration(CostModel& model, const std::vector<GraphConfigs>& graphs);
RuntimeCalibration fit_runtime_calibration(CostModel& model, const std::vector<const TpuGraph*>& graphs);

}  // namespace graphcost
