#include "reports/analysis/report_json.h"

#include <algorithm>
#include <cmath>

#include "core/base/files.h"
#include "core/base/json_text.h"
#include "reports/analysis/accuracy_verdict.h"
#include "reports/analysis/intervals.h"
#include "reports/analysis/parity.h"
#include "reports/analysis/profile.h"
#include "reports/analysis/two_level.h"

namespace ftb {

using nlohmann::json;

namespace {
// seed_per_repeat: the row's test accuracy over its seeds (points), the
// training run's luck that one run's Wilson interval does not hold.
json seed_spread_json(const Report& report, const ScenarioResult& r) {
  if (!seeds_per_repeat(report.config) || r.repeats.size() < 2) return nullptr;
  std::vector<double> points;
  for (const auto& s : r.repeats) points.push_back(100 * s.test_acc);
  return {{"seeds", points.size()}, {"mean_points", stats::mean(points)},
          {"sd_points", std::sqrt(stats::sample_variance(points))},
          {"min_points", *std::min_element(points.begin(), points.end())},
          {"max_points", *std::max_element(points.begin(), points.end())}};
}
}  // namespace

json report_to_json(const Report& report, const std::string& baseline) {
  json results = json::array();
  for (const auto& r : report.results) {
    json j = to_json(r);
    // The profile as recorded plus its shares and categories (derived).
    if (r.profile) j["profile"] = profile_report_json(*r.profile);
    // Derived from the samples (recomputed on every write, never read back).
    if (r.status == Status::ok && !r.repeats.empty()) {
      j["intervals"] = result_intervals(r);
      if (auto v = accuracy_vs_baseline(report, r, baseline)) j["accuracy_vs_baseline"] = to_json(*v, baseline);
      if (auto a = test_accuracy_interval(report, r))
        j["test_accuracy"] = {{"correct", a->correct}, {"n", a->n}, {"percent", a->accuracy}, {"low", a->low},
                              {"high", a->high}, {"level", a->level}, {"method", "wilson"}};
      if (auto spread = seed_spread_json(report, r); !spread.is_null()) j["test_accuracy_over_seeds"] = spread;
      j["parity"] = parity_json(report, r, baseline);
      if (auto s = speedups_vs(report, r, baseline))
        j["speedup"] = {{"baseline", baseline},
                        {"end_to_end", to_json(s->end_to_end)},
                        {"end_to_end_from", s->by_throughput ? "samples/s (different sample counts)" : "wall time"},
                        {"steady_state", to_json(s->steady_state)},
                        {"method", std::string("ratio of medians over the repeats of this run; each interval "
                                               "states its method and coverage (") +
                                       (s->paired ? "paired by round: the rows' i-th repeats ran back to back)"
                                                  : "unpaired)") +
                                       (report.run_noise.is_object()
                                            ? "; where an interval's method is t_run_noise, it carries the "
                                              "run-to-run sd of the speed-up from run_noise (calibrate's runs)"
                                            : "; repeats of one run share its luck: a second run is another sample")}};
    }
    results.push_back(std::move(j));
  }
  json out = {{"schema", kReportSchema},
              {"environment", report.environment.facts()},
              {"config", report.config},
              {"results", std::move(results)}};
  if (report.run_noise.is_object()) out["run_noise"] = report.run_noise;
  return out;
}

void write_report(const std::string& path, const Report& report) {
  write_file_atomic(path, json_file_text(report_to_json(report)));
}

}  // namespace ftb
