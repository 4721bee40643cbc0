// accuracy.h: an accuracy's binomial interval, the exact McNemar test and
// Newcombe's interval on a paired difference (issue 47). The rates are
// confirmed by seeded simulations driving the real functions.
#include "reports/analysis/accuracy.h"

#include "core/base/portable_random.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

using namespace ftb::stats;

TEST_CASE("accuracy_interval: Wilson and exact intervals at their known values") {
  const AccuracyInterval w = accuracy_interval(82, 100);
  CHECK(w.accuracy == doctest::Approx(82.0));
  CHECK(w.low == doctest::Approx(73.33).epsilon(0.0005));
  CHECK(w.high == doctest::Approx(88.30).epsilon(0.0005));
  const AccuracyInterval e = accuracy_interval(0, 10, 0.95, BinomialInterval::exact);
  CHECK(e.low == 0.0);
  CHECK(e.high == doctest::Approx(100 * (1 - std::pow(0.025, 0.1))).epsilon(1e-6));  // 30.85
  const AccuracyInterval full = accuracy_interval(10, 10, 0.95, BinomialInterval::exact);
  CHECK(full.high == 100.0);
  CHECK(full.low == doctest::Approx(100 * std::pow(0.025, 0.1)).epsilon(1e-6));
  CHECK(std::isnan(accuracy_interval(3, 0).accuracy));
  CHECK(std::isnan(accuracy_interval(11, 10).low));
}

TEST_CASE("mcnemar_exact_p: twice the binomial tail of the smaller discordant count") {
  CHECK(mcnemar_exact_p(10, 2) == doctest::Approx(2.0 * 79 / 4096));  // (1 + 12 + 66) / 2^12
  CHECK(mcnemar_exact_p(2, 10) == doctest::Approx(2.0 * 79 / 4096));
  CHECK(mcnemar_exact_p(5, 5) == 1.0);
  CHECK(mcnemar_exact_p(0, 0) == 1.0);
}

TEST_CASE("pair_counts and paired_accuracy: cells, difference, its interval, and a size mismatch") {
  const std::vector<bool> a{true, true, false, false, true};
  const std::vector<bool> b{true, false, true, false, false};
  const PairCounts c = pair_counts(a, b);
  CHECK(c.both == 1);
  CHECK(c.only_a == 2);
  CHECK(c.only_b == 1);
  CHECK(c.neither == 1);
  const std::vector<bool> one{true};
  CHECK_THROWS_AS(pair_counts(a, one), std::invalid_argument);
  const PairedAccuracy p = paired_accuracy({500, 40, 22, 38});
  CHECK(p.difference == doctest::Approx(100.0 * (22 - 40) / 600));
  CHECK(p.low < p.difference);
  CHECK(p.high > p.difference);
  const PairedAccuracy swapped = paired_accuracy({500, 22, 40, 38});  // A and B exchanged
  CHECK(swapped.low == doctest::Approx(-p.high));
  CHECK(swapped.high == doctest::Approx(-p.low));
  CHECK(swapped.p_value == doctest::Approx(p.p_value));
}

namespace {

// One simulated test split: each example falls in a cell of the paired table
// with the given probabilities (both right, only A right, only B right).
PairCounts draw(std::mt19937_64& rng, int n, double p_both, double p_only_a, double p_only_b) {
  PairCounts c;
  for (int i = 0; i < n; ++i) {
    const double x = ftb::uniform01(rng);
    if (x < p_both) ++c.both;
    else if (x < p_both + p_only_a) ++c.only_a;
    else if (x < p_both + p_only_a + p_only_b) ++c.only_b;
    else ++c.neither;
  }
  return c;
}

// `trials` seeded paired splits of 600 examples drawn as draw() does; counts
// the exact test's rejections toward lower, the judge's "worse" at a
// min_effect of 1 point, and Newcombe's intervals covering the true difference.
struct Tally {
  int lower = 0, worse = 0, covered = 0;
};
Tally simulate(uint64_t seed, int trials, double p_both, double p_only_a, double p_only_b, double truth) {
  std::mt19937_64 rng(seed);
  Tally t;
  for (int i = 0; i < trials; ++i) {
    const PairedAccuracy p = paired_accuracy(draw(rng, 600, p_both, p_only_a, p_only_b));
    if (p.p_value <= 0.05 && p.difference < 0) ++t.lower;
    if (judge_accuracy(p, 1.0).verdict == Verdict::worse) ++t.worse;
    if (p.low <= truth && truth <= p.high) ++t.covered;
  }
  return t;
}

}  // namespace

