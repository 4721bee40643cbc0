// ftbench export --format F report.json: the report's figures for
// github-action-benchmark or Bencher (reports/views/exports.h).
#include <iostream>

#include "bench/commands.h"
#include "core/base/files.h"
#include "reports/views/exports.h"
#include "core/base/json_text.h"

namespace ftb {
namespace {

struct ExportArgs {
  std::string format, report, out;
};

int export_cmd(const ExportArgs& a) {
  const ExportFormat f = parse_export_format(a.format, "--format");
  const std::string text = json_file_text(export_report(read_report(a.report), f));
  if (a.out.empty()) std::cout << text;
  else write_file_atomic(a.out, text);
  return 0;
}

}  // namespace

Command add_export_command(CLI::App& app) {
  auto a = std::make_shared<ExportArgs>();
  auto* sub = app.add_subcommand("export", "a report's medians and their intervals for continuous-benchmarking services");
  sub->add_option("--format", a->format,
                  "customBiggerIsBetter | customSmallerIsBetter (github-action-benchmark) | bmf (Bencher)")
      ->required();
  sub->add_option("report", a->report, "report.json")->required();
  sub->add_option("--out", a->out, "write to this file instead of stdout");
  return {sub, [a] { return export_cmd(*a); }};
}

}  // namespace ftb
