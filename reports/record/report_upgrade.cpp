#include "reports/record/report_upgrade.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/base/json_fields.h"

namespace ftb {

using nlohmann::json;

namespace {

// RunConfig's integer keys (core/train/run_config.cpp, FTB_NUM with an
// integer type). v1 wrote every number as a double (32.0).
constexpr const char* kIntegerConfigKeys[] = {
    "repeats", "world_size", "epochs", "batch_size", "eval_batch_size", "seed", "max_steps",
    "eval_max_batches", "warmup_steps", "max_length", "limit", "synthetic_count", "vocab_size",
    "prefetch", "dim", "n_layers", "n_heads", "hidden_dim", "model_vocab_size", "threads"};

void integers_in_config(json& config) {
  if (!config.is_object()) return;  // the reader names it
  for (const char* key : kIntegerConfigKeys) {
    auto it = config.find(key);
    if (it == config.end() || !it->is_number_float()) continue;
    const double v = it->get<double>();
    if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 9.0e15) *it = static_cast<int64_t>(v);
  }
}

// What v2 requires of a result and v1 could lack: `optimizer` from v1's
// extra.adam (the kernel, when recorded), `threads` 0 = not recorded,
// `distributed` null = one process (or not recorded).
void upgrade_result(json& r) {
  if (!r.is_object()) return;  // the reader names it
  if (!r.contains("optimizer")) {
    std::string optimizer;
    auto extra = r.find("extra");
    if (extra != r.end() && extra->is_object()) {
      auto adam = extra->find("adam");
      if (adam != extra->end() && adam->is_string()) optimizer = "adam/" + adam->get<std::string>();
    }
    r["optimizer"] = optimizer;
  }
  if (!r.contains("threads")) r["threads"] = 0;
  if (!r.contains("distributed")) r["distributed"] = nullptr;
}

// v2's intervals were percentile bootstraps labelled 95 % whatever their n
// reached: v3 keeps their bounds as low/high with coverage unknown (null).
void upgrade_interval(json& i) {
  if (!i.is_object() || !i.contains("ci95_low")) return;
  i["low"] = i["ci95_low"];
  i["high"] = i["ci95_high"];
  i.erase("ci95_low");
  i.erase("ci95_high");
  i["coverage"] = nullptr;
  i["method"] = "percentile bootstrap (ftbench.report/2; coverage not stated)";
}

void upgrade_intervals(json& r) {
  if (!r.is_object()) return;
  for (const char* group : {"intervals", "speedup"}) {
    auto g = r.find(group);
    if (g == r.end() || !g->is_object()) continue;
    for (auto& [key, value] : g->items()) {
      (void)key;
      upgrade_interval(value);
    }
  }
}

// v4 records in each result what its technique changes and what it stacks on
// baseline, as the build that ran it defined them. Builds up to v3 defined
// them in their scenario registry, frozen here as those builds had them (a
// row they did not know gets none: every difference is then named).
struct LegacyTechnique {
  const char* scenario;
  std::vector<const char*> settings, stack;
};

const std::vector<LegacyTechnique>& legacy_techniques() {
  static const std::vector<LegacyTechnique> table = {
      {"baseline", {}, {}},
      {"fused_adam", {"optimizer"}, {"fused_adam"}},
      {"trainer", {}, {}},
      {"amp", {"precision"}, {}},
      {"amp_bf16", {"precision"}, {"bf16"}},
      {"bucketed", {}, {"bucketing"}},
      {"cuda_graph", {"optimizer"}, {"fused_adam", "graph"}},
      {"cuda_graph_bf16", {"optimizer", "precision"}, {"bf16", "fused_adam", "graph"}},
      {"cuda_graph_fp16", {"optimizer", "precision"}, {"fp16", "fused_adam", "graph"}},
      {"ddp", {"ranks", "threads"}, {}},
      {"sharded", {"ranks", "threads"}, {}},
      {"zero2", {"ranks", "threads"}, {}},
      {"fabric", {"ranks", "threads", "precision"}, {}},
      {"peer", {}, {}},
      {"peer_amp", {"precision"}, {}},
      {"peer_amp_compiled", {"precision"}, {}},
      {"fastest", {"optimizer", "precision"}, {}},  // its stack: extra.stack, per device
      {"largest_batch", {"batch_size"}, {}},
  };
  return table;
}

void technique_from_legacy(json& r) {
  if (!r.is_object()) return;  // the reader names it
  const LegacyTechnique* known = nullptr;
  if (auto name = r.find("scenario"); name != r.end() && name->is_string())
    for (const auto& t : legacy_techniques())
      if (*name == t.scenario) known = &t;
  if (!r.contains("technique_settings")) {
    // A v3 report wrote them as parity.technique; older ones did not.
    const auto parity = r.find("parity");
    if (parity != r.end() && parity->is_object() && parity->contains("technique") && (*parity)["technique"].is_array())
      r["technique_settings"] = (*parity)["technique"];
    else
      r["technique_settings"] = known ? json(known->settings) : json::array();
  }
  if (!r.contains("stack")) {
    const auto extra = r.find("extra");
    if (extra != r.end() && extra->is_object() && extra->contains("stack") && (*extra)["stack"].is_array())
      r["stack"] = (*extra)["stack"];  // fastest wrote what it stacked there
    else
      r["stack"] = known ? json(known->stack) : json::array();
  }
}

}  // namespace

json legacy_technique_table() {
  json out = json::object();
  for (const auto& t : legacy_techniques()) out[t.scenario] = {{"technique_settings", t.settings}, {"stack", t.stack}};
  return out;
}

json upgrade_report(json report) {
  const std::string schema = JsonFields(report, "").string("schema");
  if (schema == kReportSchemaV5) return report;
  if (schema != kReportSchemaV1 && schema != kReportSchemaV2 && schema != kReportSchemaV3 &&
      schema != kReportSchemaV4) {
    throw InputError("schema: '" + schema + "' is not a report version this ftbench reads (" + kReportSchemaV1 +
                     ", " + kReportSchemaV2 + ", " + kReportSchemaV3 + ", " + kReportSchemaV4 + " or " +
                     kReportSchemaV5 + ")");
  }
  const bool v1 = schema == kReportSchemaV1;
  const bool before_v3 = schema == kReportSchemaV1 || schema == kReportSchemaV2;
  const bool before_v4 = before_v3 || schema == kReportSchemaV3;
  // v5 only adds optional keys (measured memory per phase, the parameter
  // count, the launcher and hosts, operator profiles, environment facts): a
  // v4 report is a v5 report without them.
  report["schema"] = kReportSchemaV5;
  report["upgraded_from"] = schema;
  if (v1 && report.contains("config")) integers_in_config(report["config"]);
  if (report.contains("results") && report["results"].is_array())
    for (auto& r : report["results"]) {
      if (v1) upgrade_result(r);
      if (before_v3) upgrade_intervals(r);
      if (before_v4) technique_from_legacy(r);
    }
  return report;
}

}  // namespace ftb
