// Parity: what differs between a row and baseline beyond the row's technique
// is listed, in the report and the table; what the technique changes is not.
#include <doctest/doctest.h>

#include "reports/analysis/parity.h"
#include "reports/views/table.h"

namespace {

ftb::ScenarioResult row(const std::string& name, const std::string& optimizer, ftb::Precision p, int ranks,
                        int threads) {
  ftb::ScenarioResult r;
  r.scenario = name;
  r.optimizer = optimizer;
  r.precision = p;
  r.world_size = ranks;
  r.threads = threads;
  r.wall_time_s = 10;
  r.train_samples_per_s = 100;
  r.repeats.push_back({});
  return r;
}

}  // namespace

TEST_CASE("parity: differences beyond the technique are listed, the technique's own are not") {
  using ftb::Precision;
  ftb::Report report;
  report.config = {{"batch_size", 32}, {"max_length", 128}, {"padding", "longest"}, {"epochs", 3},
                   {"max_steps", 0}, {"workload", {{"data_source", "synthetic(count=6000, seed=123)"}}}};
  report.results = {row("baseline", "adam/loop", Precision::fp32, 1, 2),
                    row("ddp", "adam/fused, flat buckets", Precision::fp32, 2, 1),
                    row("amp_bf16", "adam/loop", Precision::bf16_mixed, 1, 1),
                    row("ddp_fp16", "adam/loop", Precision::fp16_mixed, 2, 2)};  // records no technique
  // What each row's technique changes, as a run records it (ScenarioInfo -> result).
  report.results[1].technique_settings = {ftb::RowSetting::world_size, ftb::RowSetting::threads};
  report.results[2].technique_settings = {ftb::RowSetting::precision};
  const auto& base = report.results[0];
  CHECK(ftb::parity_differences(report, base, "baseline").empty());

  // ddp changes ranks and the thread split; its optimizer is not its technique
  const auto ddp = ftb::parity_differences(report, report.results[1], "baseline");
  REQUIRE(ddp.size() == 1);
  CHECK(ddp[0].setting == ftb::RowSetting::optimizer);
  CHECK(ftb::describe(ddp, "baseline") == "optimizer adam/fused, flat buckets (baseline: adam/loop)");

  // amp_bf16 changes precision; a different thread count is a parity break
  const auto amp = ftb::parity_differences(report, report.results[2], "baseline");
  REQUIRE(amp.size() == 1);
  CHECK(amp[0].setting == ftb::RowSetting::threads);

  // a row that records no technique settings: every difference is listed
  CHECK(ftb::parity_differences(report, report.results[3], "baseline").size() == 2);

  const auto j = ftb::parity_json(report, report.results[1], "baseline");
  CHECK(j.at("technique") == nlohmann::json::array({"ranks", "threads"}));
  CHECK(j.at("differs")[0].at("setting") == "optimizer");

  const std::string table = ftb::speedup_table_markdown(report);
  CHECK(table.find("# beyond its technique: threads 1 (baseline: 2)") != std::string::npos);
  CHECK(table.find("Every row: batch 32 per rank, max_length 128, padding longest, data synthetic(count=6000, "
                   "seed=123), 3 epoch(s).") != std::string::npos);
}
