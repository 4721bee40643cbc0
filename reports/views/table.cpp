#include "reports/views/table.h"

#include <map>

#include "core/base/errors.h"

#include "core/base/text_format.h"
#include "reports/analysis/accuracy_verdict.h"
#include "reports/analysis/intervals.h"
#include "reports/views/ladder.h"
#include "reports/analysis/parity.h"
#include "reports/views/memory_table.h"
#include "reports/views/phase_table.h"
#include "reports/views/profile_views.h"
#include "reports/views/report_labels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace ftb {

namespace {

const char* const kDash = "-";

// "-" for values that are not measurements (non-finite, or <= 0 where zero
// means "not measured", e.g. peak memory on a platform without a counter).
std::string fixed(double v, const char* fmt, bool zero_is_missing = false) {
  if (!std::isfinite(v) || (zero_is_missing && v <= 0)) return kDash;
  return format_double(fmt, v);
}

// 83.42 -> "1:23.4 (83.42 s)": minutes for people, seconds for scripts.
std::string wall_time(double s) {
  if (!std::isfinite(s) || s < 0) return kDash;
  const long long tenths = std::llround(s * 10);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%lld:%02lld.%lld (%.2f s)", tenths / 600, (tenths % 600) / 10, tenths % 10, s);
  return buf;
}

// "18.7 % of 0.226 fp32": the MFU and the measured matmul peak it is a
// fraction of (environment.peak_matmul_tflops, TFLOP/s per device), with the
// runner's rule: the row's precision's peak, else fp32's (a CPU measures fp32 only).
// Above 100 % the peak cannot have been the device's: it was measured while
// something else held the device (or pinned too low), so the cell says that
// instead of a percentage no reader should quote.
std::string mfu_of_peak(const Report& report, const ScenarioResult& r) {
  if (!std::isfinite(r.mfu) || r.mfu <= 0) return kDash;
  std::string peak;
  const nlohmann::json* env = report.environment.find("peak_matmul_tflops");
  if (env && env->is_object() && env->contains("by_precision")) {
    const auto& peaks = env->at("by_precision");
    for (const std::string& p : {to_string(r.precision), to_string(Precision::fp32)}) {
      if (peaks.contains(p) && peaks[p].is_number() && peaks[p].get<double>() > 0) {
        peak = format_double("%.3g", peaks[p].get<double>()) + " " + p;
        break;
      }
    }
  }
  if (r.mfu > 1.0)
    return "- (peak " + (peak.empty() ? std::string("measured") : peak) + " below the achieved " +
           format_double("%.3g", r.model_tflops_per_s) + ": measured under load)";
  const std::string pct = format_double("%.1f %%", r.mfu * 100);
  return peak.empty() ? pct : pct + " of " + peak;
}

// The reference's own results (docs/reference.md, results/reference/tutorial-results.md):
// one A100, four for the distributed steps; test accuracy where it gives one.
struct ReferenceFigure {
  const char* scenario;
  double minutes;
  double test_acc_pct;  // NaN: not given
  const char* note;
};
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
const ReferenceFigure kReferenceA100[] = {
    {"baseline", 21.33, 89.92, ""},
    {"trainer", 21.79, 92.6, "best checkpoint"},
    {"amp", 8.25, 93.2, ""},
    {"cuda_graph", 5.6, kNone, "torch.compile warmed up; 8.44 min cold"},
    {"ddp", 3.07, 93.1, "4 GPUs"},
    {"sharded", 2.58, kNone, "4 GPUs"},
    {"zero2", 2.75, 92.6, "4 GPUs, DeepSpeed"},
    {"fabric", 1.8, kNone, "4 GPUs, zero2 16-mixed"},
};

// "21.33 min, 89.92 %" (+ its note); "-" for a row the reference does not have.
std::string reference_figure(const std::string& scenario) {
  for (const auto& f : kReferenceA100) {
    if (scenario != f.scenario) continue;
    std::string s = format_double("%.4g min", f.minutes);
    if (std::isfinite(f.test_acc_pct)) s += format_double(", %.4g %%", f.test_acc_pct);
    if (*f.note) s += std::string(" (") + f.note + ")";
    return s;
  }
  return kDash;
}

}  // namespace

