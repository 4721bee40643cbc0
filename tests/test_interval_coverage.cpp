// Every interval ftbench prints covers what its label states, under the
// noise real machines have: two levels (each run its own random level, the
// run's luck, then per-repeat noise around it), log-normal. Seeded; each kind
// is simulated over enough trials that the binomial sd of the measured rate
// is below one point, and held to within 2 points of its label. The rates
// print with `-s` (doctest MESSAGE); docs/compare.md quotes the compare ones.
//
// Also issue 26's proof for compare: no true difference, sides whose
// run-to-run noise differs (2 runs at 8 % against 6 at 1.5 %; 3 against 3 at
// 5 % and 1 %): false faster/slower verdicts on at most 5 % of rows, and the
// "95 % over runs" interval covering at least 93 %.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "reports/analysis/intervals.h"
#include "reports/analysis/noise.h"
#include "reports/analysis/power.h"
#include "reports/analysis/statistics.h"
#include "reports/analysis/two_level.h"
#include "tests/history_fixtures.h"

using namespace ftb;

namespace {

// One run's repeats: exp(level + within z), n of them.
std::vector<double> repeats(std::mt19937_64& rng, double level, double within, int n) {
  std::normal_distribution<double> z;
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(std::exp(level + within * z(rng)));
  return out;
}

double normal(std::mt19937_64& rng, double sd) { return std::normal_distribution<double>(0, sd)(rng); }

bool covers(const stats::Interval& i, double truth) { return i.low <= truth && truth <= i.high; }

std::string percent(double rate) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100 * rate);
  return buf;
}

// The measured rate against the label, within 2 points; the binomial sd of
// the rate must be under one point for that to mean anything.
void check_label(const std::string& what, int covered, int trials, double stated) {
  const double rate = static_cast<double>(covered) / trials;
  MESSAGE(what << ": covered " << percent(rate) << " of " << trials << ", label " << percent(stated));
  REQUIRE(std::sqrt(stated * (1 - stated) / trials) < 0.01);
  CHECK(std::abs(rate - stated) <= 0.02);
}

}  // namespace

TEST_CASE("coverage: a run's median interval covers that run's median as often as its label says") {
  // The label is for the run's own median (what its repeats scatter around),
  // not for a second run: the run's luck (4 % here) is outside it.
  std::mt19937_64 rng(2601);
  for (int n : {3, 5, 9, 20}) {
    const int trials = 4000;
    int covered = 0;
    double stated = 0;
    for (int t = 0; t < trials; ++t) {
      const double level = normal(rng, 0.04);
      const auto i = stats::median_interval(repeats(rng, level, 0.03, n));
      stated = i.coverage;
      covered += covers(i, std::exp(level));
    }
    check_label("median of " + std::to_string(n) + " repeats", covered, trials, stated);
  }
}

TEST_CASE("coverage: speed-up intervals within a run, paired by round and unpaired, cover as labelled") {
  std::mt19937_64 rng(2602);
  const int trials = 4000;
  // Paired: round i runs both rows back to back and both share its drift (3 %).
  for (int n : {3, 5, 8}) {
    int covered = 0;
    double stated = 0;
    for (int t = 0; t < trials; ++t) {
      const double row = std::log(1.3) + normal(rng, 0.04), base = normal(rng, 0.04);
      std::vector<double> num, den;
      for (int i = 0; i < n; ++i) {
        const double drift = normal(rng, 0.03);
        num.push_back(std::exp(row + drift + normal(rng, 0.02)));
        den.push_back(std::exp(base + drift + normal(rng, 0.02)));
      }
      const auto r = stats::ratio_interval(num, den, /*paired=*/true);
      stated = r.coverage;
      covered += covers(r, std::exp(row - base));
    }
    check_label("paired ratio, " + std::to_string(n) + " rounds", covered, trials, stated);
  }
  // Unpaired: rows one after the other, each its repeats around its level (the
  // same spread: a speed-up is a factor); the truth is this run's ratio of levels.
  for (auto [n, m] : {std::pair{3, 3}, std::pair{5, 5}, std::pair{3, 5}, std::pair{8, 8}}) {
    int covered = 0;
    double stated = 0;
    for (int t = 0; t < trials; ++t) {
      const double row = std::log(1.3) + normal(rng, 0.04), base = normal(rng, 0.04);
      const auto r = stats::ratio_interval(repeats(rng, row, 0.03, n), repeats(rng, base, 0.03, m), /*paired=*/false);
      stated = r.coverage;
      covered += covers(r, std::exp(row - base));
    }
    check_label("unpaired ratio, " + std::to_string(n) + " x " + std::to_string(m) + " repeats", covered, trials,
                stated);
  }
}

