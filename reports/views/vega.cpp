#include "reports/views/vega.h"

#include "reports/analysis/intervals.h"
#include "reports/views/profile_views.h"
#include "reports/views/report_labels.h"
#include "reports/analysis/statistics.h"
#include "reports/views/table.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <set>
#include <vector>

namespace ftb {

using nlohmann::json;

json wrapped_lines(const std::vector<std::string>& lines, std::size_t width) {
  json out = json::array();
  for (const auto& line : lines) {
    std::string current;
    std::size_t at = 0;
    while (at <= line.size()) {
      std::size_t end = line.find(' ', at);
      if (end == std::string::npos) end = line.size();
      const std::string word = line.substr(at, end - at);
      if (!current.empty() && current.size() + 1 + word.size() > width) {
        out.push_back(current);
        current.clear();
      }
      current += (current.empty() ? "" : " ") + word;
      at = end + 1;
    }
    out.push_back(current);
  }
  return out;
}

namespace {

// ---- titles ----------------------------------------------------------------

// Title with the report's subtitle line, plus `extra` lines (what is not drawn, marker legends).
json chart_title(const std::string& text, const std::string& subtitle, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> lines = {subtitle};
  for (const auto& l : extra)
    if (!l.empty()) lines.push_back(l);
  return {{"text", wrapped_lines({text}, kTitleLineChars - 20)}, {"subtitle", wrapped_lines(lines)}, {"anchor", "start"}};
}

json base_spec(const std::string& name, json title, json values) {
  return {{"$schema", kVegaLiteSchema},
          {"title", std::move(title)},
          {"description", "ftbench " + name + " (generated from report.json)"},
          {"data", {{"values", std::move(values)}}}};
}

// "not plotted: amp (skipped), cuda_graph (skipped)" for the rows a line chart cannot draw.
std::string not_plotted(const std::vector<std::string>& rows, const std::string& what = "not plotted") {
  if (rows.empty()) return "";
  std::string s = what + ": ";
  for (size_t i = 0; i < rows.size(); ++i) s += (i ? ", " : "") + rows[i];
  return s;
}

// ---- shared encodings --------------------------------------------------------

json report_order(const Report& report) {
  json order = json::array();
  for (const auto& r : report.results) order.push_back(r.scenario);
  return order;
}

// x = scenario, in report order (Vega-Lite sorts alphabetically otherwise).
json scenario_axis(const json& order) {
  return {{"field", "scenario"}, {"type", "nominal"}, {"sort", order}, {"title", "scenario"},
          {"scale", {{"domain", order}}}, {"axis", {{"labelAngle", -30}}}};
}

// One colour per precision, the same in every chart of every report.
json precision_color() {
  json domain = json::array();
  for (Precision p : {Precision::fp32, Precision::bf16_mixed, Precision::fp16_mixed}) domain.push_back(to_string(p));
  return {{"field", "precision"}, {"type", "nominal"}, {"title", "precision"}, {"scale", {{"domain", domain}}}};
}

json scenario_color(const json& order) {
  return {{"field", "scenario"}, {"type", "nominal"}, {"sort", order}, {"title", "scenario"}};
}

// What a placeholder says in place of a bar: the row's status, or "n/a".
std::string placeholder_text(const ScenarioResult& r) { return r.status == Status::ok ? "n/a" : to_string(r.status); }

json row_fields(const ScenarioResult& r) {
  return {{"scenario", r.scenario}, {"status", to_string(r.status)}, {"precision", to_string(r.precision)},
          {"device", r.device},     {"world_size", r.world_size},     {"reason", r.reason}};
}

// ---- bars with intervals and placeholders -----------------------------------

struct BarValue {
  std::optional<double> value, low, high;  // value = the bar; [low, high] = its interval
  std::string label;                       // text above the bar ("" = none)
};

BarValue from_interval(const stats::Interval& i, double scale = 1) {
  return {i.estimate * scale, i.low * scale, i.high * scale, ""};
}

// One series of a bar chart: name (the xOffset value) and how to get a row's bar.
struct Series {
  std::string name;  // "" for a chart with one series
  std::function<BarValue(const ScenarioResult&)> bar;
};

std::optional<double> finite(std::optional<double> v) {
  return v && std::isfinite(*v) ? v : std::nullopt;
}

json number_or_null(std::optional<double> v) { return v ? json(*v) : json(nullptr); }

// One value per row and series: the bar, its interval and label, and one
// placeholder per row without a bar (the first series carries it).
json bar_values(const Report& report, const std::vector<Series>& series) {
  json values = json::array();
  for (const auto& r : report.results) {
    for (size_t k = 0; k < series.size(); ++k) {
      BarValue b = r.status == Status::ok ? series[k].bar(r) : BarValue{};
      b.value = finite(b.value);
      b.low = finite(b.low);
      b.high = finite(b.high);
      json row = row_fields(r);
      row["series"] = series[k].name;
      row["value"] = number_or_null(b.value);
      row["low"] = number_or_null(b.value ? b.low : std::nullopt);
      row["high"] = number_or_null(b.value ? b.high : std::nullopt);
      row["label"] = b.value ? b.label : "";
      row["placeholder"] = !b.value && k == 0 ? placeholder_text(r) : "";
      values.push_back(std::move(row));
    }
  }
  return values;
}

// A bar per row and series, coloured by precision, with an error bar from
// low to high, an optional text label above it, and a labelled placeholder
// (rotated text on the axis) for every row without a bar.
json bar_chart(const Report& report, const std::string& name, json title, const std::string& y_title,
               const std::vector<Series>& series, const std::string& format = ".3~f") {
  const bool multi = series.size() > 1;
  json values = bar_values(report, series);
  const json order = report_order(report);
  json series_offset = {{"field", "series"}, {"type", "nominal"}, {"title", "speed-up"}};
  json tooltip = json::array({{{"field", "scenario"}},
                              {{"field", "value"}, {"title", y_title}, {"format", format}},
                              {{"field", "low"}, {"title", "interval low"}, {"format", format}},
                              {{"field", "high"}, {"title", "interval high"}, {"format", format}},
                              {{"field", "precision"}},
                              {{"field", "device"}},
                              {{"field", "world_size"}, {"title", "ranks"}}});
  if (multi) tooltip.push_back({{"field", "series"}, {"title", "series"}});

  json bars = {{"transform", json::array({{{"filter", "isValid(datum.value)"}}})},
               {"mark", {{"type", "bar"}}},
               {"encoding",
                {{"y", {{"field", "value"}, {"type", "quantitative"}, {"title", y_title}}},
                 {"color", precision_color()},
                 {"tooltip", tooltip}}}};
  json errors = {{"transform", json::array({{{"filter", "isValid(datum.low) && isValid(datum.high) && datum.high > datum.low"}}})},
                 {"mark", {{"type", "errorbar"}, {"ticks", true}, {"color", "black"}}},
                 {"encoding", {{"y", {{"field", "low"}, {"type", "quantitative"}, {"title", y_title}}},
                               {"y2", {{"field", "high"}}}}}};
  json labels = {{"transform", json::array({{{"filter", "isValid(datum.value) && datum.label != ''"}}})},
                 {"mark", {{"type", "text"}, {"baseline", "bottom"}, {"dy", -3}, {"fontSize", 9}}},
                 {"encoding", {{"y", {{"field", "high"}, {"type", "quantitative"}}}, {"text", {{"field", "label"}}}}}};
  json placeholders = {
      {"transform", json::array({{{"filter", "datum.placeholder != ''"}}})},
      {"mark", {{"type", "text"}, {"angle", 270}, {"align", "left"}, {"baseline", "middle"}, {"dx", 4},
                {"fontStyle", "italic"}, {"color", "#666"}}},
      {"encoding", {{"y", {{"datum", 0}, {"type", "quantitative"}}},
                    {"text", {{"field", "placeholder"}}},
                    {"tooltip", json::array({{{"field", "scenario"}}, {{"field", "status"}}, {{"field", "reason"}}})}}}};
  if (multi) {
    for (json* layer : {&bars, &errors, &labels}) (*layer)["encoding"]["xOffset"] = series_offset;
    bars["encoding"]["opacity"] = {{"field", "series"}, {"type", "nominal"}, {"title", "speed-up"},
                                   {"scale", {{"range", {1.0, 0.45}}}}};
  }
  json spec = base_spec(name, std::move(title), std::move(values));
  spec["width"] = {{"step", multi ? 32 : 44}};
  spec["layer"] = {bars, errors, labels, placeholders};
  // x in every layer, not shared: a reference rule added later spans the chart.
  for (auto& layer : spec["layer"]) layer["encoding"]["x"] = scenario_axis(order);
  return spec;
}

// ---- per-row figures ----------------------------------------------------------

// An interval of result_intervals() (the same figures report.json carries).
BarValue interval_bar(const ScenarioResult& r, const char* key, double fallback) {
  if (r.repeats.empty()) return {fallback, std::nullopt, std::nullopt, ""};
  const json i = result_intervals(r).at(key);
  return {i.at("median").get<double>(), i.at("low").get<double>(), i.at("high").get<double>(), ""};
}

std::string times(double x, bool star) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx%s", x, star ? "*" : "");
  return buf;
}

json speedup_chart(const Report& report, const std::string& baseline, const std::string& subtitle) {
  bool any_star = false;
  for (const auto& r : report.results)
    if (auto s = speedups_vs(report, r, baseline); s && s->by_throughput) any_star = true;
  std::vector<Series> series = {
      {"end-to-end",
       [&](const ScenarioResult& r) {
         const auto s = speedups_vs(report, r, baseline);
         if (!s) return BarValue{};
         BarValue b = from_interval(s->end_to_end);
         b.label = times(s->end_to_end.estimate, s->by_throughput);
         return b;
       }},
      {"steady-state", [&](const ScenarioResult& r) {
         const auto s = speedups_vs(report, r, baseline);
         if (!s) return BarValue{};
         return from_interval(s->steady_state);  // labelled by the legend: two labels per pair overlap
       }}};
  json spec = bar_chart(
      report, "speedup",
      chart_title("speed-up vs " + baseline + " (interval with its coverage in the table)", subtitle,
                  {"end-to-end: " + baseline + "'s wall time over the row's; steady-state: samples/s at the median "
                   "step after warm-up",
                   any_star ? "* end-to-end from the samples/s ratio: the row trained on a different number of samples"
                            : ""}),
      "speed-up vs " + baseline + " (x)", series, ".2f");
  // A rule at 1x: bars above it are faster than the baseline.
  spec["layer"].push_back({{"mark", {{"type", "rule"}, {"strokeDash", {4, 4}}, {"color", "#555"}}},
                           {"encoding", {{"y", {{"datum", 1}, {"type", "quantitative"}}}}}});
  return spec;
}

// Half-width, in plotted points, of the loss chart's moving average.
constexpr int kLossSmoothing = 10;

// ---- lines --------------------------------------------------------------------

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

// "amp (skipped)" / "ddp (no steps recorded)": why a row has no line.
std::string missing_row(const ScenarioResult& r, const std::string& ok_but) {
  return r.scenario + " (" + (r.status == Status::ok ? ok_but : to_string(r.status)) + ")";
}

json loss_chart(const Report& report, const std::string& subtitle) {
  json values = json::array();
  json order = json::array();
  std::vector<std::string> missing;
  for (const auto& r : report.results) {
    if (r.status != Status::ok || r.steps.empty()) {
      missing.push_back(missing_row(r, "no steps recorded"));
      continue;
    }
    order.push_back(r.scenario);
    // A step of a row on N ranks trains N local batches: x counts every
    // rank's samples, so rows with different rank counts line up by data seen.
    std::vector<int64_t> seen(r.steps.size());
    int64_t total = 0;
    for (size_t i = 0; i < r.steps.size(); ++i) seen[i] = total += r.steps[i].samples * std::max(1, r.world_size);
    for (size_t i : subsample(r.steps.size(), kLossChartMaxPoints)) {
      const StepRecord& s = r.steps[i];
      if (!std::isfinite(s.loss)) continue;  // a skipped (inf/NaN) AMP step
      values.push_back({{"scenario", r.scenario}, {"samples_seen", seen[i]}, {"step", s.step}, {"epoch", s.epoch},
                        {"loss", s.loss}});
    }
  }
  json spec = base_spec("loss", chart_title("training loss per sample seen", subtitle,
                                            {"x: training samples over all ranks (a step on N ranks counts N batches); "
                                             "line: mean of " + std::to_string(2 * kLossSmoothing + 1) +
                                                 " plotted points, faint: each step",
                                             not_plotted(missing)}),
                        std::move(values));
  spec["encoding"] = {
      {"x", {{"field", "samples_seen"}, {"type", "quantitative"}, {"title", "samples seen (all ranks)"}}},
      {"y", {{"field", "loss"}, {"type", "quantitative"}, {"title", "training loss"}}},
      {"color", scenario_color(order)},
  };
  spec["width"] = 520;
  // Per-step losses are noisy: faint, with a centred moving average on top.
  spec["layer"] = {
      {{"mark", {{"type", "line"}, {"opacity", 0.2}, {"strokeWidth", 1}}}},
      {{"transform", json::array({{{"window", json::array({{{"op", "mean"}, {"field", "loss"}, {"as", "loss_mean"}}})},
                                   {"frame", {-kLossSmoothing, kLossSmoothing}},
                                   {"groupby", {"scenario"}},
                                   {"sort", json::array({{{"field", "samples_seen"}}})}}})},
       {"mark", {{"type", "line"}, {"tooltip", true}}},
       {"encoding", {{"y", {{"field", "loss_mean"}, {"type", "quantitative"}, {"title", "training loss"}}}}}}};
  return spec;
}

json epochs_chart(const Report& report, const std::string& subtitle) {
  json values = json::array();
  json order = json::array();
  std::vector<std::string> missing;
  for (const auto& r : report.results) {
    if (r.status != Status::ok || r.epochs.empty()) {
      missing.push_back(missing_row(r, "no epochs recorded"));
      continue;
    }
    order.push_back(r.scenario);
    for (const auto& e : r.epochs) {
      auto add = [&](const char* metric, const char* split, double v) {
        if (std::isfinite(v))
          values.push_back({{"scenario", r.scenario}, {"epoch", e.epoch}, {"metric", metric}, {"split", split},
                            {"value", v}});
      };
      add("loss", "train", e.train_loss);
      add("loss", "val", e.val_loss);
      add("accuracy %", "train", 100 * e.train_acc);
      add("accuracy %", "val", 100 * e.val_acc);
    }
  }
  json spec = base_spec("epochs",
                        chart_title("loss and accuracy per epoch (solid: train, dashed: validation)", subtitle,
                                    {not_plotted(missing)}),
                        std::move(values));
  spec["facet"] = {{"column", {{"field", "metric"}, {"type", "nominal"}, {"title", nullptr},
                               {"sort", {"loss", "accuracy %"}}}}};
  spec["resolve"] = {{"scale", {{"y", "independent"}}}};
  spec["spec"] = {
      {"width", 260},
      {"mark", {{"type", "line"}, {"point", true}, {"tooltip", true}}},
      {"encoding",
       {{"x", {{"field", "epoch"}, {"type", "ordinal"}, {"title", "epoch"}}},
        {"y", {{"field", "value"}, {"type", "quantitative"}, {"title", nullptr}, {"scale", {{"zero", false}}}}},
        {"color", scenario_color(order)},
        {"strokeDash", {{"field", "split"}, {"type", "nominal"}, {"title", "split"}, {"sort", {"train", "val"}}}}}}};
  return spec;
}

// A box per row from all its recorded steps after warm-up, computed here (a
// paper run records 8,748 steps a row: the quantiles, not the points, go
// into the spec).
json step_time_chart(const Report& report, const std::string& subtitle) {
  json values = json::array();
  for (const auto& r : report.results) {
    std::vector<double> ms;
    for (const auto& s : r.steps)
      if (s.step > r.warmup_steps && std::isfinite(s.step_ms)) ms.push_back(s.step_ms);
    json row = row_fields(r);
    if (r.status == Status::ok && !ms.empty()) {
      row["p1"] = stats::quantile(ms, 0.01);
      row["p25"] = stats::quantile(ms, 0.25);
      row["median"] = stats::quantile(ms, 0.50);
      row["p75"] = stats::quantile(ms, 0.75);
      row["p99"] = stats::quantile(ms, 0.99);
      row["steps"] = ms.size();
      row["placeholder"] = "";
    } else {
      row["placeholder"] = r.status == Status::ok ? "no steps" : to_string(r.status);
    }
    values.push_back(std::move(row));
  }
  const json order = report_order(report);
  const json ok = json::array({{{"filter", "datum.placeholder == ''"}}});
  const json y = {{"field", "p25"}, {"type", "quantitative"}, {"title", "step time (ms)"}};
  json tooltip = json::array();
  for (const char* f : {"scenario", "p1", "p25", "median", "p75", "p99", "steps", "precision", "device"})
    tooltip.push_back({{"field", f}});
  json spec = base_spec(
      "step_time",
      chart_title("step time after warm-up", subtitle,
                  {"box: p25 to p75, white tick: median, whiskers: p1 to p99 (last repeat's recorded steps)"}),
      std::move(values));
  spec["width"] = {{"step", 44}};
  spec["layer"] = {
      {{"transform", ok},
       {"mark", {{"type", "rule"}}},
       {"encoding", {{"y", {{"field", "p1"}, {"type", "quantitative"}, {"title", "step time (ms)"}}},
                     {"y2", {{"field", "p99"}}}}}},
      {{"transform", ok},
       {"mark", {{"type", "bar"}, {"size", 16}}},
       {"encoding", {{"y", y}, {"y2", {{"field", "p75"}}}, {"color", precision_color()}, {"tooltip", tooltip}}}},
      {{"transform", ok},
       {"mark", {{"type", "tick"}, {"color", "white"}, {"size", 16}, {"thickness", 2}}},
       {"encoding", {{"y", {{"field", "median"}, {"type", "quantitative"}}}}}},
      {{"transform", json::array({{{"filter", "datum.placeholder != ''"}}})},
       {"mark", {{"type", "text"}, {"angle", 270}, {"align", "left"}, {"baseline", "middle"}, {"dx", 4},
                 {"fontStyle", "italic"}, {"color", "#666"}}},
       {"encoding", {{"y", {{"datum", 0}, {"type", "quantitative"}}},
                     {"text", {{"field", "placeholder"}}},
                     {"tooltip", json::array({{{"field", "scenario"}}, {{"field", "status"}}, {{"field", "reason"}}})}}}},
  };
  for (auto& layer : spec["layer"]) layer["encoding"]["x"] = scenario_axis(order);
  return spec;
}

}  // namespace

