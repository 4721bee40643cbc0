// Steps in a series of nightly levels: E-divisive means (Matteson & James,
// "A Nonparametric Approach for Multiple Change Point Analysis of Multivariate
// Data", JASA 2014; alpha = 1) locates the most likely split of a segment,
// and a two-sided Student t-test of the values either side (pooled variance:
// a step moves the level, not the noise, and a new level of two nights still
// gets the old level's degrees of freedom) decides whether it is a change
// (instead of the original permutation test), as Apache Otava
// (formerly Hunter, Fleming et al., ICPE 2023) and MongoDB's performance CI
// do. Splits recurse into both halves (binary segmentation) until no
// candidate passes. Deterministic; no LibTorch.
//
// The t-test judges the best of every split, so max_p is not the rate of
// false steps: flat Gaussian series show one in 0.57 % of 9-value series (8
// nights of history and tonight, as the nightly gate splits them) and in
// 1.25 % of 21-value ones (tests/test_change_points.cpp, 40,000 series each).
// A permutation test per split would hold max_p, at a cost the nightly
// simulations, which split every series of every simulated night, cannot pay.
#pragma once

#include <vector>

namespace ftb::stats {

struct ChangePointOptions {
  double max_p = 0.001;  // Student t-test of the best split's two sides, two-sided (not the false-step rate)
  int min_segment = 2;   // values on each side of a change, at least
};

struct ChangePoint {
  int index = 0;       // the first value of the new level
  double p = 1;        // the Student t-test's p-value when it was accepted
  double before = 0, after = 0;  // the means of the segments either side, final segmentation
};

// Change points of `x`, in increasing index.
std::vector<ChangePoint> change_points(const std::vector<double>& x, const ChangePointOptions& o = {});

// The two-sample Student t-test with the pooled variance, two-sided p (1
// when there are fewer than three values; 0 for different means without any
// spread).
double student_p(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace ftb::stats
