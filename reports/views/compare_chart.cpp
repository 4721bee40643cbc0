#include "reports/views/compare_chart.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/base/text_format.h"
#include "reports/views/vega.h"

namespace ftb {

using nlohmann::json;

namespace {

// A side's name that fits a legend: each report as its folder
// ("results/aa/run-1/report.json" -> "run-1"), with the folder above it when
// the runs share one ("aa/run-1 ... run-3 (3 runs)", so two sides of
// run-K folders stay apart); the full names are in compare.md and compare.json.
std::string short_name(const std::string& name) {
  std::vector<std::string> parts, parents;
  for (std::size_t start = 0;;) {
    const std::size_t comma = name.find(", ", start);
    std::string part = name.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part.size() > 12 && part.compare(part.size() - 12, 12, "/report.json") == 0) part.resize(part.size() - 12);
    std::string parent;
    if (const auto slash = part.rfind('/'); slash != std::string::npos) {
      const auto above = part.rfind('/', slash == 0 ? 0 : slash - 1);
      parent = part.substr(above == std::string::npos ? 0 : above + 1, slash - (above == std::string::npos ? 0 : above + 1));
      part = part.substr(slash + 1);
    }
    parts.push_back(part);
    parents.push_back(parent);
    if (comma == std::string::npos) break;
    start = comma + 2;
  }
  if (parts.size() == 1) return parts[0];
  const bool one_parent = !parents[0].empty() && std::all_of(parents.begin(), parents.end(),
                                                             [&](const std::string& p) { return p == parents[0]; });
  const std::string first = (one_parent ? parents[0] + "/" : "") + parts.front();
  if (parts.size() == 2) return first + ", " + parts[1];
  return first + " ... " + parts.back() + " (" + std::to_string(parts.size()) + " runs)";
}

// Each compared row and metric as a data point; lo/hi widened to hold them.
json chart_values(const std::vector<PairComparison>& pairs, json& order, double& lo, double& hi) {
  json values = json::array();
  for (const auto& p : pairs)
    for (const auto& s : p.scenarios) {
      if (std::find(order.begin(), order.end(), json(s.scenario)) == order.end()) order.push_back(s.scenario);
      for (const auto& m : s.metrics) {
        if (!m.verdict || !std::isfinite(m.ratio.estimate)) continue;
        // One repeat a side: no interval, the bar collapses onto the point.
        const bool spread = std::isfinite(m.ratio.low) && std::isfinite(m.ratio.high);
        const double low = spread ? m.ratio.low : m.ratio.estimate, high = spread ? m.ratio.high : m.ratio.estimate;
        lo = std::min(lo, low);
        hi = std::max(hi, high);
        values.push_back({{"scenario", s.scenario},
                          {"metric", m.metric == Metric::train_samples_per_s ? "samples/s" : "steady samples/s"},
                          {"report", short_name(p.other_name)},
                          {"ratio", m.ratio.estimate},
                          {"low", low},
                          {"high", high},
                          {"verdict", compare_word(m.verdict)}});
      }
    }
  return values;
}

// Six labelled ticks, even on the log axis, and 1.0 (a log axis labels
// only its decades' multiples: 0.96 and nothing below on a 0.8-1.05 axis).
json y_axis(double lo, double hi) {
  json ticks = json::array({1.0});
  for (int k = 0; k <= 5; ++k) {
    const double t = std::exp(std::log(lo) + (std::log(hi) - std::log(lo)) * k / 5);
    ticks.push_back(std::round(t * 100) / 100);
  }
  return {{"values", ticks}, {"format", ".2f"}};
}

}  // namespace

json compare_chart_spec(const std::vector<PairComparison>& pairs, const CompareRule& rule) {
  json order = json::array();
  double lo = 1 - rule.min_effect, hi = 1 + rule.min_effect;  // the axis holds the band and every interval
  json values = chart_values(pairs, order, lo, hi);
  const std::string reference = pairs.empty() ? "" : pairs.front().reference_name;
  const json x = {{"field", "scenario"}, {"type", "nominal"}, {"sort", order}, {"title", "scenario"},
                  {"axis", {{"labelAngle", -30}}}};
  // The verdict decides the colour, the same words as compare.md.
  const json color = {{"field", "verdict"},
                      {"type", "nominal"},
                      {"title", "verdict"},
                      {"scale",
                       {{"domain", {"faster", "slower", "same within noise", "cannot tell"}},
                        {"range", {"#2a9d3f", "#d62728", "#7f7f7f", "#ff9f1c"}}}}};
  const json shape = {{"field", "report"}, {"type", "nominal"}, {"title", "B"}};
  // Ratios are multiplicative (log scale: 2x and 0.5x lie as far from 1); the
  // domain fits the data and the +-min_effect band, padded 3 %.
  const json scale = {{"type", "log"}, {"domain", {lo / 1.03, hi * 1.03}}, {"nice", false}};
  const json axis = y_axis(lo, hi);
  const std::string y_title = "B / A throughput (> 1: B faster)";
  json point = {{"mark", {{"type", "point"}, {"filled", true}, {"size", 60}, {"tooltip", true}}},
                {"encoding",
                 {{"x", x},
                  {"xOffset", {{"field", "report"}}},
                  {"y", {{"field", "ratio"}, {"type", "quantitative"}, {"scale", scale}, {"axis", axis}, {"title", y_title}}},
                  {"color", color},
                  {"shape", shape}}}};
  json bars = {{"mark", {{"type", "errorbar"}, {"ticks", {{"size", 10}}}}},
               {"encoding",
                {{"x", x},
                 {"xOffset", {{"field", "report"}}},
                 {"y", {{"field", "low"}, {"type", "quantitative"}, {"scale", scale}, {"axis", axis}, {"title", y_title}}},
                 {"y2", {{"field", "high"}}},
                 {"color", color}}}};
  json band = {{"mark", {{"type", "rect"}, {"color", "#cccccc"}, {"opacity", 0.35}}},
               {"encoding", {{"y", {{"datum", 1 - rule.min_effect}, {"type", "quantitative"}, {"scale", scale}}},
                             {"y2", {{"datum", 1 + rule.min_effect}}}}}};
  json one = {{"mark", {{"type", "rule"}, {"strokeDash", {4, 4}}, {"color", "gray"}}},
              {"encoding", {{"y", {{"datum", 1}}}}}};
  const std::string band_words = format_double("%.3g", 100 * rule.min_effect);
  return {{"$schema", kVegaLiteSchema},
          {"title",
           {{"text", "B / A throughput, 95 % intervals over runs"},
            {"subtitle", wrapped_lines({"A = " + short_name(reference),
                                         "grey band: +-" + band_words + " % (the minimum effect); dashed: 1.0"})}}},
          {"description", "ftbench compare: ratio of the runs' levels per scenario, its interval and verdict"},
          {"data", {{"values", std::move(values)}}},
          {"facet", {{"row", {{"field", "metric"}, {"type", "nominal"}, {"title", nullptr}}}}},
          {"spec", {{"width", 360}, {"height", 200},
                    {"layer", {std::move(band), std::move(one), std::move(bars), std::move(point)}}}},
          {"resolve", {{"scale", {{"y", "shared"}}}}}};
}

}  // namespace ftb
