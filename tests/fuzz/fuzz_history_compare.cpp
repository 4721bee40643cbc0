// What `history add`, `compare` and `regress --baseline` do with a report
// file beyond reading it: the run key (machine, preset, config hash), the
// report hash, the measurements check, the comparison with a committed report
// (both ways, Markdown and JSON), and the regression verdict against it.
#include <nlohmann/json.hpp>

#include "core/base/json_fields.h"
#include "reports/analysis/compare.h"
#include "reports/analysis/history.h"
#include "reports/analysis/regress.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const nlohmann::json fixture_json = ftb::read_json_file(FTB_FUZZ_REPORT);
  static const ftb::Report fixture = ftb::report_from_json(fixture_json, "fixture");
  const std::string path = ftb::fuzz::write_input(ftb::fuzz::as_view(data, size), "report.json");
  nlohmann::json j;
  ftb::Report report;
  if (!ftb::fuzz::accepts([&] {
        j = ftb::read_json_file(path);
        report = ftb::report_from_json(j, path);
      }))
    return 0;
  ftb::fuzz::accepts([&] {
    ftb::run_key(report, path);
    ftb::report_hash(j);
    ftb::config_hash(report.config);
  });
  ftb::fuzz::accepts([&] {
    ftb::CompareRule rule;
    const ftb::Side a{{fixture}, {"fixture"}}, b{{report}, {path}};
    std::vector<ftb::PairComparison> pairs{ftb::compare_reports(a, b, rule), ftb::compare_reports(b, a, rule),
                                           ftb::compare_reports(ftb::Side{{fixture, report}, {"fixture", path}}, a, rule)};
    ftb::compare_markdown(pairs, rule, true);
    ftb::compare_to_json(pairs, rule, true).dump();
  });
  ftb::fuzz::accepts([&] {
    const ftb::RegressOptions options;
    ftb::regress_markdown(ftb::regress_vs_baseline({{fixture_json, "fixture"}}, j, path, options));
    ftb::regress_markdown(ftb::regress_vs_baseline({{j, path}}, fixture_json, "fixture", options));
    ftb::regress_markdown(ftb::regress_vs_baseline({{j, path}, {fixture_json, "fixture"}}, fixture_json, "fixture", options));
  });
  return 0;
}