TEST_CASE("coverage: an r2r speed-up interval covers the true speed-up 95 % of the time") {
  // K A/A runs calibrate the speed-up's run-to-run sd (estimate_noise); a
  // fresh run's speed-up then carries it (with_run_noise). Both rows share the
  // run's luck (5 %); the row has its own run-to-run noise too (2 %).
  std::mt19937_64 rng(2603);
  const double speedup = 1.5;
  auto run = [&](int k) {
    const double luck = normal(rng, 0.05), own = normal(rng, 0.02);
    testing::FakeRun f = testing::run_at(k, repeats(rng, std::log(100.0) + luck, 0.02, 5));
    f.throughput["fast"] = repeats(rng, std::log(100.0 * speedup) + luck + own, 0.02, 5);
    return testing::fake_report(f);
  };
  for (int calibration_runs : {4, 8}) {
    const int trials = 2000;
    int covered = 0;
    for (int t = 0; t < trials; ++t) {
      std::vector<Report> runs;
      for (int k = 0; k < calibration_runs; ++k) runs.push_back(run(k));
      const NoiseFile noise = estimate_noise(runs, run_key(runs[0], "x"), stats::NightlyRule{}, /*window=*/20);
      const Report fresh = run(calibration_runs);
      const auto s = speedups_vs(fresh, *find_result(fresh, "fast"), "baseline");
      REQUIRE(s);
      const Speedups r2r = with_run_noise(*s, "fast", noise);
      REQUIRE(r2r.end_to_end.method == stats::IntervalMethod::t_run_noise);
      covered += covers(r2r.end_to_end, speedup);
    }
    check_label("r2r speed-up, " + std::to_string(calibration_runs) + " calibration runs", covered, trials, 0.95);
  }
}

namespace {

// A comparison's setting: each side's runs and the sd of a run's level (the
// run's luck plus its 5 repeats' noise around it, about a fifth of its variance).
struct Sides {
  int runs_a, runs_b;
  double sd_a, sd_b;
  std::string name() const {
    char buf[96];
    std::snprintf(buf, sizeof buf, "A %d runs at %.1f %% vs B %d runs at %.1f %%", runs_a, 100 * sd_a, runs_b,
                  100 * sd_b);
    return buf;
  }
};

// A run's level (stats::run_level: the median of its log repeats) whose sd is about `sd`.
double simulated_level(std::mt19937_64& rng, double sd) {
  const double within = sd * 0.8, between = sd * std::sqrt(1 - 0.8 * 0.8 * stats::median_variance_factor(5) / 5);
  return stats::run_level(repeats(rng, normal(rng, between), within, 5));
}

struct CompareRates {
  int rows = 0, covered = 0, false_verdicts = 0, comparisons = 0, comparisons_flagged = 0;
};

// No true difference: every row of every comparison is an A/A row. Each
// comparison has `rows` rows (scenarios x metrics) judged together (Holm).
CompareRates simulate_compare(const Sides& s, int comparisons, int rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  CompareRates r;
  for (int c = 0; c < comparisons; ++c) {
    std::vector<stats::LevelDifference> diffs;
    for (int i = 0; i < rows; ++i) {
      std::vector<double> a, b;
      for (int k = 0; k < s.runs_a; ++k) a.push_back(simulated_level(rng, s.sd_a));
      for (int k = 0; k < s.runs_b; ++k) b.push_back(simulated_level(rng, s.sd_b));
      diffs.push_back(stats::compare_levels(a, b, std::nullopt, 0.95, stats::UnmeasuredSide::cannot_tell));
      r.covered += diffs.back().low <= 0 && 0 <= diffs.back().high;
    }
    bool flagged = false;
    for (const auto& v : stats::run_verdicts(diffs, 0.05, 0.02)) {
      const bool wrong = v.verdict == stats::Verdict::better || v.verdict == stats::Verdict::worse;
      r.false_verdicts += wrong;
      flagged = flagged || wrong;
    }
    r.rows += rows;
    r.comparisons_flagged += flagged;
    ++r.comparisons;
  }
  return r;
}

}  // namespace

