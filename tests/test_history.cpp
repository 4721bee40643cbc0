// The history store (keys, idempotent adds, transactions, concurrent
// writers, schema version), regress (history and baseline rules, bad input
// naming the file and what differs), the trend and its chart, and the
// calibration's noise estimate. The regress rule is proved by simulation
// through the store, as a nightly job would use it.
#include "core/base/errors.h"
#include "core/base/files.h"
#include "reports/analysis/history.h"
#include "reports/analysis/noise.h"
#include "reports/analysis/regress.h"
#include "reports/analysis/trend.h"
#include "reports/views/table.h"
#include "reports/views/trend_chart.h"
#include "tests/history_fixtures.h"

#include <doctest/doctest.h>
#include <sqlite3.h>

#include <cmath>
#include <limits>
#include <thread>

using nlohmann::json;
using namespace ftb;
using ftb::testing::FakeRun;
using ftb::testing::fake_report_json;
using ftb::testing::night;
using ftb::testing::night_time;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

FakeRun run_at(int k, std::vector<double> throughput, const std::string& host = "sim") {
  FakeRun f;
  f.host = host;
  f.timestamp = night_time(k);
  f.commit = "c" + std::to_string(k);
  f.throughput["baseline"] = std::move(throughput);
  return f;
}

const MetricVerdict& row(const RegressSummary& s, const std::string& scenario, Metric m) {
  for (const auto& r : s.rows)
    if (r.scenario == scenario && r.metric == m) return r;
  FAIL("no row " << scenario << " " << to_string(m));
  return s.rows.front();
}

}  // namespace

TEST_CASE("history keys: machine from host, CPU and GPUs, config hash ignores output paths and repeats") {
  json env = {{"host", "box"}, {"cpu", {{"model", "EPYC"}}}, {"gpus", json::array()}};
  CHECK(machine_key(env) == "box | EPYC");
  env["gpus"] = json::array({{{"name", "NVIDIA H200"}}, {{"name", "NVIDIA H200"}}, {{"name", "NVIDIA A100"}}});
  CHECK(machine_key(env) == "box | EPYC | 2x NVIDIA H200, NVIDIA A100");
  CHECK(error_of([&] { machine_key(json{{"cpu", {{"model", "x"}}}}); }).find("environment.host") != std::string::npos);

  const json a = {{"preset", "smoke"}, {"lr", 0.001}, {"out", "out/1"}, {"repeats", 3}, {"scenarios", {"baseline"}},
                  {"workload", {{"prep_time_s", 0.12}, {"vocab_size", 1559}}}};
  json b = a;
  b["out"] = "elsewhere";
  b["repeats"] = 5;
  b["scenarios"] = json::array();
  b["workload"]["prep_time_s"] = 0.5;
  CHECK(config_hash(a) == config_hash(b));
  b["lr"] = 0.002;
  CHECK(config_hash(a) != config_hash(b));
  CHECK(config_differences(a, b) == std::vector<std::string>{"lr: 0.001 -> 0.002"});
  b = a;
  b["workload"]["vocab_size"] = 2000;
  CHECK(config_differences(a, b) == std::vector<std::string>{"workload.vocab_size: 1559 -> 2000"});
}

TEST_CASE("history add: one row per repeat, the whole report kept, the same report twice adds nothing") {
  TempDir dir("ftb_history");
  const std::string db = dir.path() + "/h.db";
  HistoryStore store(db, HistoryStore::Open::create);
  CHECK(store.schema_version() == kHistorySchemaVersion);
  FakeRun f = run_at(0, {100, 101, 99});
  f.throughput["amp"] = {150, 151};
  const json j = fake_report_json(f);
  const auto first = store.add(j, "r0.json");
  CHECK(first.added);
  CHECK(first.repeats == 5);
  CHECK(first.run.machine == "sim | Test CPU");
  CHECK(first.run.git_commit == "c0");
  CHECK(first.run.time == night_time(0));
  // The same content again (even from another file name): idempotent.
  const auto again = store.add(json::parse(j.dump()), "copy.json");
  CHECK_FALSE(again.added);
  CHECK(again.run.id == first.run.id);
  CHECK(again.run.source == "r0.json");
  CHECK(store.run_count() == 1);
  CHECK(store.scenarios() == std::vector<std::string>{"amp", "baseline"});
  CHECK(store.report_json(first.run.id) == j);
  const auto series = store.series("baseline");
  REQUIRE(series.size() == 1);
  REQUIRE(series[0].repeats.size() == 3);
  CHECK(series[0].repeats[2].train_samples_per_s == 99);
  CHECK(series[0].repeats[0].wall_time_s == doctest::Approx(120));
  CHECK(series[0].repeats[0].peak_bytes == (100 << 20));
  // The --machine override files the run under another key.
  const auto other = store.add(fake_report_json(run_at(1, {100})), "r1.json", "ci-runner");
  CHECK(other.run.machine == "ci-runner");
  // Reopened as an existing store, everything is there.
  HistoryStore again_store(db, HistoryStore::Open::existing);
  CHECK(again_store.run_count() == 2);
}

