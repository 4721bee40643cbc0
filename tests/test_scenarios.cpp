// Registry-driven: every registered scenario runs a few steps on a tiny
// config and ends ok, or skipped with a reason. A new scenario needs no edit.
#include <doctest/doctest.h>

#include "core/train/run_config.h"
#include "core/train/workload.h"
#include "scenarios/registry.h"
#include "scenarios/runner.h"
#include "tests/tiny_config.h"

TEST_CASE("scenarios: every registered scenario runs or says why it cannot") {
  const auto config = tiny_config();
  const auto workload = ftb::build_workload(config);
  for (const auto& info : ftb::scenario_registry()) {
    CAPTURE(info.name);
    auto r = ftb::run_scenario(info, workload, config, {});
    CHECK(r.scenario == info.name);
    if (r.status == ftb::Status::skipped) {
      CHECK(!r.reason.empty());
      continue;
    }
    REQUIRE_MESSAGE(r.status == ftb::Status::ok, r.reason);
    CHECK(r.steps.size() == 4);
    CHECK(r.epochs.size() == 1);
    CHECK(r.wall_time_s > 0);
    CHECK(r.train_samples_per_s > 0);
    CHECK(r.test_acc >= 0);
    CHECK(r.test_acc <= 1);
    CHECK(r.repeats.size() == 1);
  }
}

TEST_CASE("scenarios: names resolve, unknown names are rejected") {
  CHECK(ftb::find_scenario("baseline") != nullptr);
  CHECK(ftb::find_scenario("nope") == nullptr);
  CHECK(ftb::select_scenarios({}).size() == ftb::scenario_registry().size());
  CHECK_THROWS(ftb::select_scenarios({"baseline", "nope"}));
}

TEST_CASE("baseline: the same seed gives the same training run") {
  auto config = tiny_config();
  config.max_steps = 3;
  const auto workload = ftb::build_workload(config);
  const auto* info = ftb::find_scenario("baseline");
  auto a = ftb::run_scenario(*info, workload, config, {});
  auto b = ftb::run_scenario(*info, workload, config, {});
  REQUIRE(a.steps.size() == b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) CHECK(a.steps[i].loss == b.steps[i].loss);
}
