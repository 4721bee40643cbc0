// The trend (reports/analysis/trend.h) and its chart: each run judged against
// the runs before it, change points with their commit ranges.
#include "core/base/files.h"
#include "reports/analysis/history.h"
#include "reports/analysis/trend.h"
#include "reports/views/trend_chart.h"
#include "tests/history_fixtures.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>

using nlohmann::json;
using namespace ftb;
using namespace ftb::testing;

TEST_CASE("trend: each run judged against the runs before it, the chart marks the regressed one") {
  TempDir dir("ftb_history");
  const std::string db = dir.path() + "/h.db";
  HistoryStore store(db, HistoryStore::Open::create);
  std::mt19937_64 rng(11);
  for (int k = 0; k < 8; ++k) store.add(fake_report_json(run_at(k, night(rng, 0, 5, 0.02))), "r.json");
  store.add(fake_report_json(run_at(8, night(rng, 0.2, 5, 0.02))), "slow.json");
  const auto trend = trends(store, {"baseline"}, Metric::train_samples_per_s, TrendOptions{});
  REQUIRE(trend.size() == 1);
  CHECK(trend[0].scenario == "baseline");
  const auto& points = trend[0].points;
  REQUIRE(points.size() == 9);
  CHECK(points[0].verdict.outcome == stats::Verdict::insufficient);
  CHECK(points[2].verdict.outcome == stats::Verdict::insufficient);  // 2 runs before it
  // 3 to 7 nights of 2 % noise a repeat: no change called; the interval of
  // the shortest histories cannot rule out 3 % (issue 36): cannot tell.
  for (int k = 3; k < 8; ++k)
    CHECK((points[k].verdict.outcome == stats::Verdict::same || points[k].verdict.outcome == stats::Verdict::cannot_tell));
  CHECK(points[3].verdict.outcome == stats::Verdict::cannot_tell);
  CHECK(points[8].verdict.outcome == stats::Verdict::worse);
  CHECK(points[8].median.n == 5);
  CHECK(points[8].median.low < points[8].median.estimate);
  CHECK(points[8].median.coverage == doctest::Approx(0.9375));  // [min, max] of 5
  for (const auto& p : points) CHECK_FALSE(p.change_point);       // one slow night is no level yet
  const std::string md = trend_markdown("baseline", Metric::train_samples_per_s, points);
  CHECK(md.find("### baseline: train_samples_per_s") == 0);
  CHECK(md.find("| " + night_time(8) + " | c8     | sim \\| Test CPU |") != std::string::npos);
  CHECK(md.find("**regressed** (-2") != std::string::npos);
  CHECK(md.find("| cannot tell (") != std::string::npos);
  CHECK(md.find("- c3 (" + night_time(3) + "): the change's 95 % interval") != std::string::npos);

  const json spec = trend_chart("baseline", Metric::train_samples_per_s, points, TrendOptions{});
  CHECK(spec.at("$schema") == "https://vega.github.io/schema/vega-lite/v5.json");
  REQUIRE(spec.at("data").at("values").size() == 9);
  CHECK(spec["data"]["values"][8]["verdict"] == "regressed");
  CHECK(spec["data"]["values"][8]["commit"] == "c8");
  bool has_regressed_layer = false;
  for (const auto& layer : spec.at("layer"))
    if (layer.contains("transform") && layer["transform"][0]["filter"].get<std::string>().find("regressed") !=
                                           std::string::npos)
      has_regressed_layer = layer["mark"]["shape"] == "triangle-down";
  CHECK(has_regressed_layer);
  // One tick per run named by its date, time and commit (a temporal axis
  // labelled nightly runs "12 PM"); each judged run's reference level and
  // +-min_effect band; unjudged runs have none.
  const json& v8 = spec["data"]["values"][8];
  CHECK(v8["run"] == "11-01 08:00 c8");
  CHECK(spec["layer"][0]["encoding"]["x"]["type"] == "ordinal");
  REQUIRE(v8["reference"].is_number());
  CHECK(v8["band_low"].get<double>() == doctest::Approx(0.97 * v8["reference"].get<double>()));
  CHECK(v8["band_high"].get<double>() == doctest::Approx(1.03 * v8["reference"].get<double>()));
  CHECK(spec["data"]["values"][0]["reference"].is_null());  // insufficient: nothing to judge against
  bool rings_cannot_tell = false;
  for (const auto& layer : spec.at("layer"))
    if (layer.contains("transform") && layer["transform"][0]["filter"] == "datum.verdict === 'cannot tell'")
      rings_cannot_tell = layer["mark"]["filled"] == false;
  CHECK(rings_cannot_tell);
  CHECK(trend_chart_file_name("a/b c") == "trend_a_b_c.vl.json");
}

