// The trend (reports/analysis/trend.h) and its chart: each run judged against
// the runs before it, change points with their commit ranges.
#include "core/base/files.h"
#include "reports/analysis/history.h"
#include "reports/analysis/trend.h"
#include "reports/views/trend_chart.h"
#include "tests/history_fixtures.h"

#include <doctest/doctest.h>

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
  const auto points = trend(store.series("baseline"), Metric::train_samples_per_s, TrendOptions{});
  REQUIRE(points.size() == 9);
  CHECK(points[0].verdict.outcome == Outcome::insufficient);
  CHECK(points[2].verdict.outcome == Outcome::insufficient);  // 2 runs before it
  for (int k = 3; k < 8; ++k) CHECK(points[k].verdict.outcome == Outcome::same);
  CHECK(points[8].verdict.outcome == Outcome::regressed);
  CHECK(points[8].median.n == 5);
  CHECK(points[8].median.low < points[8].median.estimate);
  CHECK(points[8].median.coverage == doctest::Approx(0.9375));  // [min, max] of 5
  for (const auto& p : points) CHECK_FALSE(p.change_point);       // one slow night is no level yet
  const std::string md = trend_markdown("baseline", Metric::train_samples_per_s, points);
  CHECK(md.find("### baseline: train_samples_per_s") == 0);
  CHECK(md.find("| " + night_time(8) + " | c8     | sim \\| Test CPU |") != std::string::npos);
  CHECK(md.find("**regressed** (-2") != std::string::npos);

  const json spec = trend_chart("baseline", Metric::train_samples_per_s, points, 20);
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
  CHECK(trend_chart_file_name("a/b c") == "trend_a_b_c.vl.json");
}

TEST_CASE("trend: a step over several nights is a change point with its commit range") {
  std::vector<RunRepeats> series;
  std::mt19937_64 rng(12);
  for (int k = 0; k < 12; ++k) {
    RunRepeats r;
    r.run.time = night_time(k);
    r.run.git_commit = "c" + std::to_string(k);
    r.run.machine = "m";
    for (double v : night(rng, k >= 8 ? 0.2 : 0, 5, 0.02)) {
      RepeatSample x;
      x.train_samples_per_s = v;
      r.repeats.push_back(x);
    }
    series.push_back(r);
  }
  const auto points = trend(series, Metric::train_samples_per_s, TrendOptions{});
  CHECK(points[8].change_point);
  CHECK(points[8].step == doctest::Approx(-0.2).epsilon(0.1));
  CHECK(points[8].verdict.outcome == Outcome::regressed);
  for (int k = 9; k < 12; ++k) CHECK(points[k].verdict.outcome == Outcome::same);  // judged against the new level
  const std::string md = trend_markdown("baseline", Metric::train_samples_per_s, points);
  CHECK(md.find("between c7 (" + night_time(7) + ") and c8 (" + night_time(8) + ")") != std::string::npos);
  const json spec = trend_chart("baseline", Metric::train_samples_per_s, points, 20);
  CHECK(spec["data"]["values"][8]["change_point"] == true);
}
