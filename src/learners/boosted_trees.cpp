#include "learners/boosted_trees.h"

#include <cmath>
#include <limits>
#include <utility>

#include <xgboost/c_api.h>

#include "common/input_error.h"
#include "common/internal_error.h"

namespace graphcost {
namespace {

void check(int status, const char* call) {
  if (status != 0) throw InternalError(std::string("XGBoost ") + call + ": " + XGBGetLastError());
}

// XGBoost prints warnings to stderr unless told not to; the learners report for themselves.
void quiet_once() {
  static const bool done = [] {
    check(XGBSetGlobalConfig("{\"verbosity\": 0}"), "XGBSetGlobalConfig");
    return true;
  }();
  (void)done;
}

class Matrix {
 public:
  Matrix(const std::vector<float>& features, size_t rows, size_t columns) {
    check_invariant(features.size() == rows * columns, "BoostedTrees: features are rows x columns");
    check(XGDMatrixCreateFromMat(features.data(), rows, columns, std::numeric_limits<float>::quiet_NaN(), &handle_),
          "XGDMatrixCreateFromMat");
  }
  ~Matrix() { XGDMatrixFree(handle_); }
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  DMatrixHandle get() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
};

std::string number(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

}  // namespace

BoostedTrees::~BoostedTrees() {
  if (booster_ != nullptr) XGBoosterFree(booster_);
}

BoostedTrees::BoostedTrees(BoostedTrees&& other) noexcept : booster_(std::exchange(other.booster_, nullptr)), columns_(other.columns_) {}

BoostedTrees& BoostedTrees::operator=(BoostedTrees&& other) noexcept {
  if (this != &other) {
    if (booster_ != nullptr) XGBoosterFree(booster_);
    booster_ = std::exchange(other.booster_, nullptr);
    columns_ = other.columns_;
  }
  return *this;
}

void BoostedTrees::fit(const std::vector<float>& features, size_t rows, size_t columns, const std::vector<float>& targets,
                       const BoostedTreesOptions& options) {
  check_invariant(rows >= 1 && targets.size() == rows, "BoostedTrees::fit: one target per row");
  quiet_once();
  Matrix train(features, rows, columns);
  check(XGDMatrixSetFloatInfo(train.get(), "label", targets.data(), rows), "XGDMatrixSetFloatInfo");
  if (booster_ != nullptr) XGBoosterFree(std::exchange(booster_, nullptr));
  DMatrixHandle matrices[] = {train.get()};
  check(XGBoosterCreate(matrices, 1, &booster_), "XGBoosterCreate");
  columns_ = columns;
  const std::pair<const char*, std::string> parameters[] = {{"objective", "reg:squarederror"},
                                                            {"tree_method", "hist"},
                                                            {"nthread", "1"},
                                                            {"max_depth", std::to_string(options.max_depth)},
                                                            {"eta", number(options.learning_rate)},
                                                            {"base_score", number(options.base_score)},
                                                            {"seed", std::to_string(options.seed % 2147483647u)}};
  for (const auto& [name, value] : parameters) check(XGBoosterSetParam(booster_, name, value.c_str()), "XGBoosterSetParam");
  for (int round = 0; round < options.rounds; ++round)
    check(XGBoosterUpdateOneIter(booster_, round, train.get()), "XGBoosterUpdateOneIter");
}

std::vector<float> BoostedTrees::predict(const std::vector<float>& features, size_t rows) const {
  check_invariant(booster_ != nullptr, "BoostedTrees::predict before fit");
  if (rows == 0) return {};
  Matrix matrix(features, rows, columns_);
  const bst_ulong* shape = nullptr;
  bst_ulong dimensions = 0;
  const float* result = nullptr;
  check(XGBoosterPredictFromDMatrix(
            booster_, matrix.get(),
            "{\"type\": 0, \"training\": false, \"iteration_begin\": 0, \"iteration_end\": 0, \"strict_shape\": false}", &shape,
            &dimensions, &result),
        "XGBoosterPredictFromDMatrix");
  return std::vector<float>(result, result + rows);
}

std::string BoostedTrees::save_json() const {
  check_invariant(booster_ != nullptr, "BoostedTrees::save_json before fit");
  bst_ulong length = 0;
  const char* bytes = nullptr;
  check(XGBoosterSaveModelToBuffer(booster_, "{\"format\": \"json\"}", &length, &bytes), "XGBoosterSaveModelToBuffer");
  return std::string(bytes, length);
}

BoostedTrees BoostedTrees::load_json(const std::string& json, size_t columns, const std::string& where) {
  quiet_once();
  BoostedTrees trees;
  check(XGBoosterCreate(nullptr, 0, &trees.booster_), "XGBoosterCreate");
  if (XGBoosterLoadModelFromBuffer(trees.booster_, json.data(), json.size()) != 0) {
    throw InputError(where, "trees", "an XGBoost JSON model", XGBGetLastError());
  }
  check(XGBoosterSetParam(trees.booster_, "nthread", "1"), "XGBoosterSetParam");
  trees.columns_ = columns;
  return trees;
}

}  // namespace graphcost