std::vector<std::string> row_notes(const Report& report, const ScenarioResult& r, const std::string& baseline) {
  std::vector<std::string> notes;
  if (!r.reason.empty()) notes.push_back(r.reason);
  if (r.status != Status::ok) return notes;
  // The difference between two rows must be the technique: say what else differs.
  if (const auto d = parity_differences(report, r, baseline); !d.empty())
    notes.push_back("# beyond its technique: " + describe(d, baseline));
  // A row whose technique is the batch (largest_batch) says which one it found.
  if (const auto b = r.extra.find("batch_size"); b != r.extra.end() && b->is_number_integer()) {
    std::string n = "batch " + std::to_string(b->get<int64_t>());
    if (const auto lr = r.extra.find("lr"); lr != r.extra.end() && lr->is_number())
      n += ", lr " + format_double("%.3g", lr->get<double>());
    notes.push_back(n);
  }
  if (const auto s = r.extra.find("sharding_note"); s != r.extra.end() && s->is_string())
    notes.push_back(s->get<std::string>());
  if (speedup_from_throughput(report, r, baseline))
    if (const ScenarioResult* base = find_result(report, baseline))
      notes.push_back("* samples/s ratio: trained on " + std::to_string(r.train_samples) + " samples, baseline on " +
                      std::to_string(base->train_samples) + " (max_steps caps steps, not samples)");
  return notes;
}

NumberedNotes numbered_notes(const Report& report, const std::string& baseline) {
  NumberedNotes out;
  std::map<std::string, std::size_t> number_of;
  for (const auto& r : report.results) {
    std::string refs;
    if (r.status == Status::skipped) {
      // One line each (a reason may hold a newline: escaped, core/base/errors.h).
      out.not_run.push_back(one_line(r.scenario + ": " + (r.reason.empty() ? "(no reason given)" : r.reason)));
    } else {
      for (const auto& n : row_notes(report, r, baseline)) {
        auto it = number_of.find(n);
        if (it == number_of.end()) {
          out.footnotes.push_back(one_line(n));
          it = number_of.emplace(n, out.footnotes.size()).first;
        }
        refs += (refs.empty() ? "" : ",") + std::to_string(it->second);
      }
    }
    out.refs.push_back(refs.empty() ? "" : "[" + refs + "]");
  }
  return out;
}

namespace {

// One row of the speed-up table: a result that ran (ok or failed).
std::vector<std::string> speedup_row(const Report& report, const ScenarioResult& r, const std::string& baseline,
                                     const std::string& refs, bool paper) {
  // threads = intra-op threads per rank: on a CPU, ranks x threads is the
  // core split the row ran with (a single process gets all the cores).
  std::vector<std::string> row = {r.scenario, to_string(r.status), r.device, std::to_string(r.world_size),
                                  r.threads > 0 ? std::to_string(r.threads) : kDash, to_string(r.precision),
                                  r.optimizer.empty() ? kDash : r.optimizer};
  if (r.status == Status::ok) {
    const auto speedups = speedups_vs(report, r, baseline);
    row.push_back(wall_time(r.wall_time_s));
    const bool by_throughput = speedups && speedups->by_throughput;
    row.push_back(speedups ? format_interval(speedups->end_to_end, "%.2f", by_throughput ? "x*" : "x") : kDash);
    row.push_back(speedups ? format_interval(speedups->steady_state, "%.2f", "x") : kDash);
    row.push_back(fixed(r.train_samples_per_s, "%.1f", true));
    row.push_back(format_accuracy(report, r));
    const auto keeps = accuracy_vs_baseline(report, r, baseline);
    row.push_back(keeps ? keeps_accuracy_cell(*keeps) : kDash);
    row.push_back(fixed(r.val_acc * 100, "%.2f"));
    row.push_back(fixed(static_cast<double>(r.peak_bytes) / (1024.0 * 1024.0), "%.1f", true));
    row.push_back(mfu_of_peak(report, r));
  } else {
    for (int k = 0; k < 9; ++k) row.push_back(kDash);
  }
  if (paper) row.push_back(reference_figure(r.scenario));
  row.push_back(refs);
  return row;
}

// The keeps-accuracy column's rule, as the report's configuration sets it.
std::string keeps_accuracy_legend(const Report& report, const std::string& baseline) {
  const std::string m = format_double("%.3g", accuracy_min_effect_points(report.config));
  return (seeds_per_repeat(report.config)
              ? "each repeat retrained with its own seed; the row's and " + baseline +
                    "'s paired by seed, a t interval over the seeds' differences (training luck on this test split). "
              : "the first repeats' models compared example by example on the test split (exact McNemar, Newcombe's "
                "interval: the test sample's luck, not the training run's; seed_per_repeat=on asks for seeds). ") +
         "yes: same (the 95 % interval inside +-" + m + " points: accuracy_min_effect) or higher; no: lower by " + m +
         " points or more with the test rejecting at 0.05; cannot tell otherwise. (difference [interval]) in points.";
}

// What the intervals say about a second run: nothing, or (with a calibrate
// file, --noise) the run-to-run noise it measured.
std::string second_run_note(const Report& report) {
  if (!report.run_noise.is_object())
    return "repeats of one run share its luck, so the interval says nothing of a second run "
           "(compare several runs for that, or give --noise).";
  const auto source = report.run_noise.find("source");
  const auto runs = report.run_noise.find("runs");
  return "speed-up intervals marked r2r carry the run-to-run noise: Student's t with the speed-up's sd over " +
         (runs != report.run_noise.end() ? runs->dump() : std::string("?")) + " runs of `ftbench calibrate` (" +
         (source != report.run_noise.end() && source->is_string() ? source->get<std::string>() : "?") +
         "; end-to-end from samples/s), 95 %; a row it has no estimate for keeps the within-run interval.";
}

// The text under the table: footnotes, rows not run, and the legend.
std::string speedup_legend(const Report& report, const std::string& baseline, const NumberedNotes& notes) {
  int repeats = 0;
  for (const auto& r : report.results) repeats = std::max(repeats, static_cast<int>(r.repeats.size()));
  std::string under;
  // One entry per line in Markdown too: footnotes as a list, like the not-run list.
  for (std::size_t k = 0; k < notes.footnotes.size(); ++k)
    under += "- [" + std::to_string(k + 1) + "] " + notes.footnotes[k] + "\n";
  if (!notes.not_run.empty()) {
    under += "\nNot run here:\n";
    for (const auto& n : notes.not_run) under += "- " + n + "\n";
  }
  if (!under.empty()) under += "\n";  // the legend is its own paragraph
  return under + "speed-up: " + baseline + "'s wall time over the row's (end-to-end, validation included, as the "
         "reference times it); steady speed-up: samples/s after warm-up (samples over step and loader-wait time) over " + baseline +
         "'s. test acc: correct of the test examples, with its 95 % Wilson interval [in points] where the whole split was "
         "scored (its n: the workload's test_examples; the interval is the test sample's, not a second training run's). "
         "keeps accuracy: " + keeps_accuracy_legend(report, baseline) + " Medians of up to " + std::to_string(repeats) + " repeat(s) of one run; [interval] where a row has "
         "two or more: order statistics of the per-round ratios (distribution-free), with its coverage where it is "
         "not 95 % (3 repeats reach 75 %, 5 reach 94 %); " + second_run_note(report) + " Times, accuracy and the step time behind MFU are medians over repeats. # marks a setting that differs "
         "from " + baseline + "'s beyond what the row's technique changes. Every row: " + shared_settings(report) + ".\n";
}

}  // namespace

