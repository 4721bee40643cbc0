// Tensor comparisons the tests share (one copy, so the unity batches of
// ftb_tests never see two).
#pragma once

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <algorithm>
#include <vector>

namespace ftb_test {

// The largest |a[i] - b[i]| over every element of every pair.
inline double max_abs_diff(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>());
  return worst;
}

}  // namespace ftb_test
