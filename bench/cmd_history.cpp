// ftbench history add DB report.json... | history show DB: the SQLite history
// of nightly reports (reports/analysis/history.h) and its trend per scenario.
#include <iostream>
#include <set>

#include "bench/commands.h"
#include "bench/duet_report.h"
#include "core/base/errors.h"
#include "core/base/files.h"
#include "core/base/json_fields.h"
#include "reports/analysis/history.h"
#include "reports/analysis/trend.h"
#include "reports/views/trend_chart.h"
#include "core/base/json_text.h"

namespace ftb {
namespace {

struct AddArgs {
  std::string db, machine;
  std::vector<std::string> reports;
};

// ", N duet jobs" where the history holds any.
std::string duet_jobs(const HistoryStore& store) {
  const int64_t n = store.duet_count();
  return n > 0 ? ", " + std::to_string(n) + " duet job" + (n == 1 ? "" : "s") : "";
}

// One input file: a report, or a duet job with its first pair's reports.
struct Input {
  nlohmann::json doc;
  std::vector<Report> reports;  // the report; or the duet's side A and B
  bool duet = false;
};

int add(const AddArgs& a) {
  // Every file is read and checked before the first is added: a bad file
  // named on the command line adds nothing.
  std::vector<Input> inputs;
  for (const auto& path : a.reports) {
    Input in;
    in.doc = read_json_file(path);
    in.duet = is_duet_record(in.doc);
    if (in.duet) {
      check_duet_record(in.doc, path);
      auto [ra, rb] = first_pair_reports(path);
      in.reports = {std::move(ra), std::move(rb)};
    } else {
      in.reports.push_back(report_from_json(in.doc, path));  // its measurements checked
    }
    run_key(in.reports.back(), path, a.machine);
    inputs.push_back(std::move(in));
  }
  HistoryStore store(a.db, HistoryStore::Open::create);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& in = inputs[i];
    const std::string& path = a.reports[i];
    if (in.duet) {
      const auto done = store.add_duet(in.doc, in.reports[0], in.reports[1], path, a.machine);
      if (done.added)
        std::cout << "added " << path << " as duet " << done.duet.id << ": machine '" << done.duet.machine
                  << "', preset " << done.duet.preset << ", tonight " << done.duet.git_commit << " against "
                  << done.duet.reference << ", " << done.rows << " rows\n";
      else
        std::cout << path << " is already in the history as duet " << done.duet.id << " (added from "
                  << done.duet.source << "): nothing added\n";
      continue;
    }
    const auto done = store.add(in.doc, in.reports[0], path, a.machine);
    if (done.added)
      std::cout << "added " << path << " as run " << done.run.id << ": machine '" << done.run.machine
                << "', preset " << done.run.preset << ", config " << done.run.config_hash << ", commit "
                << done.run.git_commit << ", " << done.repeats << " repeat rows\n";
    else
      std::cout << path << " is already in the history as run " << done.run.id << " (added from "
                << done.run.source << "): nothing added\n";
  }
  std::cout << a.db << ": " << store.run_count() << " runs" << duet_jobs(store) << "\n";
  return 0;
}

struct ShowArgs {
  std::string db, scenario, metric = "train_samples_per_s", out;
  int window = 20;
};

int show(const ShowArgs& a) {
  const Metric metric = parse_metric(a.metric, "--metric");
  if (a.window < 1) input_error("--window", "must be at least 1");
  if (!a.out.empty()) check_writable_directory(a.out, "--out");
  HistoryStore store(a.db, HistoryStore::Open::existing);
  std::vector<std::string> scenarios = store.scenarios(), duet_scenarios = store.duet_scenarios();
  if (!a.scenario.empty()) {
    const auto has = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), a.scenario) != v.end(); };
    std::set<std::string> names(scenarios.begin(), scenarios.end());
    names.insert(duet_scenarios.begin(), duet_scenarios.end());
    const std::vector<std::string> all(names.begin(), names.end());
    if (!has(all))
      input_error("--scenario", "no runs of '" + a.scenario + "' in " + a.db + " (it has: " +
                                    (all.empty() ? "none" : names_for_message(all, all.size())) + ")");
    scenarios = has(scenarios) ? std::vector<std::string>{a.scenario} : std::vector<std::string>{};
    duet_scenarios = has(duet_scenarios) ? std::vector<std::string>{a.scenario} : std::vector<std::string>{};
  }
  TrendOptions o;
  o.window = a.window;
  std::cout << "## ftbench history: " << a.db << " (" << store.run_count() << " runs" << duet_jobs(store) << ")\n";
  if (scenarios.empty() && duet_scenarios.empty()) std::cout << "\nNo ok scenario in the history yet.\n";
  for (const auto& [scenario, points] : trends(store, scenarios, metric, o)) {
    std::cout << "\n" << trend_markdown(scenario, metric, points);
    if (!a.out.empty()) {
      const std::string path = a.out + "/" + trend_chart_file_name(scenario);
      write_file_atomic(path, json_file_text(trend_chart(scenario, metric, points, o)));
      std::cerr << "wrote " << path << "\n";
    }
  }
  // The duet jobs' ratio series (train_samples_per_s, the duet's metric).
  if (metric == Metric::train_samples_per_s)
    for (const auto& scenario : duet_scenarios)
      std::cout << "\n" << duet_trend_markdown(scenario, store.duet_series(scenario));
  else if (!duet_scenarios.empty())
    std::cout << "\nDuet jobs judge train_samples_per_s only: their series show with that metric.\n";
  return 0;
}

}  // namespace

Command add_history_command(CLI::App& app) {
  auto* sub = app.add_subcommand("history", "keep reports in a SQLite history (add) and show trends (show)");
  sub->require_subcommand(1);

  auto add_args = std::make_shared<AddArgs>();
  auto* add_cmd = sub->add_subcommand("add", "add report.json files, and duet.json files of `ftbench duet` (each "
                                             "row's change against its reference), to the history DB (created if "
                                             "missing; a file already there is skipped)");
  add_cmd->add_option("db", add_args->db, "history file (SQLite)")->required();
  add_cmd->add_option("reports", add_args->reports, "report.json or duet.json files")->required();
  add_cmd->add_option("--machine", add_args->machine,
                      "machine key to file the runs under (default: host | CPU model | GPU names)");

  auto show_args = std::make_shared<ShowArgs>();
  auto* show_cmd = sub->add_subcommand("show", "Markdown table of runs per scenario (time, commit, machine, "
                                               "median with its interval and coverage, the verdict `regress` gave "
                                               "that run against the runs before it, change points with the "
                                               "recorded facts that differ across each) and trend charts with --out");
  show_cmd->add_option("db", show_args->db, "history file (SQLite)")->required();
  show_cmd->add_option("--scenario", show_args->scenario, "only this scenario");
  show_cmd->add_option("--metric", show_args->metric,
                       "train_samples_per_s (default) | steady_samples_per_s | wall_time_s | step_ms_median | "
                       "test_acc | peak_bytes");
  show_cmd->add_option("--window", show_args->window, "runs each run is judged against (default 20)");
  show_cmd->add_option("--out", show_args->out, "folder for the trend charts (DIR/trend_<scenario>.vl.json)");

  return {sub, [add_cmd, add_args, show_args] { return add_cmd->parsed() ? add(*add_args) : show(*show_args); }};
}

}  // namespace ftb
