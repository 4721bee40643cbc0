// The report reader (read_report): JSON, the upgrade of ftbench.report/1,
// every result and repeat sample, the measurements check; then the steps.csv
// reader on the same bytes, attached to the accepted report's rows.
#include "reports/record/report.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes = ftb::fuzz::as_view(data, size);
  ftb::Report report;
  ftb::fuzz::accepts([&] { report = ftb::read_report(ftb::fuzz::write_input(bytes, "report.json")); });
  static const ftb::Report fixture = ftb::read_report(FTB_FUZZ_REPORT);
  std::vector<ftb::ScenarioResult> rows = report.results.empty() ? fixture.results : report.results;
  ftb::fuzz::accepts([&] { ftb::read_steps_csv(ftb::fuzz::write_input(bytes, "steps.csv"), rows); });
  return 0;
}
