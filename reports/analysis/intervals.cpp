#include "reports/analysis/intervals.h"

#include <cmath>
#include <cstdio>

#include "core/base/text_format.h"
#include "reports/analysis/noise.h"


namespace ftb {
namespace {

std::vector<double> field(const ScenarioResult& r, double RepeatSample::*f) {
  std::vector<double> v;
  for (const auto& s : r.repeats) v.push_back(s.*f);
  return v;
}


// "75 %", and never "95 %" for a coverage below it: 0.948 is "94.8 %".
std::string coverage_percent(double coverage) {
  const double pct = 100 * coverage;
  char d[32];
  if (coverage < 0.95 && pct >= 94.5)
    std::snprintf(d, sizeof d, "%.1f %%", std::floor(10 * pct) / 10);
  else
    std::snprintf(d, sizeof d, "%.0f %%", pct);
  return d;
}

}  // namespace

bool speedup_from_throughput(const Report& report, const ScenarioResult& r, const std::string& baseline) {
  const ScenarioResult* base = find_result(report, baseline);
  // Full epochs on N ranks drop up to N batches less than one process does:
  // that is the same work. A step cap (max_steps) on N ranks is N times it.
  if (base == nullptr || base->train_samples <= 0 || r.train_samples <= 0) return false;
  const double ratio = static_cast<double>(r.train_samples) / static_cast<double>(base->train_samples);
  return ratio > 1.01 || ratio < 0.99;
}

std::optional<double> speedup_vs_baseline(const Report& report, const ScenarioResult& r,
                                          const std::string& baseline) {
  const ScenarioResult* base = find_result(report, baseline);
  if (base == nullptr || base->status != Status::ok || r.status != Status::ok) return std::nullopt;
  if (speedup_from_throughput(report, r, baseline)) {
    if (!(base->train_samples_per_s > 0) || !(r.train_samples_per_s > 0)) return std::nullopt;
    return r.train_samples_per_s / base->train_samples_per_s;
  }
  if (!(base->wall_time_s > 0) || !(r.wall_time_s > 0)) return std::nullopt;
  return base->wall_time_s / r.wall_time_s;
}

bool repeats_in_rounds(const Report& report) {
  const nlohmann::json* repeats = report.environment.find("repeats");
  return repeats && repeats->is_object() && repeats->value("order", "") == "rounds";
}

nlohmann::json to_json(const stats::Interval& i) {
  nlohmann::json j = {{"median", i.estimate},
                      {"low", i.low},
                      {"high", i.high},
                      {"coverage", std::isfinite(i.coverage) ? nlohmann::json(i.coverage) : nlohmann::json(nullptr)},
                      {"method", to_string(i.method)},
                      {"min", i.min},
                      {"max", i.max},
                      {"n", i.n}};
  if (i.coverage >= 0.95) {
    j["ci95_low"] = i.low;
    j["ci95_high"] = i.high;
  }
  return j;
}

std::optional<Speedups> speedups_vs(const Report& report, const ScenarioResult& r, const std::string& baseline) {
  const ScenarioResult* base = find_result(report, baseline);
  if (!base || base->status != Status::ok || r.status != Status::ok || base->repeats.empty() || r.repeats.empty())
    return std::nullopt;
  Speedups s;
  s.by_throughput = speedup_from_throughput(report, r, baseline);
  s.paired = repeats_in_rounds(report) && r.repeats.size() == base->repeats.size();
  if (s.by_throughput)
    s.end_to_end = stats::ratio_interval(field(r, &RepeatSample::train_samples_per_s),
                                         field(*base, &RepeatSample::train_samples_per_s), s.paired);
  else
    s.end_to_end = stats::ratio_interval(field(*base, &RepeatSample::wall_time_s), field(r, &RepeatSample::wall_time_s),
                                         s.paired);
  // The point estimate is the table's own (ratio of the aggregate medians);
  // they coincide when the aggregates were computed from these repeats.
  if (auto point = speedup_vs_baseline(report, r, baseline)) s.end_to_end.estimate = *point;
  s.steady_state = stats::ratio_interval(field(r, &RepeatSample::steady_samples_per_s),
                                         field(*base, &RepeatSample::steady_samples_per_s), s.paired);
  // A calibrate file's run-to-run noise, where the report carries one (checked when it was given).
  if (report.run_noise.is_object() && baseline == kNoiseBaseline)
    s = with_run_noise(s, r.scenario, noise_from_json(report.run_noise, "run_noise"));
  return s;
}

std::optional<stats::AccuracyInterval> test_accuracy_interval(const Report& report, const ScenarioResult& r) {
  if (r.status != Status::ok || !std::isfinite(r.test_acc)) return std::nullopt;
  const nlohmann::json& c = report.config;
  const nlohmann::json* n = c.is_object() && c.contains("workload") ? &c["workload"] : nullptr;
  if (!n || !n->contains("test_examples") || !(*n)["test_examples"].is_number_integer()) return std::nullopt;
  if (c.contains("eval_max_batches") && c["eval_max_batches"].is_number() && c["eval_max_batches"].get<double>() != 0)
    return std::nullopt;
  const int examples = (*n)["test_examples"].get<int>();
  const double k = r.test_acc * examples;
  if (examples < 1 || std::abs(k - std::round(k)) > 1e-6 * examples) return std::nullopt;
  return stats::accuracy_interval(static_cast<int>(std::lround(k)), examples);
}

std::string format_accuracy(const Report& report, const ScenarioResult& r) {
  if (!std::isfinite(r.test_acc)) return "-";
  const std::string point = format_double("%.2f", 100 * r.test_acc);
  const auto i = test_accuracy_interval(report, r);
  return i ? point + " [" + format_double("%.1f", i->low) + ", " + format_double("%.1f", i->high) + "]" : point;
}

std::string format_accuracy_compact(const Report& report, const ScenarioResult& r) {
  if (!std::isfinite(r.test_acc)) return "-";
  const auto i = test_accuracy_interval(report, r);
  if (!i) return format_double("%.2f", 100 * r.test_acc);
  const double h = std::max(100 * r.test_acc - i->low, i->high - 100 * r.test_acc);
  return format_double("%.1f", 100 * r.test_acc) + " +-" + format_double("%.1f", std::ceil(h * 10) / 10);
}

nlohmann::json result_intervals(const ScenarioResult& r) {
  nlohmann::json j;
  j["wall_time_s"] = to_json(stats::median_interval(field(r, &RepeatSample::wall_time_s)));
  j["train_samples_per_s"] = to_json(stats::median_interval(field(r, &RepeatSample::train_samples_per_s)));
  j["steady_samples_per_s"] = to_json(stats::median_interval(field(r, &RepeatSample::steady_samples_per_s)));
  nlohmann::json step = to_json(stats::median_interval(field(r, &RepeatSample::step_ms_median)));
  // Percentiles of the last repeat's steps after warm-up (the steps are in
  // memory after a run; a report read back keeps them in steps.csv).
  std::vector<double> steps;
  for (const auto& s : r.steps)
    if (s.step > r.warmup_steps) steps.push_back(s.step_ms);
  if (!steps.empty()) {
    step["p50"] = stats::quantile(steps, 0.50);
    step["p90"] = stats::quantile(steps, 0.90);
    step["p99"] = stats::quantile(steps, 0.99);
    step["steps_of_last_repeat"] = steps.size();
  }
  j["step_ms"] = std::move(step);
  return j;
}

std::string format_interval(const stats::Interval& i, const char* fmt, const char* suffix) {
  if (!std::isfinite(i.estimate)) return "-";
  char a[64], b[64], c[64];
  std::snprintf(a, sizeof a, fmt, i.estimate);
  if (i.n < 2 || !(i.high > i.low)) return std::string(a) + suffix;
  std::snprintf(b, sizeof b, fmt, i.low);
  std::snprintf(c, sizeof c, fmt, i.high);
  // The coverage where it is not 95 % (3 repeats: [min, max] covers 75 %);
  // no tag only where it reaches 95 % and prints as 95 %.
  std::string coverage;
  if (i.method == stats::IntervalMethod::t_run_noise) {
    coverage = "; r2r";  // run-to-run, 95 % (the table's note)
  } else if (!std::isfinite(i.coverage)) {
    coverage = "; coverage ?";
  } else if (!(i.coverage >= 0.95 && i.coverage < 0.955)) {
    coverage = "; " + coverage_percent(i.coverage);
  }
  return std::string(a) + suffix + " [" + b + ", " + c + coverage + "]";
}

}  // namespace ftb
