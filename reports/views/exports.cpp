#include "reports/views/exports.h"

#include <cstdio>

#include "core/base/errors.h"
#include "core/base/json_fields.h"
#include "reports/analysis/intervals.h"
#include "reports/analysis/metrics.h"

namespace ftb {

using nlohmann::json;

namespace {

struct Exported {
  const char* interval;  // key in result_intervals()
  Metric metric;
  double scale;          // report unit -> exported unit
};

std::string series_name(const Report& report, const ScenarioResult& r) {
  const auto preset = report.config.find("preset");
  return (preset != report.config.end() && preset->is_string() ? preset->get<std::string>() : "unknown") + "/" +
         r.scenario;
}

std::string or_unknown(const std::string& s) { return s.empty() ? "unknown" : s; }

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

json github_entries(const Report& report, const std::vector<Exported>& metrics) {
  json out = json::array();
  for (const auto& r : report.results) {
    if (r.status != Status::ok || r.repeats.empty()) continue;
    const json intervals = result_intervals(r);
    for (const auto& e : metrics) {
      const json& i = intervals.at(e.interval);
      const double value = i.at("median").get<double>() * e.scale;
      const double low = i.at("low").get<double>() * e.scale, high = i.at("high").get<double>() * e.scale;
      const std::string extra = "median of " + std::to_string(r.repeats.size()) + " repeats, interval [" +
                                number(low) + ", " + number(high) + "]\n" + r.device + ", " + to_string(r.precision) +
                                ", world_size " + std::to_string(r.world_size) + "\nmachine " +
                                or_unknown(report.environment.host()) + ", commit " +
                                or_unknown(report.environment.git_commit());
      out.push_back({{"name", series_name(report, r) + "/" + to_string(e.metric)},
                     {"unit", metric_unit(e.metric)},
                     {"value", value},
                     {"range", "± " + number((high - low) / 2)},
                     {"extra", extra}});
    }
  }
  return out;
}

json bmf(const Report& report) {
  struct Measure {
    const char* name;
    const char* interval;
    double scale;
  };
  const Measure measures[] = {{"throughput", "train_samples_per_s", 1},
                              {"steady-throughput", "steady_samples_per_s", 1},
                              {"latency", "step_ms", 1e6},  // ms -> ns, Bencher's latency unit
                              {"wall-time", "wall_time_s", 1}};
  json out = json::object();
  for (const auto& r : report.results) {
    if (r.status != Status::ok || r.repeats.empty()) continue;
    const json intervals = result_intervals(r);
    json bench = json::object();
    for (const auto& m : measures) {
      const json& i = intervals.at(m.interval);
      bench[m.name] = {{"value", i.at("median").get<double>() * m.scale},
                       {"lower_value", i.at("low").get<double>() * m.scale},
                       {"upper_value", i.at("high").get<double>() * m.scale}};
    }
    out[series_name(report, r)] = std::move(bench);
  }
  return out;
}

}  // namespace

ExportFormat parse_export_format(const std::string& text, const std::string& flag) {
  for (ExportFormat f : {ExportFormat::github_bigger, ExportFormat::github_smaller, ExportFormat::bmf})
    if (to_string(f) == text) return f;
  if (text == "googlebenchmark" || text == "googlecpp")
    input_error(flag, "'" + text + "': Google Benchmark JSON comes from the micro-benchmarks themselves: "
                                   "build/bench/micro/ftb_micro --benchmark_format=json");
  input_error(flag, "unknown format '" + text + "' (customBiggerIsBetter, customSmallerIsBetter, bmf)");
}

std::string to_string(ExportFormat f) {
  switch (f) {
    case ExportFormat::github_bigger: return "customBiggerIsBetter";
    case ExportFormat::github_smaller: return "customSmallerIsBetter";
    case ExportFormat::bmf: return "bmf";
  }
  return "?";
}

json export_report(const Report& report, ExportFormat f) {
  switch (f) {
    case ExportFormat::github_bigger:
      return github_entries(report, {{"train_samples_per_s", Metric::train_samples_per_s, 1},
                                     {"steady_samples_per_s", Metric::steady_samples_per_s, 1}});
    case ExportFormat::github_smaller:
      return github_entries(report, {{"wall_time_s", Metric::wall_time_s, 1},
                                     {"step_ms", Metric::step_ms_median, 1}});
    case ExportFormat::bmf: return bmf(report);
  }
  return nullptr;
}

}  // namespace ftb
