// The profiling pass of a row (`run --profile`, scenarios/profile_pass.h) on
// a tiny CPU row: the Chrome trace it writes and the summary in the result.
#include <doctest/doctest.h>
#include <zlib.h>

#include <nlohmann/json.hpp>

#include <set>

#include "core/base/files.h"
#include "core/train/workload.h"
#include "reports/analysis/profile.h"
#include "scenarios/profile_pass.h"
#include "scenarios/registry.h"
#include "tests/tiny_config.h"

namespace {

std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string out;
  char buf[65536];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

}  // namespace

// Fails if the trace is not gzip'ed Chrome-trace JSON, if the profiled steps
// or the phase ranges are missing from it, if no operator ("ph":"X",
// cpu_op) lies inside a profiled step, or if the summary's operator self
// times do not account for the profiled steps' wall time within 10 % (the
// issue's bound). The rest of a step is host time between operators,
// reported as `untracked`: about 375 top-level operators a step with a
// median 1.2-1.7 us between two (dispatch and the profiler's own callbacks),
// 0.1-0.2 ms where autograd's engine starts backward, ~0.1 ms after the last
// operator. On tiny_config's 6 ms step that is ~20 % (measured: operators
// 9.7 of 12.1 ms over 2 steps), so the row here is wider and longer (a step
// of tens of ms, like the quick preset's), where it is a few percent.
TEST_CASE("profile pass: a tiny row's trace is Chrome-trace JSON with operators inside the profiled steps") {
  auto config = profiled_config();
  const auto workload = ftb::build_workload(config);
  ftb::TempDir out("ftb-profile-");
  const ftb::OpProfile p = ftb::profile_row(*ftb::find_scenario("baseline"), workload, config, out.path());
  REQUIRE_MESSAGE(p.steps == 2, p.note);
  CHECK(p.trace == "profiles/baseline.trace.json.gz");
  CHECK(p.note.find("not part of any timed figure") != std::string::npos);
  CHECK(p.host_ops_s <= p.wall_s * 1.001);
  CHECK_MESSAGE(p.host_ops_s >= 0.9 * p.wall_s, "operators ", p.host_ops_s, " s of ", p.wall_s, " s");
  CHECK_FALSE(p.host.empty());

  const auto trace = nlohmann::json::parse(gunzip(out.path() + "/" + p.trace));
  REQUIRE(trace.contains("traceEvents"));
  struct Span {
    double begin, end;
  };
  std::vector<Span> steps;
  std::set<std::string> ranges;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    const std::string name = e.value("name", "");
    if (ftb::is_profiler_step(name)) steps.push_back({e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
    if (e.value("cat", "") == "user_annotation") ranges.insert(name);
  }
  REQUIRE(steps.size() == 2);
  // Steps 2 and 3: after the one warm-up step.
  CHECK(ranges.count(ftb::profiler_step_name(2)) == 1);
  CHECK(ranges.count(ftb::profiler_step_name(3)) == 1);
  for (const char* phase : {"h2d_copy", "forward", "backward", "optimizer"}) CHECK_MESSAGE(ranges.count(phase), phase);
  int inside = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") != "X" || e.value("cat", "") != "cpu_op") continue;
    const double t = e["ts"].get<double>();
    for (const auto& s : steps)
      if (t >= s.begin && t + e["dur"].get<double>() <= s.end) ++inside;
  }
  CHECK(inside > 20);

  // The report's derived view of it: categories cover the step.
  double shares = 0;
  for (const auto& c : ftb::profile_categories(p, false)) shares += c.share;
  CHECK(shares == doctest::Approx(1.0).epsilon(0.01));
}

// A row that replays CUDA graphs has its device profile labelled unverified
// (issue 43, 8): CUPTI before CUDA 13.1 Update 1 misrecords graph kernels, and
// no GPU run has shown such a profile right yet. Host-only profiles and other
// rows keep their note.
TEST_CASE("profile pass: a CUDA-graph row's device profile is labelled unverified, others are not") {
  ftb::OpProfile p;
  p.note = "taken";
  p.device = true;
  const ftb::ScenarioInfo* graph = ftb::find_scenario("cuda_graph");
  const ftb::ScenarioInfo* fastest = ftb::find_scenario("fastest");
  const ftb::ScenarioInfo* baseline = ftb::find_scenario("baseline");
  REQUIRE((graph && fastest && baseline));
  CHECK(ftb::label_graph_profile(p, *graph).find("UNVERIFIED") != std::string::npos);
  CHECK(ftb::label_graph_profile(p, *fastest).find("UNVERIFIED") != std::string::npos);
  CHECK(ftb::label_graph_profile(p, *baseline) == "taken");
  p.device = false;
  CHECK(ftb::label_graph_profile(p, *graph) == "taken");
}
