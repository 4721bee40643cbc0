#include "reports/analysis/duet.h"

#include <cmath>
#include <limits>

#include "reports/analysis/two_level.h"

namespace ftb::stats {

namespace {
double per_look(const std::vector<int>& looks, double rate) {
  return looks.empty() ? rate : rate / static_cast<double>(looks.size());
}
}  // namespace

double DuetDesign::look_alpha() const { return per_look(looks, family_alpha); }
double DuetDesign::interval_level() const { return 1 - 2 * per_look(looks, same_risk); }

namespace {

// A row's pairs: the paired t test and interval at `level` (log), over the
// finite ratios.
struct Paired {
  PairedChange change;
  double low = std::numeric_limits<double>::quiet_NaN(), high = std::numeric_limits<double>::quiet_NaN();
};

Paired summarise(const std::vector<double>& ratios, double level) {
  std::vector<double> x;
  for (double r : ratios)
    if (std::isfinite(r)) x.push_back(r);
  Paired out;
  PairedChange& c = out.change;
  c.pairs = static_cast<int>(x.size());
  c.p = std::numeric_limits<double>::quiet_NaN();
  if (x.size() < 2) return out;
  c.mean = mean(x);
  c.sd = std::sqrt(sample_variance(x));
  const double n = static_cast<double>(x.size());
  const double se = c.sd / std::sqrt(n);
  if (!(se > 0)) {  // identical ratios: the interval is the point itself
    c.p = c.mean == 0 ? 1.0 : 0.0;
    out.low = out.high = c.mean;
    return out;
  }
  c.p = 2 * (1 - t_cdf(std::abs(c.mean) / se, n - 1));
  const auto b = t_interval(c.mean, se, n - 1, level);
  out.low = b.low;
  out.high = b.high;
  return out;
}

}  // namespace

void judge_look(const std::vector<std::vector<double>>& ratios, const DuetDesign& design, std::vector<DuetRow>& rows) {
  rows.resize(ratios.size());
  std::vector<Paired> paired(ratios.size());
  std::vector<double> p(ratios.size(), std::numeric_limits<double>::quiet_NaN());  // NaN: not in the family
  for (size_t i = 0; i < ratios.size(); ++i) {
    if (rows[i].final) continue;
    paired[i] = summarise(ratios[i], design.interval_level());
    p[i] = paired[i].change.p;
  }
  const auto reject = holm_reject(p, design.look_alpha());
  for (size_t i = 0; i < ratios.size(); ++i) {
    if (rows[i].final) continue;
    PairedChange c = paired[i].change;
    const double estimate = c.pairs >= 2 ? c.mean : std::numeric_limits<double>::quiet_NaN();
    // No side noise: the budget is the plan, so no plan of further runs is offered.
    const Change change{estimate, paired[i].low, paired[i].high, design.interval_level(), {}, {}};
    c.decision = decide(change, {design.min_effect, reject[i], Direction::higher_is_better, 0});
    rows[i].change = c;
    const Verdict v = c.decision.verdict;
    if (v == Verdict::worse || v == Verdict::better || v == Verdict::same) {
      rows[i].final = true;
      rows[i].settled_at = c.pairs;
    }
  }
}

bool all_settled(const std::vector<DuetRow>& rows) {
  for (const auto& r : rows)
    if (!r.final) return false;
  return true;
}

int next_look(const DuetDesign& design, int pairs) {
  for (int n : design.looks)
    if (n > pairs) return n;
  return 0;
}

std::string design_problem(const DuetDesign& d) {
  if (d.looks.empty()) return "needs at least one look";
  if (d.looks.front() < 2) return "the first look needs at least 2 pairs";
  for (size_t i = 1; i < d.looks.size(); ++i)
    if (d.looks[i] <= d.looks[i - 1]) return "looks must increase";
  if (!(d.family_alpha > 0 && d.family_alpha < 0.5)) return "alpha must lie in (0, 0.5)";
  if (!(d.same_risk > 0 && d.same_risk < 0.5)) return "same_risk must lie in (0, 0.5)";
  if (!(d.min_effect > 0)) return "min_effect must be > 0";
  return "";
}

}  // namespace ftb::stats
