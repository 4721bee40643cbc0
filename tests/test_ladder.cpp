// The cumulative ladder: rungs nest (each holds the one below), each rung is
// timed against the rung below, and rows outside the top row's stack (bf16
// on a CPU run) are left out.
#include <doctest/doctest.h>

#include "reports/views/ladder.h"

namespace {

// The row's stack as its scenario defines it (the result carries it, as a run writes it).
ftb::ScenarioResult row(const std::string& name, double wall_s, double acc) {
  ftb::ScenarioResult r;
  r.scenario = name;
  if (name == "fused_adam") r.stack = {"fused_adam"};
  if (name == "amp_bf16") r.stack = {"bf16"};
  if (name == "bucketed") r.stack = {"bucketing"};
  r.wall_time_s = wall_s;
  r.train_samples = 1000;
  r.test_acc = acc;
  ftb::RepeatSample s;
  s.wall_time_s = wall_s;
  s.steady_samples_per_s = 1000 / wall_s;
  s.train_samples = 1000;
  r.repeats = {s};
  return r;
}

}  // namespace

TEST_CASE("ladder: baseline -> +fused_adam -> +bucketing (fastest), each against the rung below") {
  ftb::Report report;
  auto fastest = row("fastest", 5, 0.84);
  fastest.stack = {"fused_adam", "bucketing"};
  report.results = {row("baseline", 20, 0.85), row("fused_adam", 16, 0.85), row("amp_bf16", 30, 0.80),
                    row("bucketed", 8, 0.85), fastest};
  const auto rungs = ftb::ladder(report);
  REQUIRE(rungs.size() == 3);
  CHECK(rungs[0].row->scenario == "baseline");
  CHECK(rungs[1].row->scenario == "fused_adam");  // the first one-technique row in report order
  CHECK(rungs[1].adds == std::vector<std::string>{"fused_adam"});
  CHECK(rungs[2].row->scenario == "fastest");
  CHECK(rungs[2].adds == std::vector<std::string>{"bucketing"});

  const auto t = ftb::ladder_table(report);
  REQUIRE(t);
  REQUIRE(t->rows.size() == 4);
  CHECK(t->rows[2][2] == "+fused_adam");
  CHECK(t->rows[2][4] == "1.25x");   // 20 s / 16 s: against the rung below
  CHECK(t->rows[3][4] == "3.20x");   // 16 s / 5 s
  CHECK(t->rows[3][6] == "4.00x");   // 20 s / 5 s: against baseline
  CHECK(t->rows[3][8] == "-1.00");   // accuracy change in points against the rung below
}

TEST_CASE("ladder: none without a baseline or without a row that stacks something") {
  ftb::Report report;
  report.results = {row("baseline", 20, 0.85), row("trainer", 21, 0.85)};
  CHECK(ftb::ladder(report).empty());
  CHECK(!ftb::ladder_table(report));
  report.results = {row("baseline", 20, 0.85), row("bucketed", 8, 0.85)};
  CHECK(ftb::ladder(report).size() == 2);
  CHECK(!ftb::ladder_table(report));  // one step: the speed-up table already has it
  report.results = {row("bucketed", 8, 0.85)};
  CHECK(ftb::ladder(report).empty());
}
