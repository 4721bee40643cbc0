// ftbench compare A B [C ...]: machines or builds side by side (reports/compare.h).
// Markdown to stdout; with --out DIR also compare.md, compare.json and the
// chart spec compare.vl.json. Reports of different configs are refused
// (exit 2, naming the keys) unless --force.
#include <iostream>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "bench/commands.h"
#include "core/text/errors.h"
#include "core/text/files.h"
#include "reports/compare.h"
#include "reports/compare_chart.h"
#include "reports/report.h"
#include "core/text/json_text.h"

namespace ftb {
namespace {

struct CompareArgs {
  std::vector<std::string> reports;
  std::string out;
  bool force = false;
};

// A run's folder stands for its report.json.
std::string report_path(const std::string& arg) {
  struct stat st {};
  if (::stat(arg.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return arg + "/report.json";
  return arg;
}

int run(const CompareArgs& args) {
  std::vector<Report> reports;
  for (const auto& a : args.reports) reports.push_back(read_report(report_path(a)));
  if (!args.out.empty()) check_writable_directory(args.out, "--out");  // before printing anything

  const CompareRule rule;
  std::vector<PairComparison> pairs;
  for (size_t i = 1; i < reports.size(); ++i) {
    pairs.push_back(compare_reports(reports[0], args.reports[0], reports[i], args.reports[i], rule));
    const ConfigCheck& c = pairs.back().config;
    if (!c.comparable() && !args.force) {
      std::string keys;
      for (size_t k = 0; k < c.differences.size(); ++k) keys += (k ? ", " : "") + describe(c.differences[k]);
      input_error(args.reports[i], "config differs from " + args.reports[0] + "'s: " + keys +
                                       " (--force compares anyway)");
    }
  }
  bool forced = false;
  for (const auto& p : pairs) forced = forced || !p.config.comparable();

  const std::string markdown = compare_markdown(pairs, rule, forced);
  std::cout << markdown;
  if (!args.out.empty()) {
    write_file_atomic(args.out + "/compare.vl.json", json_file_text(compare_chart_spec(pairs)));
    write_file_atomic(args.out + "/compare.json", json_file_text(compare_to_json(pairs, rule, forced)));
    write_file_atomic(args.out + "/compare.md", markdown);
    std::cerr << "wrote " << args.out << "/compare.md, compare.json, compare.vl.json\n";
  }
  return 0;
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  auto* sub = app.add_subcommand("compare",
                                 "compare reports (machines, builds): the first is the reference; throughput ratios "
                                 "with 95 % intervals and verdicts per scenario, geometric mean, environment diff");
  sub->add_option("reports", args->reports, "report.json files (or run folders), the reference first")
      ->required()
      ->expected(2, -1);
  sub->add_option("--out", args->out, "also write DIR/compare.md, compare.json and compare.vl.json");
  sub->add_flag("--force", args->force, "compare reports whose configs differ (the differences are printed)");
  return {sub, [args] { return run(*args); }};
}

}  // namespace ftb
