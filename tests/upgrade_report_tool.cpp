// ftb_upgrade_report REPORT.json: prints the report as the reader sees it
// (upgraded to the current schema version), for tests/schema_checks.sh to
// validate committed v1 reports against reports/record/report.schema.json.
#include <fstream>
#include <iostream>

#include "core/base/errors.h"
#include "reports/record/report_upgrade.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ftb_upgrade_report REPORT.json\n";
    return 2;
  }
  try {
    std::ifstream in(argv[1]);
    if (!in) throw ftb::InputError(std::string(argv[1]) + ": cannot open");
    std::cout << ftb::upgrade_report(nlohmann::json::parse(in)).dump(2) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "ftb_upgrade_report: " << argv[1] << ": " << e.what() << "\n";
    return 2;
  }
  return 0;
}
