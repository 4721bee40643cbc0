#include "reports/vega.h"

#include "reports/table.h"

#include <cmath>
#include <vector>

namespace ftb {

using nlohmann::json;

namespace {

json base_spec(const std::string& title, json values) {
  return {{"$schema", kVegaLiteSchema},
          {"title", title},
          {"description", "ftbench " + title + " (generated from report.json)"},
          {"data", {{"values", std::move(values)}}}};
}

// x = scenario, in report order (Vega-Lite sorts alphabetically otherwise).
json scenario_axis(const json& order) {
  return {{"field", "scenario"}, {"type", "nominal"}, {"sort", order}, {"title", "scenario"},
          {"axis", {{"labelAngle", -30}}}};
}

// One bar per ok result with a finite value.
template <class Value>
json bar_chart(const Report& report, const std::string& title, const std::string& field,
               const std::string& y_title, Value value) {
  json values = json::array();
  json order = json::array();
  for (const auto& r : report.results) {
    if (r.status != Status::ok) continue;
    const std::optional<double> v = value(r);
    if (!v || !std::isfinite(*v)) continue;
    values.push_back({{"scenario", r.scenario}, {field, *v}, {"device", r.device}, {"world_size", r.world_size},
                      {"precision", r.precision}});
    order.push_back(r.scenario);
  }
  json spec = base_spec(title, std::move(values));
  spec["mark"] = {{"type", "bar"}, {"tooltip", true}};
  spec["encoding"] = {{"x", scenario_axis(order)},
                      {"y", {{"field", field}, {"type", "quantitative"}, {"title", y_title}}}};
  return spec;
}

// Evenly spaced indices into [0, n), at most k of them, first and last kept.
std::vector<size_t> subsample(size_t n, size_t k) {
  std::vector<size_t> idx;
  if (n <= k) {
    for (size_t i = 0; i < n; ++i) idx.push_back(i);
    return idx;
  }
  for (size_t i = 0; i < k; ++i) idx.push_back(i * (n - 1) / (k - 1));
  return idx;
}

json loss_chart(const Report& report) {
  json values = json::array();
  json order = json::array();
  for (const auto& r : report.results) {
    if (r.status != Status::ok || r.steps.empty()) continue;
    order.push_back(r.scenario);
    for (size_t i : subsample(r.steps.size(), kLossChartMaxPoints)) {
      const StepRecord& s = r.steps[i];
      if (!std::isfinite(s.loss)) continue;  // a skipped (inf/NaN) AMP step
      values.push_back({{"scenario", r.scenario}, {"step", s.step}, {"epoch", s.epoch}, {"loss", s.loss}});
    }
  }
  json spec = base_spec("training loss per step", std::move(values));
  spec["mark"] = {{"type", "line"}, {"tooltip", true}};
  spec["encoding"] = {
      {"x", {{"field", "step"}, {"type", "quantitative"}, {"title", "step"}}},
      {"y", {{"field", "loss"}, {"type", "quantitative"}, {"title", "training loss"}}},
      {"color", {{"field", "scenario"}, {"type", "nominal"}, {"sort", order}, {"title", "scenario"}}},
  };
  return spec;
}

}  // namespace

std::map<std::string, json> vega_specs(const Report& report, const std::string& baseline) {
  std::map<std::string, json> specs;

  json speedup = bar_chart(report, "speed-up vs " + baseline, "speedup", "speed-up vs " + baseline + " (x)",
                           [&](const ScenarioResult& r) { return speedup_vs_baseline(report, r, baseline); });
  // A rule at 1x: bars above it are faster than the baseline.
  json bars = {{"mark", speedup["mark"]}, {"encoding", speedup["encoding"]}};
  json rule = {{"mark", {{"type", "rule"}, {"strokeDash", {4, 4}}}}, {"encoding", {{"y", {{"datum", 1}}}}}};
  speedup.erase("mark");
  speedup.erase("encoding");
  speedup["layer"] = {bars, rule};
  specs["speedup"] = std::move(speedup);

  specs["wall_time"] = bar_chart(report, "wall time of the fine-tuning loop", "wall_time_s", "wall time (s)",
                                 [](const ScenarioResult& r) { return std::optional<double>(r.wall_time_s); });
  specs["throughput"] =
      bar_chart(report, "training throughput", "train_samples_per_s", "training samples/s",
                [](const ScenarioResult& r) { return std::optional<double>(r.train_samples_per_s); });
  specs["test_accuracy"] =
      bar_chart(report, "test accuracy", "test_acc_pct", "test accuracy (%)",
                [](const ScenarioResult& r) { return std::optional<double>(r.test_acc * 100); });
  specs["loss"] = loss_chart(report);
  return specs;
}

}  // namespace ftb
