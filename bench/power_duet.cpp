#include "bench/power_duet.h"

#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "core/base/errors.h"
#include "core/base/json_fields.h"
#include "core/base/text_format.h"
#include "reports/analysis/power.h"

namespace ftb {
namespace {

std::string duet_percent(double v, const char* fmt = "%.1f %%") { return format_double(fmt, 100 * v); }

// One line: A/A jobs at this pair sd (the row alone), and its minimum detectable slowdown.
std::vector<std::string> design_line(const DuetPowerArgs& a, std::vector<std::string> head, double pair_sd) {
  stats::DuetNoise n = a.noise;
  n.pair_sd = {pair_sd};
  const auto aa = stats::simulate_duet_jobs(n, {0.0}, a.design, a.trials, a.seed);
  head.insert(head.end(), {duet_percent(pair_sd, "%.2f %%"),
                           duet_percent(aa.rate(aa.any_call), "%.2f %%") + " (<= " +
                               duet_percent(stats::rate_upper_bound(aa.any_call, aa.trials), "%.2f %%") + ")",
                           duet_percent(aa.rate(aa.same[0])), format_double("%.1f", aa.mean_pairs),
                           duet_percent(duet_min_detectable_at(a, pair_sd))});
  return head;
}

// Each row of each A/A duet file, at its measured pair sd.
void file_lines(const DuetPowerArgs& a, std::vector<std::vector<std::string>>& rows) {
  for (const auto& m : measured_pair_sds(a.files))
    rows.push_back(design_line(
        a,
        {m.mode + (m.rotate_s > 0 ? " (trades every " + format_double("%.3g", m.rotate_s) + " s)" : "") + ": " +
             m.scenario,
         "measured"},
        m.pair_sd));
}

}  // namespace

std::vector<MeasuredPair> measured_pair_sds(const std::vector<std::string>& files) {
  std::vector<MeasuredPair> out;
  for (const auto& f : files) {
    const nlohmann::json d = read_json_file(f);
    if (!d.is_object() || !d.contains("rows") || !d["rows"].is_array()) input_error(f, "has no rows (not a duet.json)");
    for (const auto& r : d["rows"])
      if (r.contains("sd_log_ratio") && r["sd_log_ratio"].is_number())
        out.push_back({f, d.value("mode", "?"), r.value("scenario", "?"), r["sd_log_ratio"].get<double>(),
                       d.value("rotate_s", 0.0)});
  }
  return out;
}

double duet_min_detectable_at(const DuetPowerArgs& a, double pair_sd) {
  stats::DuetNoise n = a.noise;
  n.pair_sd = {pair_sd};
  return stats::duet_min_detectable(n, 0, a.design, 0.90, a.trials, a.seed);
}

void add_power_duet_flags(CLI::App* sub, DuetPowerArgs& a) {
  sub->add_flag("--duet", a.on, "simulate the duet's design (ftbench duet) instead of the nightly rule");
  sub->add_option("--side-sd", a.side_sd, "--duet: each side's run-to-run sd, relative (default 0.05)");
  sub->add_option("--correlations", a.correlations,
                  "--duet: correlations of the sides' logs to simulate (default 0.92,0.45,0: at once, taking "
                  "turns, independent)")
      ->delimiter(',');
  sub->add_option("--duet-file", a.files, "--duet: A/A duet.json files: each row at its measured pair sd");
  sub->add_option("--pair-outlier-share", a.noise.outlier_share,
                  "--duet: share of pairs where one side alone had other work (default 0.125)");
  sub->add_option("--pair-outlier", a.noise.outlier, "--duet: that pair's shift, relative (default 0.05)");
  sub->add_option("--looks", a.design.looks, "--duet: pair counts judged at (default 3,5,8,12)")->delimiter(',');
  sub->add_option("--alpha", a.design.family_alpha, "--duet: whole-job false alarms (default 0.01)");
  sub->add_option("--same-risk", a.design.same_risk, "--duet: a change of --min-effect read as same (default 0.10)");
  sub->add_option("--min-effect", a.design.min_effect, "--duet: the smallest change that matters (default 0.03)");
  sub->add_option("--duet-trials", a.trials, "--duet: simulated jobs a point (default 1000)");
}

int power_duet(const DuetPowerArgs& a) {
  if (const auto why = stats::design_problem(a.design); !why.empty()) input_error("--looks/--alpha", why);
  if (!(a.side_sd > 0)) input_error("--side-sd", "must be > 0");
  if (a.trials < 100) input_error("--duet-trials", "must be at least 100");
  for (double r : a.correlations)
    if (!(r >= -1 && r < 1)) input_error("--correlations", "each in [-1, 1)");
  std::vector<std::vector<std::string>> rows = {{"design", "correlation of the sides", "pair sd", "A/A false alarms (job)",
                                                 "A/A reads same", "pairs a job", "min detectable slowdown (90 %)"}};
  for (double rho : a.correlations)
    rows.push_back(design_line(a, {rho >= 0.9 ? "at once" : rho > 0 ? "taking turns" : "independent",
                                   format_double("%.2f", rho)},
                               stats::pair_sd(a.side_sd, rho)));
  file_lines(a, rows);
  const auto& d = a.design;
  std::cout << "## ftbench power --duet: the duet's design by simulation\n\nEach side " << duet_percent(a.side_sd, "%.1f %%")
            << " run to run; " << duet_percent(a.noise.outlier_share, "%.1f %%") << " of pairs with one side "
            << duet_percent(a.noise.outlier, "%.0f %%") << " off; looks at";
  for (int l : d.looks) std::cout << " " << l;
  std::cout << " pairs; false alarms " << d.family_alpha << " a job, same-risk " << d.same_risk << ", min effect "
            << duet_percent(d.min_effect, "%.0f %%") << "; " << a.trials << " jobs a point, seed " << a.seed
            << " (modelled: a simulation of the design, not a measurement).\n\n"
            << format_table(rows, {false, true, true, true, true, true, true}, TableStyle::markdown);
  return 0;
}

}  // namespace ftb
