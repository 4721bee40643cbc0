#include "reports/record/report_upgrade.h"

#include <cmath>
#include <string>

#include "core/text/errors.h"
#include "core/text/json_fields.h"

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

}  // namespace

json upgrade_report(json report) {
  const std::string schema = JsonFields(report, "").string("schema");
  if (schema == kReportSchemaV3) return report;
  if (schema != kReportSchemaV1 && schema != kReportSchemaV2) {
    throw InputError("schema: '" + schema + "' is not a report version this ftbench reads (" + kReportSchemaV1 +
                     ", " + kReportSchemaV2 + " or " + kReportSchemaV3 + ")");
  }
  const bool v1 = schema == kReportSchemaV1;
  report["schema"] = kReportSchemaV3;
  report["upgraded_from"] = schema;
  if (v1 && report.contains("config")) integers_in_config(report["config"]);
  if (report.contains("results") && report["results"].is_array())
    for (auto& r : report["results"]) {
      if (v1) upgrade_result(r);
      upgrade_intervals(r);
    }
  return report;
}

}  // namespace ftb
