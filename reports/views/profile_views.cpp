#include "reports/views/profile_views.h"
#include "reports/views/vega.h"

#include "core/base/text_format.h"
#include "reports/analysis/profile.h"

namespace ftb {
namespace {

std::string pct(double share) { return format_percent(share, "%.0f %%"); }
std::string ms(double s) { return format_double("%.2f", 1000 * s); }

bool any_profile(const Report& report) {
  for (const auto& r : report.results)
    if (r.status == Status::ok && has_profile(r.profile)) return true;
  return false;
}

std::string top_text(const OpProfile& p) {
  std::string out;
  for (const auto& o : top_operators(p, p.device, kTopOperators))
    out += (out.empty() ? "" : ", ") + o.name + " " + pct(o.share);
  return out;
}

std::string categories_text(const OpProfile& p) {
  std::string out;
  for (const auto& c : profile_categories(p, p.device))
    if (c.share >= 0.005) out += (out.empty() ? "" : ", ") + to_string(c.category) + " " + pct(c.share);
  return out;
}

// What accounts for the row's change in step time from baseline's: the two
// largest categories and operators, each with its share of the change.
std::string vs_baseline_text(const Report& report, const ScenarioResult& r, const std::string& baseline) {
  if (r.scenario == baseline) return "-";
  const ScenarioResult* b = find_result(report, baseline);
  if (!b || b->status != Status::ok || !has_profile(b->profile)) return "-";
  const ProfileDiff d = profile_diff(*b->profile, *r.profile);
  auto lines = [](const std::vector<DiffLine>& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size() && i < 2; ++i)
      out += (i ? ", " : "") + v[i].name + " " + (v[i].change_s >= 0 ? "+" : "") + ms(v[i].change_s) + " ms (" +
             pct(v[i].share) + ")";
    return out;
  };
  return (d.change_s >= 0 ? "+" : "") + ms(d.change_s) + " ms: " + lines(d.categories) + "; " + lines(d.operators);
}

}  // namespace

std::optional<ResultTable> profile_table(const Report& report, const std::string& baseline) {
  if (!any_profile(report)) return std::nullopt;
  ResultTable t;
  t.rows.push_back({"scenario", "steps", "ms/step", "operators %", "top operators (share of the step)",
                    "categories (share of the step)", "vs " + baseline + ": change a step, what accounts for it"});
  t.right = {false, true, true, true, false, false, false};
  std::string not_profiled;
  bool device = false;
  for (const auto& r : report.results) {
    if (r.status != Status::ok || !r.profile) continue;
    const OpProfile& p = *r.profile;
    if (!has_profile(p)) {
      not_profiled += "- " + r.scenario + ": " + p.note + "\n";
      continue;
    }
    device = device || p.device;
    const double step = p.wall_s / static_cast<double>(p.steps);
    const double ops = p.device ? p.device_busy_s : p.host_ops_s;
    t.rows.push_back({r.scenario, std::to_string(p.steps), ms(step), format_double("%.1f", 100 * ops / p.wall_s),
                      top_text(p), categories_text(p), vs_baseline_text(report, r, baseline)});
  }
  t.notes = std::string("Operator profiles: after each row's timed repeats, an extra untimed pass ran its steps after "
                        "the warm-up under LibTorch's Kineto profiler (no figure above includes it); traces in "
                        "profiles/<row>.trace.json.gz (Perfetto, chrome://tracing). ") +
            (device ? "On a GPU, shares are of device time (kernels; idle = no kernel running in the step); "
                    : "") +
            "host shares are operators' self time (own time minus the operators they called) over the profiled "
            "steps' wall time; operators % = the part of the step inside operators (the rest: untracked host code). "
            "Categories come from the name rules of reports/analysis/profile.cpp; operators in the optimizer phase "
            "count as optimizer. vs " + baseline + ": the row's profiled step minus " + baseline +
            "'s, and the categories and operators whose time changed most, with their share of that change.\n";
  if (!not_profiled.empty()) t.notes += "\nNot profiled:\n" + not_profiled;
  return t;
}

std::optional<nlohmann::json> profile_chart_spec(const Report& report, const std::string& subtitle) {
  if (!any_profile(report)) return std::nullopt;
  nlohmann::json values = nlohmann::json::array(), order = nlohmann::json::array(), categories = nlohmann::json::array();
  for (OpCategory c : all_op_categories()) categories.push_back(to_string(c));
  bool device = false;
  for (const auto& r : report.results) {
    if (r.status != Status::ok || !has_profile(r.profile)) continue;
    const OpProfile& p = *r.profile;
    device = device || p.device;
    order.push_back(r.scenario);
    for (const auto& c : profile_categories(p, p.device))
      values.push_back({{"scenario", r.scenario},
                        {"category", to_string(c.category)},
                        {"category_order", static_cast<int>(c.category)},
                        {"ms_per_step", 1000 * c.step_s},
                        {"share", c.share},
                        {"basis", p.device ? "device time" : "host self time"}});
  }
  const std::string what = device ? "device time (GPU rows) or host self time" : "host self time";
  return nlohmann::json{
      {"$schema", "https://vega.github.io/schema/vega-lite/v5.json"},
      {"title",
       {{"text", wrapped_lines({"where a profiled step's time goes, by operator category (" + what + ")"}, kTitleLineChars - 20)},
        {"subtitle", wrapped_lines({subtitle, "untimed profiling pass after the timed repeats (`run --profile`); ms per step"})},
        {"anchor", "start"}}},
      {"description", "ftbench profile (generated from report.json)"},
      {"data", {{"values", values}}},
      {"mark", "bar"},
      {"encoding",
       {{"y", {{"field", "scenario"}, {"type", "nominal"}, {"sort", order}, {"title", nullptr}}},
        {"x", {{"field", "ms_per_step"}, {"type", "quantitative"}, {"stack", "zero"}, {"title", "ms per profiled step"}}},
        {"color",
         {{"field", "category"}, {"type", "nominal"}, {"scale", {{"domain", categories}}}, {"title", "category"}}},
        {"order", {{"field", "category_order"}, {"type", "quantitative"}}},
        {"tooltip",
         {{{"field", "scenario"}},
          {{"field", "category"}},
          {{"field", "ms_per_step"}, {"format", ".2f"}},
          {{"field", "share"}, {"format", ".1%"}},
          {{"field", "basis"}}}}}}};
}

std::string profile_console_lines(const Report& report, std::size_t width) {
  if (!any_profile(report)) return "";
  std::string out = "\nprofiled (untimed pass, top operators by share of the step; every operator and category: "
                    "table.md):\n";
  for (const auto& r : report.results) {
    if (r.status != Status::ok || !has_profile(r.profile)) continue;
    out += wrap_text("- " + r.scenario + ": " + top_text(*r.profile) + "; " + categories_text(*r.profile), width, 2) +
           "\n";
  }
  return out;
}

}  // namespace ftb