TEST_CASE("history add: a bad report adds nothing (NaN time named, a failed transaction rolled back)") {
  TempDir dir("ftb_history");
  HistoryStore store(dir.path() + "/h.db", HistoryStore::Open::create);
  json nan_time = fake_report_json(run_at(0, {100, 101}));
  nan_time["results"][0]["samples"][1]["wall_time_s"] = nullptr;  // NaN is written as null
  CHECK(error_of([&] { store.add(nan_time, "nan.json"); }) ==
        "nan.json: results[0].samples[1].wall_time_s: is NaN (null in the file); times, throughputs and byte counts "
        "must be finite and >= 0");
  json negative = fake_report_json(run_at(0, {100, 101}));
  negative["results"][0]["samples"][0]["step_ms_median"] = -3.0;
  CHECK(error_of([&] { store.add(negative, "neg.json"); }).find("results[0].samples[0].step_ms_median: is -3") !=
        std::string::npos);
  // Two results of one scenario: the second's rows collide with the first's
  // inside the transaction, after the run row was inserted; all of it goes.
  json twice = fake_report_json(run_at(0, {100, 101}));
  twice["results"].push_back(twice["results"][0]);
  CHECK(error_of([&] { store.add(twice, "twice.json"); }).find("twice.json: scenario 'baseline' appears twice") == 0);
  CHECK(store.run_count() == 0);
  CHECK(store.scenarios().empty());
  json no_preset = fake_report_json(run_at(0, {100}));
  no_preset["config"].erase("preset");
  CHECK(error_of([&] { store.add(no_preset, "np.json"); }).find("np.json: missing key 'config.preset'") == 0);
}

