#include "reports/views/trend_chart.h"

#include <cctype>
#include <cmath>

#include "reports/views/vega.h"

namespace ftb {

using nlohmann::json;

namespace {

// One point per run with a finite median: what the layers plot and the tooltip shows.
json trend_values(const std::vector<TrendPoint>& points) {
  json values = json::array();
  for (const auto& p : points) {
    if (!std::isfinite(p.median.estimate)) continue;
    values.push_back({{"time", p.run.time},
                      {"commit", p.run.git_commit},
                      {"machine", p.run.machine},
                      {"preset", p.run.preset},
                      {"config", p.run.config_hash},
                      {"median", p.median.estimate},
                      {"low", p.median.low},
                      {"high", p.median.high},
                      {"repeats", p.median.n},
                      {"verdict", to_string(p.verdict.outcome)},
                      {"coverage", std::isfinite(p.median.coverage) ? json(p.median.coverage) : json(nullptr)},
                      {"change", std::isfinite(p.verdict.change) ? json(p.verdict.change) : json(nullptr)},
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
                      {{"field", "step"}, {"format", "+.1%"}},
                      {{"field", "verdict"}},
                      {{"field", "change"}, {"format", "+.1%"}}});
}

}  // namespace

json trend_chart(const std::string& scenario, Metric m, const std::vector<TrendPoint>& points, int window) {
  json values = trend_values(points);
  const std::string y_title = to_string(m) + " (" + metric_unit(m) + ")";
  const json x = {{"field", "time"}, {"type", "temporal"}, {"title", "run time (UTC)"}, {"scale", {{"type", "utc"}}}};
  const json color = {{"field", "machine"}, {"type", "nominal"}, {"title", "machine"}};
  const json tooltip = trend_tooltip();
  auto marked = [&](const char* verdict, const char* shape, const char* colour) {
    return json{{"transform", json::array({{{"filter", std::string("datum.verdict === '") + verdict + "'"}}})},
                {"mark", {{"type", "point"}, {"shape", shape}, {"filled", true}, {"size", 220}, {"color", colour}}},
                {"encoding", {{"x", x}, {"y", {{"field", "median"}, {"type", "quantitative"}}}, {"tooltip", tooltip}}}};
  };
  json spec = {
      {"$schema", kVegaLiteSchema},
      {"title",
       {{"text", scenario + ": " + to_string(m) + " over time"},
        {"subtitle", "median of each run with its order-statistic interval (coverage in the tooltip); red "
                     "triangle: regressed against the level since the last change point among the previous " +
                         std::to_string(window) + " runs of its series (ftbench regress's rule), green: improved; "
                                                  "dashed rule: a change point (a new level starts)"}}},
      {"description", "ftbench history trend (generated from the history store)"},
      {"width", 640},
      {"data", {{"values", std::move(values)}}},
      {"layer",
       json::array({
           {{"mark", {{"type", "errorbar"}, {"ticks", true}}},
            {"encoding",
             {{"x", x},
              {"y", {{"field", "low"}, {"type", "quantitative"}, {"title", y_title}, {"scale", {{"zero", false}}}}},
              {"y2", {{"field", "high"}}},
              {"color", color}}}},
           {{"mark", {{"type", "line"}, {"point", true}, {"tooltip", true}}},
            {"encoding",
             {{"x", x}, {"y", {{"field", "median"}, {"type", "quantitative"}, {"title", y_title}}}, {"color", color},
              {"tooltip", tooltip}}}},
           {{"transform", json::array({{{"filter", "datum.change_point"}}})},
            {"mark", {{"type", "rule"}, {"strokeDash", {6, 4}}, {"color", "#7f7f7f"}}},
            {"encoding", {{"x", x}, {"tooltip", tooltip}}}},
           marked("regressed", "triangle-down", "#d62728"),
           marked("improved", "triangle-up", "#2ca02c"),
       })},
  };
  return spec;
}

std::string trend_chart_file_name(const std::string& scenario) {
  std::string safe;
  for (char c : scenario) safe += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_';
  return "trend_" + safe + ".vl.json";
}

}  // namespace ftb