TEST_CASE("coverage: compare's Welch interval over runs covers 95 %, and A/A rows rarely get a verdict") {
  // The settings of issue 26 (pooling the two sides' variances gave a verdict
  // in 35 % and 8.8 % of rows, coverage 65 % in the first), sides alike, and
  // a noisy side of three runs against many quiet ones (Welch's hardest case
  // above two runs: issue 36's 3 runs at 8 % against 6 at 1.5 %).
  //
  // Issue 36 (b): Holm's 0.05 is the rate compare states for a whole
  // comparison. Before, each row's p took Satterthwaite's df, and a noisy
  // side of three runs gave a false verdict in 6.4 % (3 x 3) and 7.2 %
  // (3 x 10) of 4-row comparisons; at Hsu's df (two_level.h, test_df) each
  // row's test is conservative, and here the one-sided 95 % Clopper-Pearson
  // bound of the whole-comparison rate, over 4000 comparisons a setting,
  // stays at or under 5 %.
  const Sides settings[] = {{2, 6, 0.08, 0.015}, {3, 3, 0.05, 0.01}, {3, 3, 0.03, 0.03}, {6, 2, 0.015, 0.08},
                            {3, 10, 0.05, 0.01}, {5, 5, 0.04, 0.04}, {3, 6, 0.08, 0.015}};
  uint64_t seed = 2604;
  for (const auto& s : settings) {
    const CompareRates r = simulate_compare(s, /*comparisons=*/4000, /*rows=*/4, seed++);
    const double coverage = static_cast<double>(r.covered) / r.rows;
    const double false_rate = static_cast<double>(r.false_verdicts) / r.rows;
    const double whole = 1.0 * r.comparisons_flagged / r.comparisons;
    const double bound = stats::rate_upper_bound(r.comparisons_flagged, r.comparisons);
    MESSAGE(s.name() << ": interval covered " << percent(coverage) << " of " << r.rows << " rows; false verdicts "
                     << percent(false_rate) << " of rows, " << percent(whole) << " of " << r.comparisons
                     << " comparisons (" << 4 << " rows each; 95 % upper bound " << percent(bound) << ")");
    REQUIRE(std::sqrt(0.95 * 0.05 / r.rows) < 0.01);
    CHECK(whole <= 0.05);
    CHECK(bound <= 0.05);
    // Never 2 points under the label; a side of two runs is held to its one
    // df, which covers more than 95 % (two_level.h says so).
    CHECK(coverage >= 0.93);
    if (s.runs_a > 2 && s.runs_b > 2) CHECK(coverage <= 0.97);
    CHECK(false_rate <= 0.05);
  }
}

TEST_CASE("labels: a coverage below 95 % always carries its tag, and never prints as 95 %") {
  stats::Interval i;
  i.estimate = 1.2;
  i.low = 1.1;
  i.high = 1.3;
  i.n = 5;
  i.method = stats::IntervalMethod::order_statistics;
  auto tag = [&](double coverage) {
    i.coverage = coverage;
    return format_interval(i, "%.2f", "x");
  };
  CHECK(tag(0.95) == "1.20x [1.10, 1.30]");
  CHECK(tag(0.9525) == "1.20x [1.10, 1.30]");
  CHECK(tag(0.948) == "1.20x [1.10, 1.30; 94.8 %]");
  CHECK(tag(0.94999) == "1.20x [1.10, 1.30; 94.9 %]");
  CHECK(tag(0.9375) == "1.20x [1.10, 1.30; 94 %]");
  CHECK(tag(0.90) == "1.20x [1.10, 1.30; 90 %]");
  CHECK(tag(0.984) == "1.20x [1.10, 1.30; 98 %]");
}
