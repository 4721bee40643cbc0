// calibrate's noise estimate (reports/analysis/noise.h): within- and
// between-run noise of A/A runs, the rule's false alarms on them, a speed-up's
// run-to-run sd and the report's intervals that carry it.
#include "core/base/files.h"
#include "reports/analysis/noise.h"
#include "reports/analysis/two_level.h"
#include "reports/views/table.h"
#include "tests/history_fixtures.h"

#include <doctest/doctest.h>

#include <cmath>

using nlohmann::json;
using namespace ftb;
using namespace ftb::testing;

TEST_CASE("calibration: within- and between-run noise of A/A runs, the rule's false alarms on them") {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> luck(0, 0.03);
  std::vector<Report> runs;
  for (int k = 0; k < 8; ++k) {
    const double l = std::exp(luck(rng));
    auto v = night(rng, 0, 5, 0.02);
    for (auto& x : v) x *= l;
    runs.push_back(testing::fake_report(run_at(k, v)));
  }
  const RunKey key = run_key(runs[0], "x");
  const stats::NightlyRule rule;
  NoiseFile n = estimate_noise(runs, key, rule, 20);
  set_min_detectable_changes(n);
  const NoiseEstimate* e = find_noise(n, "baseline", Metric::train_samples_per_s);
  REQUIRE(e != nullptr);
  CHECK(e->runs == 8);
  CHECK(e->repeats == 40);
  CHECK(e->run_df == 7);
  CHECK(e->within_cv == doctest::Approx(0.02).epsilon(0.35));
  CHECK(e->between_cv == doctest::Approx(0.03).epsilon(0.5));
  CHECK(e->run_cv >= e->between_cv);
  CHECK(e->min_detectable_change >= rule.min_effect);
  CHECK(e->min_detectable_change < 0.3);
  const AaCheck aa = aa_check(runs, rule);
  CHECK(aa.regress_nights == 8);
  CHECK(aa.regress_alarms == 0);
  CHECK(aa.compare_pairs == 28);
  CHECK(aa.compare_verdicts <= 2);
  // Round trip through noise.json.
  TempDir dir("ftb_noise");
  write_file_atomic(dir.path() + "/noise.json", to_json(n).dump(2));
  const NoiseFile back = read_noise_file(dir.path() + "/noise.json");
  CHECK(back.key.config_hash == key.config_hash);
  CHECK(find_noise(back, "baseline", Metric::train_samples_per_s)->run_cv == e->run_cv);
  CHECK(find_noise(back, "baseline", Metric::train_samples_per_s)->between_cv == e->between_cv);
  // A version 1 file still reads: its robust CV of run medians is the run-to-run noise.
  write_file_atomic(dir.path() + "/v1.json", R"({"schema": "ftbench.noise/1", "machine": "m", "preset": "smoke",
    "config_hash": "h", "runs": 5, "window": 20, "rule": {"alpha": 0.005, "rank_alpha": 0.05, "min_effect": 0.03},
    "scenarios": {"baseline": {"train_samples_per_s": {"runs": 5, "repeats": 15, "run_medians": [1, 2, 3, 4, 5],
    "cv_run_medians": 0.04, "cv_repeats": 0.05, "noise_floor": 0.08, "min_detectable_change": 0.09}}}})");
  const NoiseFile v1 = read_noise_file(dir.path() + "/v1.json");
  CHECK(find_noise(v1, "baseline", Metric::train_samples_per_s)->run_cv == 0.04);
  CHECK(find_noise(v1, "baseline", Metric::train_samples_per_s)->run_df == 4);
  write_file_atomic(dir.path() + "/bad.json", R"({"schema": "ftbench.noise/2"})");
  CHECK(error_of([&] { read_noise_file(dir.path() + "/bad.json"); }).find("bad.json: missing key 'machine'") !=
        std::string::npos);
}

TEST_CASE("calibration: a speed-up's run-to-run sd is measured run by run, and a report's speed-ups can carry it") {
  // Two rows of one process share its luck (6 %): their ratio moves far less
  // between runs than either row does.
  std::mt19937_64 rng(11);
  std::normal_distribution<double> luck(0, 0.06), own(0, 0.01);
  std::vector<Report> runs;
  std::vector<double> log_speedups;  // by hand: log(median fast / median baseline) of each run
  for (int k = 0; k < 8; ++k) {
    const double l = std::exp(luck(rng));
    auto base = night(rng, 0, 5, 0.01);
    auto fast = night(rng, 0, 5, 0.01);
    const double f = 1.5 * std::exp(own(rng));
    for (auto& x : base) x *= l;
    for (auto& x : fast) x *= l * f;
    log_speedups.push_back(std::log(stats::median(fast) / stats::median(base)));
    FakeRun run = run_at(k, base);
    run.throughput["fast"] = fast;
    runs.push_back(testing::fake_report(run));
  }
  const NoiseFile n = estimate_noise(runs, run_key(runs[0], "x"), stats::NightlyRule{}, 20);
  const NoiseEstimate* base = find_noise(n, "baseline", Metric::train_samples_per_s);
  const NoiseEstimate* fast = find_noise(n, "fast", Metric::train_samples_per_s);
  REQUIRE(base != nullptr);
  REQUIRE(fast != nullptr);
  CHECK_FALSE(std::isfinite(base->speedup_cv));  // baseline has no speed-up against itself
  CHECK(fast->speedup_df == 7);
  // The sd over runs of the log speed-up, exactly (not of the log of a log level).
  CHECK(fast->speedup_cv == doctest::Approx(std::sqrt(stats::sample_variance(log_speedups))).epsilon(1e-9));
  CHECK(fast->speedup_cv < 0.5 * base->run_cv);
  // Through noise.json and a report's run_noise: the speed-up interval is t over the calibrated sd.
  Report report = runs[0];
  const ScenarioResult* row = find_result(report, "fast");
  const auto within = speedups_vs(report, *row, "baseline");
  REQUIRE(within);
  CHECK(within->end_to_end.method != stats::IntervalMethod::t_run_noise);
  report.run_noise = run_noise_json(noise_from_json(to_json(n), "noise.json"), "results/x/noise.json");
  const auto r2r = speedups_vs(report, *row, "baseline");
  REQUIRE(r2r);
  CHECK(r2r->end_to_end.method == stats::IntervalMethod::t_run_noise);
  CHECK(r2r->end_to_end.coverage == 0.95);
  CHECK(r2r->end_to_end.estimate == within->end_to_end.estimate);
  const double half = stats::t_quantile(0.975, 7) * fast->speedup_cv;
  CHECK(std::log(r2r->end_to_end.high / r2r->end_to_end.estimate) == doctest::Approx(half));
  CHECK(format_interval(r2r->end_to_end, "%.2f", "x").find("; r2r]") != std::string::npos);
  const std::string table = speedup_table_markdown(report);
  CHECK(table.find("; r2r]") != std::string::npos);
  CHECK(table.find("results/x/noise.json") != std::string::npos);
  // The report keeps the file it was given: read back, the same intervals.
  const Report back = report_from_json(report_to_json(report), "r.json");
  CHECK(back.run_noise.at("source") == "results/x/noise.json");
  CHECK(speedups_vs(back, *find_result(back, "fast"), "baseline")->end_to_end.high == r2r->end_to_end.high);
}
