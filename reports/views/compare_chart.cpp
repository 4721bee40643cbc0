#include "reports/views/compare_chart.h"

#include <algorithm>
#include <cmath>

#include "reports/views/vega.h"

namespace ftb {

using nlohmann::json;

json compare_chart_spec(const std::vector<PairComparison>& pairs) {
  json values = json::array();
  json order = json::array();
  for (const auto& p : pairs)
    for (const auto& s : p.scenarios) {
      if (std::find(order.begin(), order.end(), json(s.scenario)) == order.end()) order.push_back(s.scenario);
      for (const auto& m : s.metrics) {
        if (!m.verdict || !std::isfinite(m.ratio.estimate)) continue;
        // One repeat a side: no interval, the bar collapses onto the point.
        const bool spread = std::isfinite(m.ratio.low) && std::isfinite(m.ratio.high);
        values.push_back({{"scenario", s.scenario},
                          {"metric", m.metric == Metric::train_samples_per_s ? "samples/s" : "steady samples/s"},
                          {"report", p.other_name},
                          {"ratio", m.ratio.estimate},
                          {"low", spread ? m.ratio.low : m.ratio.estimate},
                          {"high", spread ? m.ratio.high : m.ratio.estimate},
                          {"verdict", compare_word(m.verdict)}});
      }
    }
  const std::string reference = pairs.empty() ? "" : pairs.front().reference_name;
  const json x = {{"field", "scenario"}, {"type", "nominal"}, {"sort", order}, {"title", "scenario"},
                  {"axis", {{"labelAngle", -30}}}};
  const json color = {{"field", "report"}, {"type", "nominal"}, {"title", "B"}};
  // Ratios are multiplicative: 2x and 0.5x lie as far from the rule at 1.
  const std::string y_title = "B / A throughput (> 1: B faster, log scale)";
  json point = {{"mark", {{"type", "point"}, {"filled", true}, {"tooltip", true}}},
                {"encoding",
                 {{"x", x},
                  {"xOffset", {{"field", "report"}}},
                  {"y", {{"field", "ratio"}, {"type", "quantitative"}, {"scale", {{"type", "log"}}}, {"title", y_title}}},
                  {"color", color}}}};
  json bars = {{"mark", {{"type", "errorbar"}, {"ticks", true}}},
               {"encoding",
                {{"x", x},
                 {"xOffset", {{"field", "report"}}},
                 {"y", {{"field", "low"}, {"type", "quantitative"}, {"scale", {{"type", "log"}}}, {"title", y_title}}},
                 {"y2", {{"field", "high"}}},
                 {"color", color}}}};
  json one = {{"mark", {{"type", "rule"}, {"strokeDash", {4, 4}}, {"color", "gray"}}},
              {"encoding", {{"y", {{"datum", 1}}}}}};
  return {{"$schema", kVegaLiteSchema},
          {"title", "B / A throughput with 95 % intervals over runs (A = " + reference + ")"},
          {"description", "ftbench compare: ratio of medians over repeats per scenario; the dashed rule is 1.0"},
          {"data", {{"values", std::move(values)}}},
          {"facet", {{"row", {{"field", "metric"}, {"type", "nominal"}, {"title", nullptr}}}}},
          {"spec", {{"width", 360}, {"height", 200}, {"layer", {std::move(one), std::move(bars), std::move(point)}}}},
          {"resolve", {{"scale", {{"y", "independent"}}}}}};
}

}  // namespace ftb
