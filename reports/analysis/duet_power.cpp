#include "reports/analysis/duet_power.h"

#include <cmath>
#include <random>

namespace ftb::stats {

double pair_sd(double side_sd, double correlation) { return side_sd * std::sqrt(2 * (1 - correlation)); }

namespace {

// One job: pairs added up to each look until every row is final.
std::vector<DuetRow> one_job(const DuetNoise& n, const std::vector<double>& change, const DuetDesign& d,
                             std::mt19937_64& rng) {
  std::normal_distribution<double> z(0, 1);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::vector<double>> ratios(n.pair_sd.size());
  std::vector<DuetRow> rows;
  int pairs = 0;
  for (int look : d.looks) {
    for (; pairs < look; ++pairs) {
      // Both draws always made: the same stream whatever the share.
      const bool out = u(rng) < n.outlier_share;
      const double sign = u(rng) < 0.5 ? -1 : 1;
      const double shift = out ? sign * n.outlier : 0;
      for (size_t r = 0; r < ratios.size(); ++r) {
        const double c = r < change.size() ? change[r] : 0;
        ratios[r].push_back(std::log1p(c) + shift + n.pair_sd[r] * z(rng));
      }
    }
    judge_look(ratios, d, rows);
    if (all_settled(rows)) break;
  }
  return rows;
}

}  // namespace

DuetJobs simulate_duet_jobs(const DuetNoise& noise, const std::vector<double>& change, const DuetDesign& design,
                            int trials, uint64_t seed) {
  std::mt19937_64 rng(seed);
  DuetJobs out;
  out.trials = trials;
  const size_t n = noise.pair_sd.size();
  out.worse.assign(n, 0);
  out.better.assign(n, 0);
  out.same.assign(n, 0);
  double pairs = 0;
  for (int t = 0; t < trials; ++t) {
    const auto rows = one_job(noise, change, design, rng);
    bool call = false;
    int most = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
      const Verdict v = rows[r].change.decision.verdict;
      out.worse[r] += v == Verdict::worse;
      out.better[r] += v == Verdict::better;
      out.same[r] += v == Verdict::same;
      call = call || v == Verdict::worse || v == Verdict::better;
      most = std::max(most, rows[r].change.pairs);
    }
    out.any_call += call;
    pairs += most;
  }
  out.mean_pairs = trials ? pairs / trials : 0;
  return out;
}

double duet_min_detectable(const DuetNoise& noise, int row, const DuetDesign& design, double power, int trials,
                           uint64_t seed) {
  const auto caught = [&](double slowdown) {
    std::vector<double> change(noise.pair_sd.size(), 0.0);
    change[static_cast<size_t>(row)] = -slowdown;
    const auto jobs = simulate_duet_jobs(noise, change, design, trials, seed);
    return jobs.rate(jobs.worse[static_cast<size_t>(row)]) >= power;
  };
  double lo = 0, hi = 0.95;
  if (!caught(hi)) return 1;
  while (hi - lo > 0.0025) {
    const double mid = (lo + hi) / 2;
    (caught(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace ftb::stats
