// ftbench report: re-renders saved reports with no training. One report:
// table.md, charts (specs, SVG, PNG) and index.html into --out (default:
// beside the report). Several: one set per report under --out, plus the
// machine comparison there.
#include <ctime>
#include <iostream>
#include <memory>

#include <sys/stat.h>

#include "bench/commands.h"
#include "core/base/errors.h"
#include "core/base/files.h"
#include "reports/analysis/noise.h"
#include "reports/record/report.h"
#include "reports/views/views.h"

namespace ftb {
namespace {

struct ReportArgs {
  std::vector<std::string> inputs;
  std::string out, noise;
};

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string parent_dir(const std::string& file) {
  const auto slash = file.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : file.substr(0, slash);
}

// The folder's name, for a comparison's sub-folder: "results/cpu-smoke/" -> "cpu-smoke".
std::string base_name(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const auto slash = dir.find_last_of('/');
  const std::string name = slash == std::string::npos ? dir : dir.substr(slash + 1);
  return name.empty() || name == "." || name == ".." || name == "/" ? "report" : name;
}

struct Loaded {
  std::string path;  // the report.json
  Report report;
};

// A report.json, or a folder holding one; its steps from steps.csv beside it
// when there is one (the loss and step-time charts need them).
Loaded load(const std::string& input) {
  Loaded l;
  l.path = is_dir(input) ? (input.back() == '/' ? input : input + "/") + "report.json" : input;
  struct stat st {};
  if (is_dir(input) && ::stat(l.path.c_str(), &st) != 0) input_error(l.path, "no report.json in this folder");
  l.report = read_report(l.path);
  const std::string steps = parent_dir(l.path) + "/steps.csv";
  if (::stat(steps.c_str(), &st) == 0) read_steps_csv(steps, l.report.results);
  return l;
}

std::string default_compare_dir() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&t));
  return std::string("out/compare-") + buf;
}

int run(const ReportArgs& args) {
  std::vector<Loaded> loaded;
  for (const auto& input : args.inputs) loaded.push_back(load(input));  // all read before anything is written
  if (!args.noise.empty()) {
    const nlohmann::json run_noise = run_noise_json(read_noise_file(args.noise), args.noise);
    for (auto& l : loaded) l.report.run_noise = run_noise;
  }
  const Renderer renderer = default_renderer();
  RenderOutcome outcome;
  std::string page;
  if (loaded.size() == 1) {
    const std::string dir = args.out.empty() ? parent_dir(loaded[0].path) : args.out;
    check_writable_directory(dir, args.out.empty() ? dir : "--out");
    outcome = write_report_views({dir, &loaded[0].report, parent_dir(loaded[0].path) == dir}, renderer);
    page = dir + "/index.html";
  } else {
    const std::string dir = args.out.empty() ? default_compare_dir() : args.out;
    check_writable_directory(dir, "--out");
    std::vector<const Report*> reports;
    for (const auto& l : loaded) reports.push_back(&l.report);
    std::vector<ViewSet> sets;
    for (size_t i = 0; i < loaded.size(); ++i) {
      const std::string sub = dir + "/" + std::to_string(i + 1) + "-" + base_name(parent_dir(loaded[i].path));
      make_directories(sub);
      sets.push_back({sub, &loaded[i].report, false});
    }
    outcome = write_comparison_views(dir, sets, comparison_labels(reports), renderer);
    page = dir + "/index.html";
  }
  if (!outcome.rendered) std::cerr << "note: charts not rendered to SVG/PNG: " << outcome.why_not << "\n";
  std::cout << page << "\n";
  return 0;
}

}  // namespace

Command add_report_command(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  auto* sub = app.add_subcommand(
      "report", "re-render saved reports (no training): table.md, charts/*.vl.json, SVG, PNG, index.html");
  sub->add_option("reports", args->inputs, "report.json files or folders holding one; several add a machine comparison")
      ->required();
  sub->add_option("--out", args->out,
                  "output folder (one report: default beside it; several: default out/compare-<date-time>, "
                  "one sub-folder per report)");
  sub->add_option("--noise", args->noise,
                  "noise.json from `ftbench calibrate`: the table's speed-up intervals carry the run-to-run noise it "
                  "measured (the views only; report.json is not rewritten)");
  return {sub, [args] { return run(*args); }};
}

}  // namespace ftb
