// Where the time goes: the phase names, the recorder, the loop's breakdown on
// a CPU (structural: what adds up to what, never a timing threshold), the
// report keys and the table.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/measure/nvtx_range.h"
#include "core/measure/phase_recorder.h"
#include "core/train/workload.h"
#include "reports/views/phase_table.h"
#include "reports/record/report.h"
#include "reports/views/table.h"
#include "scenarios/registry.h"
#include "scenarios/runner.h"
#include "tests/nvtx_injection.h"
#include "tests/tiny_config.h"

using ftb::Phase;

TEST_CASE("phases: names are unique and parse back, an unknown name is an error naming where") {
  std::set<std::string> names;
  for (Phase p : ftb::all_phases()) {
    names.insert(ftb::phase_name(p));
    CHECK(ftb::phase_from_name(ftb::phase_name(p), "x") == p);
  }
  CHECK(names.size() == ftb::kPhaseCount);
  CHECK_THROWS_WITH_AS(ftb::phase_from_name("fwd", "results[0].phases.times.fwd"),
                       doctest::Contains("results[0].phases.times.fwd"), ftb::InputError);
}

TEST_CASE("phases: the recorder times scopes inside a step only, other is the rest of the step") {
  ftb::PhaseRecorder recorder(torch::kCPU);
  ftb::ActivePhaseRecorder active(&recorder);
  auto x = torch::randn({64, 64});
  { ftb::PhaseScope outside(Phase::forward); x = x.mm(x); }  // not in a step: not timed
  for (int i = 0; i < 3; ++i) {
    recorder.begin_step();
    {
      ftb::PhaseScope f(Phase::forward);
      x = torch::tanh(x.mm(x));
    }
    {
      ftb::PhaseScope b(Phase::backward);
      x = torch::tanh(x.mm(x));
    }
    x = x * 0.5;  // in no named phase
    recorder.end_step();
  }
  ftb::PhaseTimes totals;
  const auto step_ms = recorder.collect_epoch(totals);
  REQUIRE(step_ms.size() == 3);
  CHECK(totals.clock == ftb::PhaseClock::steady_clock);
  double steps_s = 0;
  for (double ms : step_ms) steps_s += ms / 1000;
  CHECK(totals[Phase::forward] > 0);
  CHECK(totals[Phase::backward] > 0);
  CHECK(totals[Phase::optimizer] == 0);
  CHECK(totals[Phase::validation] == 0);
  // The step phases add up to the step times exactly (other is the remainder, never negative).
  const double in_steps = totals[Phase::forward] + totals[Phase::backward] + totals[Phase::other];
  CHECK(in_steps == doctest::Approx(steps_s).epsilon(1e-9));
  CHECK(totals[Phase::other] >= 0);
  // Marks are cleared: the next epoch starts empty.
  ftb::PhaseTimes next;
  CHECK(recorder.collect_epoch(next).empty());
}

// What a profiler attached to the run receives: the static injection
// (tests/nvtx_injection.h) stands in for nsys and records the ranges.
TEST_CASE("phases: a phase and an NvtxRange reach an attached NVTX tool as nested ranges, popped in order") {
  // FTB_NVTX_EXPECTED comes from configure (FTB_WITH_NVTX); the no-op variant
  // is compiled by the ftb_nvtx_noop target in every build.
  CHECK(ftb::nvtx_enabled() == static_cast<bool>(FTB_NVTX_EXPECTED));
  const auto before = ftb_test::nvtx_log();
  {
    ftb::PhaseScope scope(Phase::forward);  // no active recorder: an NVTX range only
    {
      ftb::NvtxRange range("test");
      const auto inside = ftb_test::nvtx_log();
      CHECK(inside.popped == before.popped);  // both still open
    }
    CHECK(ftb_test::nvtx_log().popped == before.popped + (FTB_NVTX_EXPECTED ? 1 : 0));
  }
  const auto after = ftb_test::nvtx_log();
  const std::vector<std::string> opened(after.pushed.begin() + static_cast<std::ptrdiff_t>(before.pushed.size()),
                                        after.pushed.end());
  if (FTB_NVTX_EXPECTED) {
    CHECK(after.attached);
    CHECK(opened == std::vector<std::string>{ftb::phase_name(Phase::forward), "test"});
    CHECK(after.popped == before.popped + 2);
  } else {
    CHECK_FALSE(after.attached);  // no NVTX call, no tool
    CHECK(opened.empty());
  }
}

