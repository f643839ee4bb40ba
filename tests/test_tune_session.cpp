// The app's Tune panel logic (src/sessions/tune_session.h) natively: replay rounds on a real labelled
// file, the curves the panel plots, the measured configs it marks, Stop.
#include <catch2/catch.hpp>

#include "common/input_error.h"
#include "sessions/tune_session.h"
#include "test_support.h"

using namespace graphcost;

TEST_CASE("tune session: replay rounds on a real file, the rounds and marks for the panel", "[tune][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const TpuGraph graph = load_tpu_graph(testing::real_file("npz/layout/xla/random/valid/unet_3d.4x4.bf16.npz"));
  TuneOptions options;
  options.budget = 30;
  options.per_round = 10;
  options.seed = 4;
  if (testing::sanitized_build()) {  // the session's mechanics, not what it learns: 449 s at the default recipe
    options.learner.epochs = 1;
    options.learner.steps_per_epoch = 5;
  }
  TuneSession session(graph, nullptr, options);
  CHECK(session.step());
  CHECK(session.step());
  REQUIRE(session.rounds().size() == 2);
  CHECK(session.rounds()[1].measured == 20);
  CHECK((session.rounds()[1].unmeasured_tau >= -1 && session.rounds()[1].unmeasured_tau <= 1));
  CHECK(session.rounds()[1].best_over_pool_best >= 1.0);
  const std::vector<bool> measured = session.measured_configs();
  CHECK(std::count(measured.begin(), measured.end(), true) == 20);
  CHECK(measured[0]);  // config 0 is always measured first
  session.stop();
  CHECK_FALSE(session.step());
  CHECK(session.state()["measured"].size() == 20);
  // The state is the run as `tune --json` reports it (one serializer), plus the panel's fields.
  const nlohmann::json state = session.state();
  CHECK(state["rounds"].size() == 2);
  CHECK(state["rounds"][1]["measured"] == 20);
  CHECK(state["interrupted"] == true);
  CHECK(state["oracle"] == "replay");
  CHECK(state["options"]["budget"] == session.tuner().options().budget);
}

TEST_CASE("tune session: a file without runtimes has nothing to replay", "[tune][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const TpuGraph hidden = load_tpu_graph(testing::real_file("npz/layout/xla/default/test/cd708819d3f5103afd6460b15e74eaf3.npz"));
  CHECK_THROWS_AS(TuneSession(hidden, nullptr, TuneOptions{}), InputError);
}
