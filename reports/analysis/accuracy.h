// Accuracy as a measurement (issue 47): an accuracy is k correct of n test
// examples, so it carries a binomial interval with its n; two models scored
// on the same examples are compared on the examples they disagree on.
//
//   accuracy_interval   Wilson score (default) or exact Clopper-Pearson
//                       interval of k / n, in points
//   paired_accuracy     exact McNemar test on the discordant examples (b: A
//                       right, B wrong; c: A wrong, B right) and Newcombe's
//                       interval (his method 10, Wilson-based, using the
//                       correlation of the pairs) on accB - accA, in points
//   judge_accuracy      the one verdict (verdict.h's decide()) on the paired
//                       difference against min_effect in points: worse /
//                       better where McNemar rejects at alpha and the
//                       difference is at or beyond min_effect, same where the
//                       interval lies inside +-min_effect, else cannot tell
//   mcnemar_power       the exact test's power for per-example rates of the
//                       two discordant kinds (modelled: a sum over the
//                       binomial laws, confirmed by the suite's simulation)
// No I/O, deterministic.
#pragma once

#include "reports/analysis/verdict.h"

#include <cstdint>
#include <vector>

namespace ftb::stats {

enum class BinomialInterval { wilson, exact };

struct AccuracyInterval {
  int correct = 0, n = 0;
  double accuracy = 0;       // points (0..100)
  double low = 0, high = 0;  // points
  double level = 0.95;
  BinomialInterval method = BinomialInterval::wilson;
};

// k of n; n < 1 or k outside 0..n: accuracy, low, high are NaN.
AccuracyInterval accuracy_interval(int correct, int n, double level = 0.95,
                                   BinomialInterval method = BinomialInterval::wilson);

// The four cells of the paired table, A the baseline, B the candidate.
struct PairCounts {
  int both = 0;     // a: both right
  int only_a = 0;   // b: A right, B wrong
  int only_b = 0;   // c: A wrong, B right
  int neither = 0;  // d: both wrong
  int n() const { return both + only_a + only_b + neither; }
};

// Counts from two per-example correctness vectors of the same split; the
// sizes must match (std::invalid_argument otherwise).
PairCounts pair_counts(const std::vector<bool>& a, const std::vector<bool>& b);

struct PairedAccuracy {
  PairCounts counts;
  double difference = 0;     // accB - accA, points
  double low = 0, high = 0;  // Newcombe's interval on the difference, points
  double p_value = 1;        // exact McNemar, two-sided
  double level = 0.95;
};

PairedAccuracy paired_accuracy(const PairCounts& c, double level = 0.95);

// The paired difference judged by decide(): points become relative to A's
// accuracy (a monotone rescaling, so "at or beyond min_effect points" and
// "inside +-min_effect points" hold exactly as stated in points). A with no
// correct example, or no examples: insufficient.
Decision judge_accuracy(const PairedAccuracy& p, double min_effect_points, double alpha = 0.05);
// The same rescaling for any difference in points with its interval, the
// test's rejection given: base is A's accuracy (points); base <= 0 or a
// bound not finite: insufficient. judge_accuracy and the verdict over seeds
// (accuracy_verdict.h) both decide through it.
Decision decide_points(double base, double difference, double low, double high, bool rejected,
                       double min_effect_points, double level = 0.95);

// The table's per-row answer: same or better keeps it, worse does not.
enum class KeepsAccuracy { yes, no, cannot_tell };
KeepsAccuracy keeps_accuracy(Verdict v);

// Exact two-sided McNemar p: 2 P(Bin(b + c, 1/2) <= min(b, c)), at most 1.
double mcnemar_exact_p(int only_a, int only_b);

// Modelled power of the exact McNemar test at `alpha` on n examples where an
// example is "A right, B wrong" with probability p_only_a and "A wrong, B
// right" with p_only_b (independent examples).
double mcnemar_power(int n, double p_only_a, double p_only_b, double alpha = 0.05);

}  // namespace ftb::stats