ResultTable speedup_table(const Report& report, const std::string& baseline) {
  struct Column {
    const char* title;
    bool numeric;  // right-aligned
  };
  std::vector<Column> columns = {
      {"scenario", false},  {"status", false},     {"device", false},    {"ranks", true},
      {"threads", true},    {"precision", false}, {"optimizer", false}, {"wall time", true},   {"speed-up", true}, {"steady speed-up", true},   {"samples/s", true},
      {"test acc %", true}, {"keeps accuracy (points vs baseline)", false}, {"val acc %", true},   {"peak MiB", true},   {"MFU (of peak TFLOP/s)", true},
  };
  // The paper preset runs the reference's workload: its own figures go beside ours.
  const bool paper = report_preset(report) == "paper";
  if (paper) columns.push_back({"reference A100 (docs/reference.md)", false});
  columns.push_back({"notes", false});
  std::vector<std::vector<std::string>> table{{}};
  std::vector<bool> right;
  for (const auto& c : columns) {
    table[0].push_back(c.title);
    right.push_back(c.numeric);
  }
  const NumberedNotes notes = numbered_notes(report, baseline);
  for (std::size_t i = 0; i < report.results.size(); ++i) {
    const ScenarioResult& r = report.results[i];
    if (r.status == Status::skipped) continue;  // in the "Not run here" list
    table.push_back(speedup_row(report, r, baseline, notes.refs[i], paper));
  }
  return {table, right, speedup_legend(report, baseline, notes)};
}

std::string speedup_table_markdown(const Report& report, const std::string& baseline) {
  const ResultTable t = speedup_table(report, baseline);
  std::string out = format_table(t.rows, t.right, TableStyle::markdown) + "\n" + t.notes;
  if (const auto rungs = ladder_table(report, baseline))
    out += "\n" + format_table(rungs->rows, rungs->right, TableStyle::markdown) + "\n" + rungs->notes;
  if (const auto phases = phase_table(report))
    out += "\n" + format_table(phases->rows, phases->right, TableStyle::markdown) + "\n" + phases->notes;
  if (const auto memory = memory_table(report))
    out += "\n" + format_table(memory->rows, memory->right, TableStyle::markdown) + "\n" + memory->notes;
  if (const auto profiles = profile_table(report, baseline))
    out += "\n" + format_table(profiles->rows, profiles->right, TableStyle::markdown) + "\n" + profiles->notes;
  return out;
}

}  // namespace ftb
