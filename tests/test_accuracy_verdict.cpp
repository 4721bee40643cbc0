// The keeps-accuracy verdict over seeds (reports/analysis/accuracy_verdict.h),
// driven through judge_rows_accuracy as reports call it: seeded simulations
// where each seed's training luck moves a model's accuracy (sd 2 points, as
// results/accuracy-seeds-2026-12-07 measured 2.05 for the paired difference)
// and each example is right or wrong by its own draw.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "core/base/portable_random.h"
#include "reports/analysis/accuracy_verdict.h"

namespace {

// One seed's 600 hits at accuracy p (points / 100).
std::vector<bool> seed_hits(std::mt19937_64& rng, double p) {
  std::vector<bool> h(600);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = ftb::chance(rng, p);
  return h;
}

struct SeedTally {
  int lower = 0, same = 0, covered = 0, trials = 0;
};

// `trials` pairs of rows of `seeds` seeds each: A at 82 %, B at 82 % + shift
// points, each seed's accuracy moved by N(0, luck) points per row.
SeedTally simulate_seeds(uint64_t seed, int trials, int seeds, double shift, double luck) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> training(0, luck / 100);
  SeedTally t;
  for (int k = 0; k < trials; ++k) {
    ftb::ScenarioResult a, b;
    for (int s = 0; s < seeds; ++s) {
      ftb::RepeatSample x, y;
      x.test_correct = seed_hits(rng, 0.82 + training(rng));
      y.test_correct = seed_hits(rng, 0.82 + shift / 100 + training(rng));
      a.repeats.push_back(x);
      b.repeats.push_back(y);
    }
    const auto v = ftb::judge_rows_accuracy(a, b, /*by_seed=*/true, 1.0);
    REQUIRE(v.has_value());
    REQUIRE(v->basis == ftb::AccuracyBasis::seeds);
    t.lower += v->decision.verdict == ftb::stats::Verdict::worse;
    t.same += v->decision.verdict == ftb::stats::Verdict::same;
    t.covered += v->low <= shift && shift <= v->high;
    ++t.trials;
  }
  return t;
}

}  // namespace

TEST_CASE("keeps accuracy over seeds: A/A called lower at most 2.5 %, the interval covers 95 %") {
  for (const int seeds : {3, 5, 10}) {
    CAPTURE(seeds);
    const SeedTally t = simulate_seeds(4700 + static_cast<uint64_t>(seeds), 2000, seeds, 0.0, 2.0);
    const double lower = 1.0 * t.lower / t.trials, covered = 1.0 * t.covered / t.trials;
    MESSAGE(seeds << " seeds, A/A: called lower " << lower << ", interval covered 0 " << covered);
    CHECK(lower <= 0.025 + 3 * std::sqrt(0.025 * 0.975 / t.trials));
    CHECK(covered >= 0.95 - 3 * std::sqrt(0.95 * 0.05 / t.trials));
  }
}

TEST_CASE("keeps accuracy over seeds: a 3-point drop is called lower more often with more seeds") {
  const SeedTally few = simulate_seeds(47001, 2000, 3, -3.0, 2.0);
  const SeedTally many = simulate_seeds(47002, 2000, 10, -3.0, 2.0);
  const double p3 = 1.0 * few.lower / few.trials, p10 = 1.0 * many.lower / many.trials;
  MESSAGE("3 points lower, training luck sd 2 points: called lower with 3 seeds " << p3 << ", with 10 " << p10);
  CHECK(p10 > p3);
  CHECK(p10 > 0.5);
  CHECK(1.0 * many.covered / many.trials >= 0.95 - 3 * std::sqrt(0.95 * 0.05 / many.trials));
  CHECK(many.same == 0);  // a 3-point drop is never ruled inside +-1 point
}

TEST_CASE("keeps accuracy over seeds: a cannot tell names the seeds that would settle it (modelled)") {
  // Three seeds whose paired differences are -1, 0 and +1 points on 600
  // examples (6, 0 and 6 examples moved): mean 0, sd 1 point.
  auto hits = [](int right) {
    std::vector<bool> h(600, false);
    for (int i = 0; i < right; ++i) h[static_cast<std::size_t>(i)] = true;
    return h;
  };
  ftb::ScenarioResult a, b;
  for (const int moved : {-6, 0, 6}) {
    ftb::RepeatSample x, y;
    x.test_correct = hits(490);
    y.test_correct = hits(490 + moved);
    a.repeats.push_back(x);
    b.repeats.push_back(y);
  }
  const auto v = ftb::judge_rows_accuracy(a, b, true, 1.0);
  REQUIRE(v.has_value());
  CHECK(v->decision.verdict == ftb::stats::Verdict::cannot_tell);
  CHECK(v->seed_sd_points == doctest::Approx(1.0));
  // t(0.975, k - 1) / sqrt(k) <= ~1 point from k = 7 on.
  CHECK(v->seeds_to_settle >= 6);
  CHECK(v->seeds_to_settle <= 8);
  CHECK(ftb::explain(*v).find(std::to_string(v->seeds_to_settle) + " seeds in all would settle it") !=
        std::string::npos);
  CHECK(ftb::to_json(*v, "baseline").at("seeds_to_settle").at("modelled") == true);
}

TEST_CASE("keeps accuracy over seeds: rows that train the same models on every seed keep accuracy (yes), not cannot tell") {
  ftb::ScenarioResult a, b;
  for (const int right : {480, 500, 510}) {
    ftb::RepeatSample x;
    x.test_correct.assign(600, false);
    for (int i = 0; i < right; ++i) x.test_correct[static_cast<std::size_t>(i)] = true;
    a.repeats.push_back(x);
    b.repeats.push_back(x);  // the same hits, seed for seed
  }
  const auto v = ftb::judge_rows_accuracy(a, b, true, 1.0);
  REQUIRE(v.has_value());
  CHECK(v->seed_sd_points == 0);
  CHECK(v->low == 0);
  CHECK(v->high == 0);
  CHECK(v->keeps == ftb::stats::KeepsAccuracy::yes);
}