TEST_CASE("A/A: two models of the same true accuracy, correlated per example, called lower at most 2.5 %") {
  // 85 % each, 6 % of examples discordant (3 % each way): the models agree on 94 %.
  const int trials = 4000;
  const Tally t = simulate(47, trials, 0.82, 0.03, 0.03, 0.0);
  const double rate = static_cast<double>(t.lower) / trials, sd = std::sqrt(0.025 * 0.975 / trials);
  MESSAGE("A/A called lower: " << rate << " of " << trials << "; interval covered 0: " << 1.0 * t.covered / trials);
  CHECK(rate <= 0.025 + 3 * sd);  // the exact test's one side at a two-sided 5 %
  CHECK(t.worse == t.lower);      // on 600 examples a rejection already lies beyond 1 point
  CHECK(1.0 * t.covered / trials >= 0.94);
}

TEST_CASE("a model 3 points worse on 600 examples is found at the modelled power") {
  // Baseline 85 %, candidate 82 %: 6 % of examples only the baseline gets
  // right, 3 % only the candidate.
  const double modelled = mcnemar_power(600, 0.06, 0.03);
  const int trials = 4000;
  const Tally t = simulate(4747, trials, 0.79, 0.06, 0.03, -3.0);
  const double rate = static_cast<double>(t.lower) / trials;
  const double sd = std::sqrt(modelled * (1 - modelled) / trials);
  MESSAGE("3 points worse on 600: modelled power " << modelled << ", simulated " << rate
                                                   << "; interval covered -3: " << 1.0 * t.covered / trials);
  CHECK(rate == doctest::Approx(modelled).epsilon(3 * sd / modelled));
  CHECK(modelled > 0.5);
  CHECK(t.worse == t.lower);  // the judge at min_effect 1 point calls worse exactly where McNemar rejects toward lower
  CHECK(1.0 * t.covered / trials >= 0.94);
}

TEST_CASE("judge_accuracy: worse, same, cannot tell and insufficient against min_effect in points") {
  // 600 examples, baseline 85 %: 40 only A, 10 only B: -5 points, p < 0.001.
  CHECK(judge_accuracy(paired_accuracy({470, 40, 10, 80}), 1.0).verdict == Verdict::worse);
  CHECK(judge_accuracy(paired_accuracy({470, 10, 40, 80}), 1.0).verdict == Verdict::better);
  // Called by the test but under min_effect 6 points, and the interval reaches beyond: cannot tell.
  CHECK(judge_accuracy(paired_accuracy({470, 40, 10, 80}), 6.0).verdict == Verdict::cannot_tell);
  // 5000 examples that agree but on 20 each way: the interval is inside +-1 point.
  const Decision same = judge_accuracy(paired_accuracy({4200, 20, 20, 760}), 1.0);
  CHECK(same.verdict == Verdict::same);
  CHECK(same.reason.ruling == Ruling::settled);
  // 600 examples, 3 each way: not called, and +-1 point is not ruled out.
  CHECK(judge_accuracy(paired_accuracy({507, 3, 3, 87}), 0.5).verdict == Verdict::cannot_tell);
  CHECK(judge_accuracy(paired_accuracy({0, 0, 0, 0}), 1.0).verdict == Verdict::insufficient);
  CHECK(keeps_accuracy(Verdict::same) == KeepsAccuracy::yes);
  CHECK(keeps_accuracy(Verdict::better) == KeepsAccuracy::yes);
  CHECK(keeps_accuracy(Verdict::worse) == KeepsAccuracy::no);
  CHECK(keeps_accuracy(Verdict::cannot_tell) == KeepsAccuracy::cannot_tell);
}