TEST_CASE("trend: a step over several nights is a change point with its commit range") {
  TempDir dir("ftb_history");
  HistoryStore store(dir.path() + "/h.db", HistoryStore::Open::create);
  std::mt19937_64 rng(12);
  for (int k = 0; k < 12; ++k)
    store.add(fake_report_json(run_at(k, night(rng, k >= 8 ? 0.2 : 0, 5, 0.02))), "r.json");
  const auto points = trends(store, {"baseline"}, Metric::train_samples_per_s, TrendOptions{}).at(0).points;
  CHECK(points[8].change_point);
  CHECK(points[8].step == doctest::Approx(-0.2).epsilon(0.1));
  CHECK(points[8].verdict.outcome == stats::Verdict::worse);
  for (int k = 9; k < 12; ++k) {  // judged against the new level: no call (1 to 3 nights of it: cannot tell)
    CHECK(points[k].verdict.outcome != stats::Verdict::worse);
    CHECK(points[k].verdict.outcome != stats::Verdict::better);
    CHECK(points[k].verdict.level_runs == k - 8);
  }
  const std::string md = trend_markdown("baseline", Metric::train_samples_per_s, points);
  CHECK(md.find("between c7 (" + night_time(7) + ") and c8 (" + night_time(8) + ")") != std::string::npos);
  const json spec = trend_chart("baseline", Metric::train_samples_per_s, points, TrendOptions{});
  CHECK(spec["data"]["values"][8]["change_point"] == true);
}

