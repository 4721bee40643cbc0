// ftbench history add DB report.json... | history show DB: the SQLite history
// of nightly reports (reports/analysis/history.h) and its trend per scenario.
#include <iostream>

#include "bench/commands.h"
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

int add(const AddArgs& a) {
  // Every report is read and checked before the first is added: a bad file
  // named on the command line adds nothing.
  std::vector<nlohmann::json> docs;
  std::vector<Report> reports;
  for (const auto& path : a.reports) {
    docs.push_back(read_json_file(path));
    reports.push_back(report_from_json(docs.back(), path));  // its measurements checked
    run_key(reports.back(), path, a.machine);
  }
  HistoryStore store(a.db, HistoryStore::Open::create);
  for (size_t i = 0; i < docs.size(); ++i) {
    const auto done = store.add(docs[i], reports[i], a.reports[i], a.machine);
    if (done.added)
      std::cout << "added " << a.reports[i] << " as run " << done.run.id << ": machine '" << done.run.machine
                << "', preset " << done.run.preset << ", config " << done.run.config_hash << ", commit "
                << done.run.git_commit << ", " << done.repeats << " repeat rows\n";
    else
      std::cout << a.reports[i] << " is already in the history as run " << done.run.id << " (added from "
                << done.run.source << "): nothing added\n";
  }
  std::cout << a.db << ": " << store.run_count() << " runs\n";
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
  std::vector<std::string> scenarios = store.scenarios();
  if (!a.scenario.empty()) {
    if (std::find(scenarios.begin(), scenarios.end(), a.scenario) == scenarios.end())
      input_error("--scenario", "no runs of '" + a.scenario + "' in " + a.db + " (it has: " +
                                    (scenarios.empty() ? "none" : names_for_message(scenarios, scenarios.size())) + ")");
    scenarios = {a.scenario};
  }
  TrendOptions o;
  o.window = a.window;
  std::cout << "## ftbench history: " << a.db << " (" << store.run_count() << " runs)\n";
  if (scenarios.empty()) std::cout << "\nNo ok scenario in the history yet.\n";
  for (const auto& [scenario, points] : trends(store, scenarios, metric, o)) {
    std::cout << "\n" << trend_markdown(scenario, metric, points);
    if (!a.out.empty()) {
      const std::string path = a.out + "/" + trend_chart_file_name(scenario);
      write_file_atomic(path, json_file_text(trend_chart(scenario, metric, points, o)));
      std::cerr << "wrote " << path << "\n";
    }
  }
  return 0;
}

}  // namespace

Command add_history_command(CLI::App& app) {
  auto* sub = app.add_subcommand("history", "keep reports in a SQLite history (add) and show trends (show)");
  sub->require_subcommand(1);

  auto add_args = std::make_shared<AddArgs>();
  auto* add_cmd = sub->add_subcommand("add", "add report.json files to the history DB (created if missing; "
                                             "a report already there is skipped)");
  add_cmd->add_option("db", add_args->db, "history file (SQLite)")->required();
  add_cmd->add_option("reports", add_args->reports, "report.json files")->required();
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
