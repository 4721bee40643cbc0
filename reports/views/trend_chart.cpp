#include "reports/views/trend_chart.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/base/json_fields.h"
#include "reports/views/vega.h"

namespace ftb {

using nlohmann::json;

namespace {


// "11-01 02:00 c001": the run's UTC date and time and its commit (7
// characters), one ordinal tick per run (a temporal axis labels nightly runs
// by hour, not by night).
std::string run_label(const HistoryRun& r) {
  const std::string when = r.time.size() >= 16 ? r.time.substr(5, 5) + " " + r.time.substr(11, 5) : r.time;
  return when + " " + r.git_commit.substr(0, 7);
}

// One point per run with a finite median: what the layers plot and the
// tooltip shows; the reference level each run was judged against and the
// +-min_effect band around it where it was judged.
json trend_values(const std::vector<TrendPoint>& points, double min_effect) {
  json values = json::array();
  for (const auto& p : points) {
    if (!std::isfinite(p.median.estimate)) continue;
    const double ref = p.verdict.reference_median;
    const bool judged = std::isfinite(ref) && p.verdict.outcome != stats::Verdict::insufficient;
    values.push_back({{"run", run_label(p.run)},
                      {"time", p.run.time},
                      {"commit", p.run.git_commit},
                      {"machine", p.run.machine},
                      {"preset", p.run.preset},
                      {"config", p.run.config_hash},
                      {"median", p.median.estimate},
                      {"low", p.median.low},
                      {"high", p.median.high},
                      {"repeats", p.median.n},
                      {"verdict", to_string(p.verdict.outcome)},
                      {"reference", judged ? json(ref) : json(nullptr)},
                      {"band_low", judged ? json(ref * (1 - min_effect)) : json(nullptr)},
                      {"band_high", judged ? json(ref * (1 + min_effect)) : json(nullptr)},
                      {"coverage", finite_or_null(p.median.coverage)},
                      {"change", finite_or_null(p.verdict.change)},
                      {"change_point", p.change_point},
                      {"step", p.change_point ? json(p.step) : json(nullptr)}});
  }
  return values;
}

json trend_tooltip() {
  return json::array({{{"field", "time"}, {"type", "nominal"}, {"title", "time (UTC)"}},
                      {{"field", "commit"}},
                      {{"field", "machine"}},
                      {{"field", "median"}, {"format", ".4g"}},
                      {{"field", "low"}, {"format", ".4g"}},
                      {{"field", "high"}, {"format", ".4g"}},
                      {{"field", "repeats"}},
                      {{"field", "coverage"}, {"format", ".0%"}},
                      {{"field", "reference"}, {"format", ".4g"}, {"title", "reference level"}},
                      {{"field", "step"}, {"format", "+.1%"}},
                      {{"field", "verdict"}},
                      {{"field", "change"}, {"format", "+.1%"}}});
}

// The run's verdict as a marked point: regressed, improved, cannot tell.
json verdict_mark(const json& x, const json& tooltip, const char* verdict, json mark) {
  return json{{"transform", json::array({{{"filter", std::string("datum.verdict === '") + verdict + "'"}}})},
              {"mark", std::move(mark)},
              {"encoding", {{"x", x}, {"y", {{"field", "median"}, {"type", "quantitative"}}}, {"tooltip", tooltip}}}};
}

json trend_layers(const json& x, const std::string& y_title) {
  const json color = {{"field", "machine"}, {"type", "nominal"}, {"title", "machine"}, {"legend", {{"orient", "bottom"}}}};
  const json tooltip = trend_tooltip();
  const json y = {{"field", "median"}, {"type", "quantitative"}, {"title", y_title}, {"scale", {{"zero", false}}}};
  return json::array({
      {{"transform", json::array({{{"filter", "datum.reference !== null"}}})},
       {"mark", {{"type", "bar"}, {"color", "#bbbbbb"}, {"opacity", 0.3}}},
       {"encoding", {{"x", x}, {"y", {{"field", "band_low"}, {"type", "quantitative"}, {"title", y_title}}},
                     {"y2", {{"field", "band_high"}}}}}},
      {{"transform", json::array({{{"filter", "datum.reference !== null"}}})},
       {"mark", {{"type", "tick"}, {"color", "#555555"}, {"thickness", 2}}},
       {"encoding", {{"x", x}, {"y", {{"field", "reference"}, {"type", "quantitative"}}}, {"tooltip", tooltip}}}},
      {{"mark", {{"type", "errorbar"}, {"ticks", true}}},
       {"encoding", {{"x", x}, {"y", {{"field", "low"}, {"type", "quantitative"}, {"title", y_title}}}, {"y2", {{"field", "high"}}},
                     {"color", color}}}},
      {{"mark", {{"type", "line"}, {"point", true}, {"tooltip", true}}},
       {"encoding", {{"x", x}, {"y", y}, {"color", color}, {"tooltip", tooltip}}}},
      {{"transform", json::array({{{"filter", "datum.change_point"}}})},
       {"mark", {{"type", "rule"}, {"strokeDash", {6, 4}}, {"color", "#7f7f7f"}}},
       {"encoding", {{"x", x}, {"tooltip", tooltip}}}},
      verdict_mark(x, tooltip, "regressed",
                   {{"type", "point"}, {"shape", "triangle-down"}, {"filled", true}, {"size", 220}, {"color", "#d62728"}}),
      verdict_mark(x, tooltip, "improved",
                   {{"type", "point"}, {"shape", "triangle-up"}, {"filled", true}, {"size", 220}, {"color", "#2ca02c"}}),
      verdict_mark(x, tooltip, "cannot tell",
                   {{"type", "point"}, {"shape", "circle"}, {"filled", false}, {"size", 260}, {"strokeWidth", 2},
                    {"color", "#ff7f0e"}}),
  });
}

}  // namespace

json trend_chart(const std::string& scenario, Metric m, const std::vector<TrendPoint>& points, const TrendOptions& o) {
  const double min_effect = o.rule.min_effect;
  json values = trend_values(points, min_effect);
  const std::string y_title = to_string(m) + " (" + metric_unit(m) + ")";
  const json x = {{"field", "run"},
                  {"type", "ordinal"},
                  {"sort", {{"field", "time"}}},
                  {"title", "run (UTC date and time, commit)"},
                  {"axis", {{"labelAngle", -50}}}};
  const std::string effect = std::to_string(static_cast<int>(std::lround(100 * min_effect)));
  return {
      {"$schema", kVegaLiteSchema},
      {"title",
       {{"text", scenario + ": " + to_string(m) + ", run by run"},
        {"subtitle",
         json::array({"each run's median with its order-statistic interval;",
                      "dark tick: the level it was judged against (since the last change point,",
                      "of the previous " + std::to_string(o.window) + " runs), grey: +-" + effect + " % around it;",
                      "red triangle: regressed, green: improved, orange ring: cannot tell;",
                      "dashed rule: a change point (a new level starts)"})}}},
      {"description", "ftbench history trend (generated from the history store)"},
      {"width", std::max<int>(480, 40 * static_cast<int>(values.size()))},
      {"height", 300},
      {"data", {{"values", std::move(values)}}},
      {"layer", trend_layers(x, y_title)},
  };
}

std::string trend_chart_file_name(const std::string& scenario) {
  std::string safe;
  for (char c : scenario) safe += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_';
  return "trend_" + safe + ".vl.json";
}

}  // namespace ftb