std::map<std::string, json> vega_specs(const Report& report, const std::string& baseline) {
  const std::string sub = report_subtitle(report);
  std::map<std::string, json> specs;
  specs["speedup"] = speedup_chart(report, baseline, sub);
  specs["wall_time"] = bar_chart(
      report, "wall_time", chart_title("wall time of the fine-tuning loop (median, order-statistic interval; coverage in the table)", sub),
      "wall time (s)", {{"", [](const ScenarioResult& r) { return interval_bar(r, "wall_time_s", r.wall_time_s); }}});
  specs["throughput"] = bar_chart(report, "throughput",
                                  chart_title("training throughput (median, order-statistic interval; coverage in the table)", sub),
                                  "training samples/s (all ranks)", {{"", [](const ScenarioResult& r) {
                                    return interval_bar(r, "train_samples_per_s", r.train_samples_per_s);
                                  }}},
                                  ".1f");
  specs["test_accuracy"] = bar_chart(
      report, "test_accuracy", chart_title("test accuracy (median over repeats; 95 % Wilson interval on the test split)", sub), "test accuracy (%)",
      {{"", [&report](const ScenarioResult& r) {
         const auto i = test_accuracy_interval(report, r);
         return i ? BarValue{100 * r.test_acc, i->low, i->high, ""}
                  : BarValue{100 * r.test_acc, std::nullopt, std::nullopt, ""};
       }}},
      ".2f");
  specs["epochs"] = epochs_chart(report, sub);
  specs["loss"] = loss_chart(report, sub);
  specs["step_time"] = step_time_chart(report, sub);
  if (auto profile = profile_chart_spec(report, sub)) specs["profile"] = std::move(*profile);  // `run --profile` only
  return specs;
}

