#include "reports/analysis/parity.h"

#include <algorithm>

namespace ftb {

using nlohmann::json;

namespace {

// "cuda:1" and "cuda:0" are the same kind of device; a CPU row beside a GPU
// baseline is not.
std::string device_kind(const std::string& d) { return d.substr(0, d.find(':')); }

}  // namespace

std::vector<ParityDifference> parity_differences(const Report& report, const ScenarioResult& r,
                                                 const std::string& baseline) {
  const ScenarioResult* base = find_result(report, baseline);
  if (!base || base == &r || base->status != Status::ok || r.status != Status::ok) return {};
  const std::vector<RowSetting>& technique = r.technique_settings;  // as the run's build defined them
  std::vector<ParityDifference> out;
  auto check = [&](RowSetting s, const std::string& row, const std::string& base_value) {
    if (row == base_value || row.empty() || base_value.empty()) return;  // "" = not recorded (older reports)
    if (std::find(technique.begin(), technique.end(), s) != technique.end()) return;
    out.push_back({s, row, base_value});
  };
  check(RowSetting::optimizer, r.optimizer, base->optimizer);
  check(RowSetting::precision, to_string(r.precision), to_string(base->precision));
  check(RowSetting::world_size, std::to_string(r.world_size), std::to_string(base->world_size));
  check(RowSetting::threads, r.threads > 0 ? std::to_string(r.threads) : "",
        base->threads > 0 ? std::to_string(base->threads) : "");
  check(RowSetting::device, device_kind(r.device), device_kind(base->device));
  return out;
}

std::string describe(const std::vector<ParityDifference>& d, const std::string& baseline) {
  std::string out;
  for (const auto& x : d)
    out += (out.empty() ? "" : "; ") + to_string(x.setting) + " " + x.row + " (" + baseline + ": " + x.baseline + ")";
  return out;
}

json parity_json(const Report& report, const ScenarioResult& r, const std::string& baseline) {
  json differs = json::array();
  for (const auto& d : parity_differences(report, r, baseline))
    differs.push_back({{"setting", to_string(d.setting)}, {"row", d.row}, {"baseline", d.baseline}});
  json technique = json::array();
  for (RowSetting s : r.technique_settings) technique.push_back(to_string(s));
  return {{"baseline", baseline}, {"differs", differs}, {"technique", technique}};
}

std::string shared_settings(const Report& report) {
  const json& c = report.config;
  auto text = [&](const char* key) -> std::string {
    const auto it = c.find(key);
    if (it == c.end() || it->is_null()) return "?";
    return it->is_string() ? it->get<std::string>() : it->dump();
  };
  std::string data = "?";
  if (const auto w = c.find("workload"); w != c.end() && w->is_object() && w->contains("data_source") &&
                                         (*w)["data_source"].is_string())
    data = (*w)["data_source"].get<std::string>();
  // accumulate=K (absent in older reports: 1): a step is K micro-batches.
  const std::string accumulate = text("accumulate");
  const std::string batch =
      accumulate == "?" || accumulate == "1"
          ? "batch " + text("batch_size") + " per rank"
          : "micro-batch " + text("batch_size") + " per rank, accumulate " + accumulate +
                " (an optimizer step: " + accumulate + " micro-batches; a step's samples are " + accumulate +
                " x batch x ranks)";
  return batch + ", max_length " + text("max_length") + ", padding " +
         text("padding") + ", data " + data + ", " + text("epochs") + " epoch(s)" +
         (text("max_steps") != "0" && text("max_steps") != "?" ? " of at most " + text("max_steps") + " steps" : "") +
         (c.contains("allocator") ? ", malloc " + text("allocator") : "");
}

}  // namespace ftb
