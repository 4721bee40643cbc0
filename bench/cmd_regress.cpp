// ftbench regress --history DB | --baseline R --current R [R ...]: did
// tonight's report regress? Markdown on stdout, with what changed beside a
// regression (--json FILE: the same as JSON, regress_to_json); exit 1 on a gating regression (reports/analysis/regress.h has
// the rules). Several --current reports are tonight's runs judged together
// (a confirmation rerun after a first alarm: docs/nightly.md). A duet.json
// as --current is judged pair by pair by the duet's judge (it carries its
// own reference, side A); with --history, the ratio series of the jobs
// before it follow.
#include <iostream>

#include "bench/commands.h"
#include "bench/duet_report.h"
#include "core/base/errors.h"
#include "core/base/files.h"
#include "core/base/json_fields.h"
#include "core/base/json_text.h"
#include "reports/analysis/regress.h"
#include "reports/analysis/trend.h"

namespace ftb {
namespace {

struct RegressArgs {
  std::string history, noise, fail_on = "throughput", machine, out, json;
  std::vector<std::string> baseline, current;
  int window = 20, min_runs = 3;
  double family_alpha = 0.005, min_effect = 0.03;
};

// --current DIR/duet.json: the duet's verdicts at this command's --alpha and
// --min-effect where given (else the job's own), the jobs before it from
// --history.
int regress_duet(const RegressArgs& a, const CLI::App& sub) {
  if (!a.baseline.empty()) input_error("--baseline", "a duet.json carries its own reference (side A): give it alone or with --history");
  if (!a.noise.empty()) input_error("--noise", "a duet is judged on its pairs' own spread; it takes no noise file");
  if (!a.json.empty()) input_error("--json", "writes ftbench.regress/2 for reports; a duet's record is its duet.json");
  const std::string& path = a.current.front();
  const nlohmann::json record = read_json_file(path);
  DuetJob job = duet_from_json(record, path);
  if (sub.count("--alpha")) job.design.family_alpha = a.family_alpha;
  if (sub.count("--min-effect")) job.design.min_effect = a.min_effect;
  if (const auto why = stats::design_problem(job.design); !why.empty()) input_error("--alpha/--min-effect", why);
  rejudge(job);
  std::string md = duet_markdown(job);
  if (!a.history.empty()) {
    const auto [side_a, side_b] = first_pair_reports(path);
    const DuetRun tonight = duet_run(record, side_a, side_b, path, a.machine);
    HistoryStore store(a.history, HistoryStore::Open::existing);
    for (const auto& row : job.rows)  // the jobs before this one, on its machine and configuration
      if (const auto series = store.duet_series(row, &tonight); !series.empty()) md += "\n" + duet_trend_markdown(row, series);
  }
  std::cout << md;
  if (!a.out.empty()) write_file_atomic(a.out, md);
  return any_worse(job) || !job.failure.empty() ? 1 : 0;
}

int regress(const RegressArgs& a, const CLI::App& sub) {
  if (a.current.size() == 1 && is_duet_file(a.current.front())) return regress_duet(a, sub);
  if (a.history.empty() == a.baseline.empty())
    input_error("--history", "give exactly one of --history DB or --baseline report.json [report.json ...]");
  if (a.window < 1) input_error("--window", "must be at least 1");
  if (a.min_runs < 1) input_error("--min-runs", "must be at least 1");
  if (!(a.family_alpha > 0 && a.family_alpha < 1)) input_error("--alpha", "must be in (0, 1)");
  if (!(a.min_effect >= 0 && a.min_effect < 1)) input_error("--min-effect", "must be in [0, 1)");
  RegressOptions o;
  o.window = a.window;
  o.rule.min_nights = a.min_runs;
  o.rule.family_alpha = a.family_alpha;
  o.rule.min_effect = a.min_effect;
  o.fail_on = parse_gates(a.fail_on, "--fail-on");
  o.machine = a.machine;
  NoiseFile noise;
  if (!a.noise.empty()) {
    noise = read_noise_file(a.noise);
    o.noise = &noise;
    o.noise_path = a.noise;
  }
  std::vector<NamedReport> tonight;
  for (const auto& c : a.current) tonight.push_back({read_json_file(c), c});
  RegressSummary s;
  if (!a.history.empty()) {
    HistoryStore store(a.history, HistoryStore::Open::existing);
    s = regress_vs_history(store, a.history, tonight, o);
  } else {
    std::vector<NamedReport> baselines;
    for (const auto& b : a.baseline) baselines.push_back({read_json_file(b), b});
    s = regress_vs_baseline(baselines, tonight, o);
  }
  const std::string md = regress_markdown(s);
  std::cout << md;
  if (!a.out.empty()) write_file_atomic(a.out, md);
  if (!a.json.empty()) write_file_atomic(a.json, json_file_text(regress_to_json(s)));
  return s.regressed() ? 1 : 0;
}

}  // namespace

Command add_regress_command(CLI::App& app) {
  auto a = std::make_shared<RegressArgs>();
  auto* sub = app.add_subcommand("regress", "judge a report against its history (or one baseline report); "
                                            "exit 1 on a regression");
  sub->add_option("--history", a->history, "history DB (ftbench history add)");
  sub->add_option("--baseline", a->baseline, "baseline report.json file(s) instead of a history: its runs (one run "
                                              "alone cannot tell without --noise)");
  sub->add_option("--current", a->current, "tonight's report.json; several: tonight's independent runs judged "
                                           "together (a confirmation rerun after a first alarm); or one duet.json "
                                           "(`ftbench duet`), judged pair by pair against its side A")
      ->required();
  sub->add_option("--window", a->window, "last N runs of the same machine, scenario, preset and config (default 20)");
  sub->add_option("--min-runs", a->min_runs, "nights the history needs before throughput is judged (default 3)");
  sub->add_option("--alpha", a->family_alpha, "whole-report false-alarm rate, Holm over every scenario (default 0.005)");
  sub->add_option("--min-effect", a->min_effect, "relative change that matters at all (default 0.03)");
  sub->add_option("--fail-on", a->fail_on, "gating metrics: throughput,accuracy,memory (default throughput)");
  sub->add_option("--noise", a->noise, "noise.json from `ftbench calibrate`: the run-to-run noise (weighted in by its "
                                       "degrees of freedom)");
  sub->add_option("--machine", a->machine, "machine key (as given to `history add --machine`)");
  sub->add_option("--out", a->out, "also write the Markdown summary to this file");
  sub->add_option("--json", a->json, "also write the summary as JSON to this file (schema ftbench.regress/2: each "
                                     "row's verdict, change with its interval, p, what changed, and for \"cannot "
                                     "tell\" why and what would settle it)");
  return {sub, [a, sub] { return regress(*a, *sub); }};
}

}  // namespace ftb
