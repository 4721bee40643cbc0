// ftbench compare A B [C ...] | --a R1 R2 ... --b S1 S2 ...: machines or
// builds side by side (reports/analysis/compare.h), the run as the unit.
// Markdown to stdout; with --out DIR also compare.md, compare.json and the
// chart spec compare.vl.json. Reports of different configs are refused
// (exit 2, naming the keys) unless --force. One duet.json: its two sides,
// judged pair by pair (bench/duet_report.h).
#include <iostream>
#include <string>
#include <vector>

#include <algorithm>
#include <filesystem>

#include <sys/stat.h>

#include "bench/commands.h"
#include "bench/duet_report.h"
#include "core/base/errors.h"
#include "core/base/files.h"
#include "reports/analysis/compare.h"
#include "reports/views/compare_chart.h"
#include "reports/record/report.h"
#include "core/base/json_text.h"

namespace ftb {
namespace {

struct CompareArgs {
  std::vector<std::string> reports, a, b;
  std::string out, noise;
  bool force = false;
};

// The reports an argument stands for: a report.json; a run folder (its
// report.json); a folder of runs (calibrate's run-K/report.json, sorted).
std::vector<std::string> report_paths(const std::string& arg) {
  struct stat st {};
  if (::stat(arg.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return {arg};
  if (::stat((arg + "/report.json").c_str(), &st) == 0) return {arg + "/report.json"};
  std::vector<std::string> runs;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(arg, ec))
    if (e.is_directory() && std::filesystem::exists(e.path() / "report.json")) runs.push_back((e.path() / "report.json").string());
  std::sort(runs.begin(), runs.end());
  if (runs.empty()) input_error(arg, "a folder without report.json or run folders holding one");
  return runs;
}

Side read_side(const std::vector<std::string>& args) {
  Side side;
  for (const auto& a : args)
    for (const auto& path : report_paths(a)) {
      side.runs.push_back(read_report(path));
      side.names.push_back(path);
    }
  return side;
}

void check_comparable(const PairComparison& p, const std::string& other, const std::string& reference, bool force) {
  const ConfigCheck& c = p.config;
  if (c.comparable() || force) return;
  std::string keys;
  for (size_t k = 0; k < c.differences.size(); ++k) keys += (k ? ", " : "") + describe(c.differences[k]);
  input_error(other, "config differs from " + reference + "'s: " + keys + " (--force compares anyway)");
}

// Every run of a side must be of one configuration.
void check_side(const Side& side, const std::string& flag) {
  for (size_t i = 1; i < side.runs.size(); ++i) {
    const ConfigCheck c = check_configs(side.runs[0].config, side.runs[i].config);
    if (!c.comparable())
      input_error(side.names[i], "config differs from " + side.names[0] + "'s, another run of " + flag + ": " +
                                     describe(c.differences.front()));
  }
}

// One duet.json: its side B against its side A, pair by pair (the duet's
// judge, its own design); --out DIR also writes compare.md and compare.json
// (the job judged again, as duet.json holds it).
int compare_duet(const CompareArgs& args) {
  if (!args.noise.empty()) input_error("--noise", "a duet is judged on its pairs' own spread; it takes no noise file");
  if (!args.out.empty()) check_writable_directory(args.out, "--out");
  DuetJob job = read_duet_file(args.reports.front());
  rejudge(job);
  const std::string markdown = duet_markdown(job);
  std::cout << markdown;
  if (!args.out.empty()) {
    write_file_atomic(args.out + "/compare.md", markdown);
    write_file_atomic(args.out + "/compare.json", json_file_text(duet_json(job)));  // the record never overwritten
    std::cerr << "wrote " << args.out << "/compare.md, compare.json\n";
  }
  return 0;
}

int run(const CompareArgs& args) {
  if (args.reports.size() == 1 && is_duet_file(args.reports.front())) return compare_duet(args);
  if (!args.reports.empty() && (!args.a.empty() || !args.b.empty()))
    input_error("--a", "give reports either as arguments (A B [C ...], one run each) or as --a ... --b ..., not both");
  if (args.reports.empty() && (args.a.empty() || args.b.empty()))
    input_error(args.a.empty() ? "--a" : "--b", "both --a and --b need at least one report (or a folder of runs)");
  if (args.reports.size() == 1)
    input_error("reports", "at least two reports: the reference, then one to compare (or one duet.json)");
  std::vector<Side> sides;
  if (!args.reports.empty()) {
    for (const auto& r : args.reports) sides.push_back(read_side({r}));
  } else {
    sides.push_back(read_side(args.a));
    sides.push_back(read_side(args.b));
    check_side(sides[0], "--a");
    check_side(sides[1], "--b");
  }
  NoiseFile noise;
  if (!args.noise.empty()) noise = read_noise_file(args.noise);
  if (!args.out.empty()) check_writable_directory(args.out, "--out");  // before printing anything

  const CompareRule rule;
  std::vector<PairComparison> pairs;
  for (size_t i = 1; i < sides.size(); ++i) {
    pairs.push_back(compare_reports(sides[0], sides[i], rule, args.noise.empty() ? nullptr : &noise));
    check_comparable(pairs.back(), sides[i].names.front(), sides[0].names.front(), args.force);
  }
  bool forced = false;
  for (const auto& p : pairs) forced = forced || !p.config.comparable();

  const std::string markdown = compare_markdown(pairs, rule, forced);
  std::cout << markdown;
  if (!args.out.empty()) {
    write_file_atomic(args.out + "/compare.vl.json", json_file_text(compare_chart_spec(pairs, rule)));
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
                                 "compare runs (machines, builds): A B [C ...] (one run each, the first the reference) "
                                 "or --a R1 R2 ... --b S1 S2 ... (several runs a side); throughput ratios with 95 % "
                                 "intervals over runs and verdicts per scenario, geometric mean, environment diff");
  sub->add_option("reports", args->reports, "report.json files (or run folders), the reference first; or one "
                                            "duet.json (`ftbench duet`): its side B against its side A, pair by pair");
  sub->add_option("--a", args->a, "the reference side's runs: report.json files, run folders, or a folder of runs");
  sub->add_option("--b", args->b, "the other side's runs");
  sub->add_option("--noise", args->noise, "noise.json from `ftbench calibrate`: the run-to-run noise, so a side of "
                                          "one run can be judged (rows and geometric means)");
  sub->add_option("--out", args->out, "also write DIR/compare.md, compare.json and compare.vl.json");
  sub->add_flag("--force", args->force, "compare reports whose configs differ (the differences are printed)");
  return {sub, [args] { return run(*args); }};
}

}  // namespace ftb