TEST_CASE("phases: baseline on a CPU breaks its time down into the phases that add up to the steps") {
  auto config = tiny_config();
  const auto workload = ftb::build_workload(config);
  const auto r = ftb::run_scenario(*ftb::find_scenario("baseline"), workload, config, {});
  REQUIRE(r.status == ftb::Status::ok);
  const auto& p = r.phases;
  CHECK(p.clock == ftb::PhaseClock::steady_clock);
  for (Phase ph : {Phase::h2d_copy, Phase::forward, Phase::backward, Phase::optimizer, Phase::validation, Phase::test})
    CHECK_MESSAGE(p[ph] > 0, ftb::phase_name(ph));
  CHECK(p[Phase::grad_comm] == 0);  // one process: no collectives
  double step_s = 0, wait_s = 0;
  for (const auto& s : r.steps) step_s += s.step_ms / 1000, wait_s += s.wait_ms / 1000;
  double in_steps = 0;
  for (Phase ph : {Phase::h2d_copy, Phase::forward, Phase::backward, Phase::optimizer, Phase::grad_comm, Phase::other})
    in_steps += p[ph];
  CHECK(in_steps == doctest::Approx(step_s).epsilon(1e-6));
  CHECK(p[Phase::data_wait] == doctest::Approx(wait_s).epsilon(1e-6));
  // Steps and waits happen inside the epochs' training time.
  double train_s = 0;
  for (const auto& e : r.epochs) train_s += e.time_s;
  CHECK(in_steps + p[Phase::data_wait] <= train_s);
  double shares = 0;
  for (Phase ph : ftb::all_phases()) shares += p.share(ph);
  CHECK(shares == doctest::Approx(1.0));
}

TEST_CASE("phases: report keys round-trip, reports without them read, the table shows them") {
  auto config = tiny_config();
  const auto workload = ftb::build_workload(config);
  auto r = ftb::run_scenario(*ftb::find_scenario("baseline"), workload, config, {});
  REQUIRE(r.status == ftb::Status::ok);
  const auto j = ftb::to_json(r);
  REQUIRE(j.contains("phases"));
  CHECK(j["phases"]["clock"] == "steady_clock");
  for (Phase ph : ftb::all_phases()) {
    CHECK(j["phases"]["times"].contains(ftb::phase_name(ph)));
    CHECK(j["phases"]["times"][ftb::phase_name(ph)]["share"].get<double>() == doctest::Approx(r.phases.share(ph)));
  }
  const auto back = ftb::result_from_json(j, "results[0]");
  for (Phase ph : ftb::all_phases()) CHECK(back.phases[ph] == doctest::Approx(r.phases[ph]));

  auto old = j;
  old.erase("phases");
  CHECK(ftb::result_from_json(old).phases.empty());
  auto bad = j;
  bad["phases"]["times"]["fwd"] = {{"seconds", 1.0}, {"share", 0.1}};
  CHECK_THROWS_WITH_AS(ftb::result_from_json(bad, "results[0]"), doctest::Contains("results[0].phases.times.fwd"),
                       ftb::InputError);

  ftb::Report report;
  report.results = {r};
  const auto table = ftb::phase_table(report);
  REQUIRE(table);
  REQUIRE(table->rows.size() == 2);
  CHECK(table->rows[0].size() == 2 + ftb::kPhaseCount + 2);
  CHECK(table->rows[1][0] == "baseline");
  CHECK(ftb::speedup_table_markdown(report).find("forward %") != std::string::npos);
  report.results = {ftb::result_from_json(old)};
  CHECK(!ftb::phase_table(report));
  CHECK(ftb::speedup_table_markdown(report).find("forward %") == std::string::npos);
}