TEST_CASE("trend: history show's marks are regress's verdicts, night by night, over 10-scenario histories") {
  // Seeded, three machines (three histories in one store): 10 scenarios, 15
  // nights; each night's luck (2 %, its own per scenario) shared by its 5
  // repeats (3 % each); on the first machine s3 runs 15 % slower from night
  // 10 on (a real regression). A nightly job's order: regress judges night k
  // as tonight against the store, then night k is added. The trend over the
  // whole store must then give every run of every scenario the row regress
  // gave it: the same outcome, change and p.
  //
  // Against the old trend.cpp (each series judged alone: judge_series with
  // one row, no pooling across the report's scenarios, no Holm) this test
  // failed: every judged night's p differed (120 of 120 on the first
  // machine). `alone` below recomputes that old rule to show the test can
  // tell it from regress's: its p differs on nearly every judged night
  // (358 of 360; a series judged on its own spread comes out alike), and
  // here one outcome too (sim-2, 09:00, s5: regressed alone at p 0.0040,
  // same in regress at 0.0053, Holm over the report's 10 scenarios).
  TempDir dir("ftb_history");
  const std::string db = dir.path() + "/h.db";
  HistoryStore store(db, HistoryStore::Open::create);
  std::mt19937_64 rng(20261226);
  std::normal_distribution<double> luck(0, 0.02);
  constexpr int kMachines = 3, kScenarios = 10, kNights = 15;
  auto name = [](int s) { return "s" + std::to_string(s); };
  std::vector<std::string> scenarios;
  for (int s = 0; s < kScenarios; ++s) scenarios.push_back(name(s));
  std::map<std::string, MetricVerdict> by_regress;  // host, night time, scenario -> regress's row
  auto at = [](const std::string& machine, const std::string& time, const std::string& scenario) {
    return machine + "/" + time + "/" + scenario;
  };
  for (int h = 0; h < kMachines; ++h) {
    const std::string host = "sim-" + std::to_string(h);
    for (int k = 0; k < kNights; ++k) {
      FakeRun f = run_at(k, {}, host);
      f.throughput.clear();
      for (int s = 0; s < kScenarios; ++s) {
        const double night_luck = std::exp(luck(rng));
        auto v = night(rng, h == 0 && s == 3 && k >= 10 ? 0.15 : 0, 5, 0.03);
        for (auto& x : v) x *= night_luck;
        f.throughput[name(s)] = v;
      }
      const json tonight = fake_report_json(f);
      const RegressSummary r = regress_vs_history(store, db, tonight, "tonight.json", RegressOptions{});
      for (const auto& row : r.rows)
        if (row.metric == Metric::train_samples_per_s)
          by_regress[at(host + " | Test CPU", night_time(k), row.scenario)] = row;
      store.add(tonight, "night.json");
    }
  }
  CHECK(by_regress.at(at("sim-0 | Test CPU", night_time(10), "s3")).outcome == stats::Verdict::worse);

  auto same_number = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
  const auto shown = trends(store, scenarios, Metric::train_samples_per_s, TrendOptions{});
  REQUIRE(shown.size() == scenarios.size());
  int compared = 0, differ = 0, judged = 0, alone_p = 0, alone = 0;
  for (const auto& t : shown) {
    REQUIRE(t.points.size() == static_cast<size_t>(kMachines * kNights));
    const auto series = store.series(t.scenario);
    for (size_t i = 0; i < t.points.size(); ++i) {
      const MetricVerdict& got = t.points[i].verdict;
      const HistoryRun& run = t.points[i].run;
      const MetricVerdict& want = by_regress.at(at(run.machine, run.time, t.scenario));
      const bool same = got.outcome == want.outcome && same_number(got.p, want.p) &&
                        same_number(got.change, want.change) && got.level_runs == want.level_runs;
      if (!same)
        MESSAGE(run.machine << " " << run.time << " " << t.scenario << ": history show " << to_string(got.outcome)
                            << " p " << got.p << ", regress " << to_string(want.outcome) << " p " << want.p);
      ++compared;
      differ += !same;
      // The old rule: this series alone against its runs before it.
      auto window = store.window({run.machine, run.preset, run.config_hash}, t.scenario, 20, "", &run);
      if (window.empty()) continue;
      std::reverse(window.begin(), window.end());
      MetricVerdict old;
      old.metric = Metric::train_samples_per_s;
      std::vector<MetricVerdict*> rows = {&old};
      judge_series(rows, {window}, {series[i].repeats}, stats::NightlyRule{}, {nullptr});
      if (old.outcome != want.outcome)
        MESSAGE(run.machine << " " << run.time << " " << t.scenario << ": alone " << to_string(old.outcome)
                            << " p " << old.p << ", regress " << to_string(want.outcome) << " p " << want.p);
      judged += std::isfinite(want.p);
      alone_p += std::isfinite(want.p) && !same_number(old.p, want.p);
      alone += old.outcome != want.outcome;
    }
  }
  MESSAGE("history show vs regress: " << differ << " of " << compared << " scenario-nights differ; judged alone (the "
                                      "old history show) " << alone_p << " of " << judged << " p and " << alone
                                      << " outcomes would differ");
  CHECK(compared == kMachines * kNights * kScenarios);
  CHECK(differ == 0);
  CHECK(judged >= kMachines * (kNights - 3) * kScenarios);  // every night after the first 3
  CHECK(alone_p >= judged * 9 / 10);  // the old rule is told apart on nearly every judged night
}
