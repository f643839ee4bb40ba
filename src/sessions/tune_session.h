// TuneSession: the app's Tune panel (docs/browser-app.md). On a file with recorded runtimes, rounds
// of the tuning loop (tune/tuner.h) replay them one measurement at a time: the model fine-tunes in
// the page, and after each round the panel plots the model's tau on the configs not measured yet
// and the best runtime measured so far against the file's best, both against the measurements
// made. One round per step() (a fit: well under a second natively for the real unet_3d file,
// docs/tuning.md), so the page draws between rounds and Stop takes effect at the next one.
// GL-free: tests/test_tune_session.cpp runs it natively.
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "tune/tuner.h"

namespace graphcost {

class TuneSession {
 public:
  // `graph` must be labelled (InputError otherwise); it is copied. `model`, when given, is the
  // first ranking's (the app's shipped model).
  TuneSession(const TpuGraph& graph, const CostModel* model, TuneOptions options);
  // A target already read (a kernel's parameter space: tune/space_target.h); it must be recorded.
  TuneSession(TuningTarget target, TuneOptions options);

  // One round; false once the budget is spent, every config is measured, or stop() was called.
  bool step();
  void stop() { stopped_ = true; }
  bool running() const { return !stopped_ && !tuner_->done(); }

  const Tuner& tuner() const { return *tuner_; }
  // Per round (tune/tuner.h's RoundReport): the measurements made, the learner's tau on the
  // unmeasured, the best measured over the file's best (1 is the best config of the file).
  const std::vector<RoundReport>& rounds() const { return rounds_; }
  std::vector<bool> measured_configs() const;
  // The run as `tune --json` and Python report it (tune/tune_report.h), plus what the panel shows:
  // "running", "budget", the "measured" configs, "learn_ms_per_round".
  nlohmann::json state() const;

 private:
  TuningTarget target_;
  std::unique_ptr<Tuner> tuner_;
  std::vector<RoundReport> rounds_;
  bool stopped_ = false;
};

}  // namespace graphcost