json machine_comparison_spec(const std::vector<std::pair<std::string, const Report*>>& labelled) {
  json values = json::array();
  json order = json::array();
  json machines = json::array();
  std::set<std::string> seen;
  std::vector<std::string> lines;
  for (const auto& [label, report] : labelled) {
    machines.push_back(label);
    lines.push_back(label + ": preset " + report_preset(*report));
    for (const auto& r : report->results) {
      if (seen.insert(r.scenario).second) order.push_back(r.scenario);
      json row = row_fields(r);
      row["machine"] = label;
      std::optional<double> v, lo, hi;
      if (r.status == Status::ok) {
        const BarValue b = interval_bar(r, "train_samples_per_s", r.train_samples_per_s);
        v = finite(b.value);
        lo = finite(b.low);
        hi = finite(b.high);
      }
      row["value"] = number_or_null(v);
      row["low"] = number_or_null(v ? lo : std::nullopt);
      row["high"] = number_or_null(v ? hi : std::nullopt);
      row["placeholder"] = v ? "" : placeholder_text(r);
      values.push_back(std::move(row));
    }
  }
  const json offset = {{"field", "machine"}, {"type", "nominal"}, {"sort", machines}};
  const json color = {{"field", "machine"}, {"type", "nominal"}, {"title", "machine"}, {"sort", machines},
                      {"scale", {{"domain", machines}}}, {"legend", {{"orient", "bottom"}, {"direction", "vertical"}}}};
  json spec = base_spec("machines",
                        chart_title("training throughput by machine (median, order-statistic interval; coverage in the table)",
                                    std::to_string(labelled.size()) + " reports (machine, date): preset", lines),
                        std::move(values));
  spec["encoding"] = {{"x", scenario_axis(order)}};
  json tooltip = json::array({{{"field", "machine"}}, {{"field", "scenario"}},
                              {{"field", "value"}, {"title", "samples/s"}, {"format", ".1f"}},
                              {{"field", "low"}, {"title", "interval low"}, {"format", ".1f"}},
                              {{"field", "high"}, {"title", "interval high"}, {"format", ".1f"}},
                              {{"field", "precision"}}, {{"field", "world_size"}, {"title", "ranks"}}});
  spec["layer"] = {
      {{"transform", json::array({{{"filter", "isValid(datum.value)"}}})},
       {"mark", {{"type", "bar"}}},
       {"encoding", {{"y", {{"field", "value"}, {"type", "quantitative"}, {"title", "training samples/s (all ranks)"}}},
                     {"xOffset", offset}, {"color", color}, {"tooltip", tooltip}}}},
      {{"transform", json::array({{{"filter", "isValid(datum.low) && isValid(datum.high) && datum.high > datum.low"}}})},
       {"mark", {{"type", "errorbar"}, {"ticks", true}, {"color", "black"}}},
       {"encoding", {{"y", {{"field", "low"}, {"type", "quantitative"}, {"title", "training samples/s (all ranks)"}}},
                     {"y2", {{"field", "high"}}}, {"xOffset", offset}}}},
      {{"transform", json::array({{{"filter", "datum.placeholder != ''"}}})},
       {"mark", {{"type", "text"}, {"angle", 270}, {"align", "left"}, {"baseline", "middle"}, {"dx", 4},
                 {"fontStyle", "italic"}, {"color", "#666"}}},
       {"encoding", {{"y", {{"datum", 0}, {"type", "quantitative"}}}, {"xOffset", offset},
                     {"text", {{"field", "placeholder"}}},
                     {"tooltip", json::array({{{"field", "machine"}}, {{"field", "scenario"}}, {{"field", "reason"}}})}}}},
  };
  return spec;
}

}  // namespace ftb