TEST_CASE("history store: not a database, missing, or from a newer ftbench is an error naming the file") {
  TempDir dir("ftb_history");
  CHECK(error_of([&] { HistoryStore(dir.path() + "/none.db", HistoryStore::Open::existing); })
            .find("none.db: no such history file") != std::string::npos);
  write_file_atomic(dir.path() + "/report.json", std::string(4096, 'x'));
  CHECK(error_of([&] { HistoryStore(dir.path() + "/report.json", HistoryStore::Open::existing); })
            .find("report.json: ") == dir.path().size() + 1);
  const std::string db = dir.path() + "/h.db";
  { HistoryStore store(db, HistoryStore::Open::create); }
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &raw) == SQLITE_OK);
  REQUIRE(sqlite3_exec(raw, "UPDATE schema_version SET version = 99", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(raw);
  CHECK(error_of([&] { HistoryStore(db, HistoryStore::Open::existing); })
            .find("history schema version 99 is newer") != std::string::npos);
}

TEST_CASE("history add: two writers at once (two connections, two threads) lose nothing") {
  TempDir dir("ftb_history");
  const std::string db = dir.path() + "/h.db";
  constexpr int kEach = 25;
  auto writer = [&](int first) {
    HistoryStore store(db, HistoryStore::Open::create);  // both may create the schema at once
    for (int k = first; k < first + kEach; ++k) store.add(fake_report_json(run_at(k, {100.0 + k})), "r.json");
  };
  std::thread a(writer, 0), b(writer, 1000);
  a.join();
  b.join();
  HistoryStore store(db, HistoryStore::Open::existing);
  CHECK(store.run_count() == 2 * kEach);
  CHECK(store.series("baseline").size() == 2 * kEach);
}

TEST_CASE("regress vs history: the window is the machine's same preset and config, newest first") {
  TempDir dir("ftb_history");
  const std::string db = dir.path() + "/h.db";
  HistoryStore store(db, HistoryStore::Open::create);
  std::mt19937_64 rng(7);
  for (int k = 0; k < 25; ++k) store.add(fake_report_json(run_at(k, night(rng, 0, 5, 0.02))), "r.json");
  store.add(fake_report_json(run_at(30, {50, 50, 50}, "other-host")), "other.json");
  const RunKey key = run_key(testing::fake_report(run_at(0, {1})), "x");
  const auto w = store.window(key, "baseline", 20, "");
  REQUIRE(w.size() == 20);
  CHECK(w.front().run.time == night_time(24));
  CHECK(w.back().run.time == night_time(5));

  RegressOptions o;
  // Tonight 15 % slower: regressed, exit-worthy.
  const json slow = fake_report_json(run_at(40, {85, 86, 84, 85.5, 84.5}));
  const RegressSummary s = regress_vs_history(store, db, slow, "tonight.json", o);
  const auto& t = row(s, "baseline", Metric::train_samples_per_s);
  CHECK(t.outcome == Outcome::regressed);
  CHECK(t.gating);
  CHECK(t.reference_runs == 20);
  CHECK(t.reference_n == 100);
  CHECK(t.change == doctest::Approx(-0.15).epsilon(0.05));
  CHECK(s.regressed());
  // Accuracy and memory did not move and are not gating by default.
  CHECK(row(s, "baseline", Metric::test_acc).outcome == Outcome::same);
  CHECK_FALSE(row(s, "baseline", Metric::peak_bytes).gating);
  const std::string md = regress_markdown(s);
  CHECK(md.find("**REGRESSED**") != std::string::npos);
  CHECK(md.find("| baseline | train_samples_per_s ") != std::string::npos);
  CHECK(md.find(" samples/s (20 runs, n=100) | ") != std::string::npos);
  CHECK(md.find("**Result: REGRESSED** (baseline train_samples_per_s)") != std::string::npos);

  // Unchanged: same. Added before regress (a nightly job's order): excluded from its own window.
  const json same = fake_report_json(run_at(41, night(rng, 0, 5, 0.02)));
  store.add(same, "same.json");
  const RegressSummary s2 = regress_vs_history(store, db, same, "same.json", o);
  CHECK(row(s2, "baseline", Metric::train_samples_per_s).outcome == Outcome::same);
  CHECK(row(s2, "baseline", Metric::train_samples_per_s).reference_runs == 20);
  CHECK_FALSE(s2.regressed());
  CHECK(regress_markdown(s2).find("**Result: no regression.**") != std::string::npos);

  // Accuracy drop beyond the smoke preset's 2 points, gating when asked.
  FakeRun dumb = run_at(42, night(rng, 0, 5, 0.02));
  dumb.test_acc = 0.80;
  o.fail_on = {Gate::throughput, Gate::accuracy, Gate::memory};
  const RegressSummary s3 = regress_vs_history(store, db, fake_report_json(dumb), "dumb.json", o);
  CHECK(row(s3, "baseline", Metric::test_acc).outcome == Outcome::regressed);
  CHECK(s3.regressed());
  // Memory growth beyond the 3 % minimum effect.
  FakeRun fat = run_at(43, night(rng, 0, 5, 0.02));
  fat.peak_bytes = 110 << 20;
  const RegressSummary s4 = regress_vs_history(store, db, fake_report_json(fat), "fat.json", o);
  CHECK(row(s4, "baseline", Metric::peak_bytes).outcome == Outcome::regressed);
  CHECK(row(s4, "baseline", Metric::peak_bytes).change == doctest::Approx(0.1));
}

TEST_CASE("regress vs history: an empty window is insufficient history, another preset or config is named") {
  TempDir dir("ftb_history");
  const std::string db = dir.path() + "/h.db";
  HistoryStore store(db, HistoryStore::Open::create);
  const json tonight = fake_report_json(run_at(10, {90, 91, 89, 90, 90}));
  RegressOptions o;
  RegressSummary s = regress_vs_history(store, db, tonight, "tonight.json", o);
  CHECK(row(s, "baseline", Metric::train_samples_per_s).outcome == Outcome::insufficient);
  CHECK_FALSE(s.regressed());
  CHECK(regress_markdown(s).find("insufficient history") != std::string::npos);
  // Two runs: still fewer than min_runs (3).
  store.add(fake_report_json(run_at(0, {100, 101, 99, 100, 100})), "r0.json");
  store.add(fake_report_json(run_at(1, {100, 101, 99, 100, 100})), "r1.json");
  s = regress_vs_history(store, db, tonight, "tonight.json", o);
  CHECK(row(s, "baseline", Metric::train_samples_per_s).outcome == Outcome::insufficient);
  CHECK(row(s, "baseline", Metric::train_samples_per_s).note.find("2 night(s) of this series, 3 needed") !=
        std::string::npos);

  FakeRun paper = run_at(11, {90});
  paper.preset = "paper";
  CHECK(error_of([&] { regress_vs_history(store, db, fake_report_json(paper), "paper.json", o); })
            .find("paper.json: preset 'paper' differs from the history's (smoke) for machine 'sim | Test CPU'") == 0);
  FakeRun lr = run_at(11, {90});
  lr.lr = 0.01;
  const std::string e = error_of([&] { regress_vs_history(store, db, fake_report_json(lr), "lr.json", o); });
  CHECK(e.find("lr.json: config differs from the latest 'smoke' run") == 0);
  CHECK(e.find("lr: 0.001 -> 0.01") != std::string::npos);
  // Another machine with no history at all: insufficient, not an error.
  s = regress_vs_history(store, db, fake_report_json(run_at(12, {90}, "new-box")), "new.json", o);
  CHECK(row(s, "baseline", Metric::train_samples_per_s).outcome == Outcome::insufficient);
}

TEST_CASE("regress vs baseline runs: one run a side cannot tell, several runs or a noise file can") {
  RegressOptions o;
  const json base5 = fake_report_json(run_at(0, {100, 101, 99, 100.5, 99.5}));
  const json slow5 = fake_report_json(run_at(1, {80, 81, 79, 80.5, 79.5}));
  // One baseline run: its repeats share one process's luck; no verdict however clear they look.
  RegressSummary s = regress_vs_baseline({{base5, "base.json"}}, slow5, "now.json", o);
  CHECK(row(s, "baseline", Metric::train_samples_per_s).outcome == Outcome::insufficient);
  CHECK(row(s, "baseline", Metric::train_samples_per_s).note.find("cannot tell from one run a side") == 0);
  CHECK(regress_markdown(s).find("| cannot tell |") != std::string::npos);
  CHECK_FALSE(s.regressed());
  // Three baseline runs (1 % apart): a 20 % slowdown is a regression, a 1 % one is not.
  const std::vector<NamedReport> three = {{fake_report_json(run_at(0, {100, 101, 99})), "b1.json"},
                                          {fake_report_json(run_at(1, {101, 102, 100})), "b2.json"},
                                          {fake_report_json(run_at(2, {99, 100, 98})), "b3.json"}};
  s = regress_vs_baseline(three, slow5, "now.json", o);
  const auto& t = row(s, "baseline", Metric::train_samples_per_s);
  CHECK(t.outcome == Outcome::regressed);
  CHECK(t.reference_runs == 3);
  CHECK(t.df == 2);
  CHECK(t.p < 0.005);
  CHECK(s.regressed());
  CHECK(s.reference == "baseline runs b1.json, b2.json, b3.json");
  s = regress_vs_baseline(three, fake_report_json(run_at(3, {99, 100, 98})), "now.json", o);
  CHECK(row(s, "baseline", Metric::train_samples_per_s).outcome == Outcome::same);
  // With a calibrated run-to-run noise (2 %), one run each can be judged.
  NoiseFile noise;
  noise.key = run_key(testing::fake_report(run_at(0, {1})), "x");
  NoiseEstimate e;
  e.run_cv = 0.02;
  e.run_df = 9;
  noise.scenarios["baseline"][Metric::train_samples_per_s] = e;
  o.noise = &noise;
  s = regress_vs_baseline({{fake_report_json(run_at(0, {100})), "base.json"}}, fake_report_json(run_at(1, {85})),
                          "now.json", o);
  CHECK(row(s, "baseline", Metric::train_samples_per_s).outcome == Outcome::regressed);
  CHECK(row(s, "baseline", Metric::train_samples_per_s).note == "t-test over runs, noise from noise file");
  s = regress_vs_baseline({{fake_report_json(run_at(0, {100})), "base.json"}}, fake_report_json(run_at(1, {99})),
                          "now.json", o);
  CHECK(row(s, "baseline", Metric::train_samples_per_s).outcome == Outcome::same);
  // A noise file of another config is refused, naming it.
  noise.key.config_hash = "0000000000000000";
  o.noise_path = "noise.json";
  CHECK(error_of([&] { regress_vs_baseline({{base5, "base.json"}}, slow5, "now.json", o); }).find("noise.json: ") == 0);
  o.noise = nullptr;
  // Another preset or config than a baseline's.
  FakeRun paper = run_at(1, {80});
  paper.preset = "paper";
  CHECK(error_of([&] { regress_vs_baseline({{base5, "base.json"}}, fake_report_json(paper), "now.json", o); }) ==
        "now.json: preset 'paper' differs from the baseline's 'smoke' (base.json)");
}

TEST_CASE("regress through the history store: a 15 % slowdown caught in >= 90 of 100 trials, A/A alarms <= 2") {
  // Seeded synthetic histories with two levels of noise: each night's luck
  // (2 %) shared by its 5 repeats (3 % each), 8 nights a trial, each night a
  // report added to a real store (one SQLite file, one machine key per
  // trial), tonight judged by regress_vs_history as `ftbench regress` does.
  // (test_nightly.cpp holds judge_nights itself to the rates over thousands
  // of trials and ten scenarios; this checks the path through the store.)
  TempDir dir("ftb_history_sim");
  const std::string db = dir.path() + "/sim.db";
  HistoryStore store(db, HistoryStore::Open::create);
  std::mt19937_64 rng(20261201);
  std::normal_distribution<double> luck(0, 0.02);
  auto two_level = [&](double slowdown) {
    const double night_luck = std::exp(luck(rng));
    auto v = night(rng, slowdown, 5, 0.03);
    for (auto& x : v) x *= night_luck;
    return v;
  };
  constexpr int kTrials = 100;
  int caught = 0, false_alarms = 0;
  RegressOptions o;
  for (int trial = 0; trial < kTrials; ++trial) {
    const std::string host = "sim-" + std::to_string(trial);
    for (int k = 0; k < 8; ++k) store.add(fake_report_json(run_at(k, two_level(0), host)), "night.json");
    const json slow = fake_report_json(run_at(100, two_level(0.15), host));
    const json same = fake_report_json(run_at(101, two_level(0), host));
    const auto s = regress_vs_history(store, db, slow, "slow.json", o);
    const auto a = regress_vs_history(store, db, same, "same.json", o);
    REQUIRE(row(s, "baseline", Metric::train_samples_per_s).reference_n == 40);
    caught += s.regressed();
    false_alarms += a.regressed();
  }
  MESSAGE("through the store: caught " << caught << "/" << kTrials << ", A/A false alarms " << false_alarms << "/"
                                       << kTrials);
  CHECK(caught >= 90);
  CHECK(false_alarms <= 2);
}

TEST_CASE("regress vs history: a step the history already shows is named once with its commits, not failed again") {
  TempDir dir("ftb_history");
  const std::string db = dir.path() + "/h.db";
  HistoryStore store(db, HistoryStore::Open::create);
  std::mt19937_64 rng(31);
  for (int k = 0; k < 8; ++k) store.add(fake_report_json(run_at(k, night(rng, 0, 5, 0.01))), "r.json");
  // The first slow night: a regression (and the team accepts it).
  const json first = fake_report_json(run_at(8, night(rng, 0.15, 5, 0.01)));
  CHECK(regress_vs_history(store, db, first, "n8.json", RegressOptions{}).regressed());
  store.add(first, "n8.json");
  // The nights after it: judged against the new level, the step named.
  for (int k = 9; k < 12; ++k) {
    const json tonight = fake_report_json(run_at(k, night(rng, 0.15, 5, 0.01)));
    const auto s = regress_vs_history(store, db, tonight, "tonight.json", RegressOptions{});
    CHECK_FALSE(s.regressed());
    const auto& t = row(s, "baseline", Metric::train_samples_per_s);
    CHECK(t.level_runs == k - 8);
    REQUIRE(t.steps.size() == 1);
    CHECK(t.steps[0].rfind("-1", 0) == 0);  // about -15 %
    CHECK(t.steps[0].find("between c7 (" + night_time(7) + ") and c8 (" + night_time(8) + ")") !=
          std::string::npos);
    CHECK(regress_markdown(s).find("the history shows a level change -1") != std::string::npos);
    store.add(tonight, "tonight.json");
  }
}

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
  const NoiseFile n = estimate_noise(runs, key, rule, 20);
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
  for (int k = 0; k < 8; ++k) {
    const double l = std::exp(luck(rng));
    auto base = night(rng, 0, 5, 0.01);
    auto fast = night(rng, 0, 5, 0.01);
    const double f = 1.5 * std::exp(own(rng));
    for (auto& x : base) x *= l;
    for (auto& x : fast) x *= l * f;
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
  CHECK(fast->speedup_cv < 0.5 * base->run_cv);
  CHECK(fast->speedup_cv > 0.003);
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
