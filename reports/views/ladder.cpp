#include "reports/views/ladder.h"

#include <algorithm>
#include <cstdio>

#include "reports/analysis/intervals.h"

namespace ftb {

namespace {

std::vector<std::string> stack_of(const ScenarioResult& r) {
  std::vector<std::string> s = r.stack;  // as the run's build defined it
  std::sort(s.begin(), s.end());
  return s;
}

bool includes(const std::vector<std::string>& big, const std::vector<std::string>& small) {
  return std::includes(big.begin(), big.end(), small.begin(), small.end());
}

}  // namespace

std::vector<LadderRung> ladder(const Report& report, const std::string& baseline) {
  const ScenarioResult* base = find_result(report, baseline);
  if (base == nullptr || base->status != Status::ok) return {};
  struct Candidate {
    const ScenarioResult* row;
    std::vector<std::string> stack;
  };
  std::vector<Candidate> rows;
  const Candidate* top = nullptr;
  for (const auto& r : report.results) {
    if (r.status != Status::ok || r.scenario == baseline) continue;
    auto s = stack_of(r);
    if (!s.empty()) rows.push_back({&r, std::move(s)});
  }
  for (const auto& c : rows)
    if (top == nullptr || c.stack.size() >= top->stack.size()) top = &c;  // ties: the later row
  if (top == nullptr) return {};
  std::vector<LadderRung> rungs = {{base, {}}};
  std::vector<std::string> current;
  while (current != top->stack) {
    const Candidate* next = nullptr;
    for (const auto& c : rows) {
      if (c.stack.size() <= current.size() || !includes(c.stack, current) || !includes(top->stack, c.stack)) continue;
      if (next == nullptr || c.stack.size() < next->stack.size()) next = &c;
    }
    if (next == nullptr) break;  // cannot happen: top itself qualifies
    LadderRung rung{next->row, {}};
    std::set_difference(next->stack.begin(), next->stack.end(), current.begin(), current.end(),
                        std::back_inserter(rung.adds));
    rungs.push_back(std::move(rung));
    current = next->stack;
  }
  return rungs;
}

std::optional<ResultTable> ladder_table(const Report& report, const std::string& baseline) {
  const auto rungs = ladder(report, baseline);
  if (rungs.size() < 3) return std::nullopt;  // baseline and one row is the table above, not a ladder
  ResultTable t;
  t.rows.push_back({"rung", "row", "adds", "wall time s", "speed-up over rung below", "steady speed-up over rung below",
                    "speed-up over " + baseline, "test acc %", "test acc change (points)"});
  t.right = {true, false, false, true, true, true, true, true, true};
  char buf[64];
  for (std::size_t i = 0; i < rungs.size(); ++i) {
    const ScenarioResult& r = *rungs[i].row;
    std::string adds;
    for (const auto& a : rungs[i].adds) adds += (adds.empty() ? "+" : ", +") + a;
    std::vector<std::string> row = {std::to_string(i), r.scenario, i == 0 ? "(reference loop)" : adds};
    std::snprintf(buf, sizeof buf, "%.2f", r.wall_time_s);
    row.push_back(buf);
    if (i == 0) {
      for (int k = 0; k < 3; ++k) row.push_back("-");
    } else {
      const std::string below = rungs[i - 1].row->scenario;
      const auto step = speedups_vs(report, r, below);
      const auto total = speedups_vs(report, r, baseline);
      row.push_back(step ? format_interval(step->end_to_end, "%.2f", step->by_throughput ? "x*" : "x") : "-");
      row.push_back(step ? format_interval(step->steady_state, "%.2f", "x") : "-");
      row.push_back(total ? format_interval(total->end_to_end, "%.2f", total->by_throughput ? "x*" : "x") : "-");
    }
    row.push_back(format_accuracy(report, r));
    if (i == 0) {
      row.push_back("-");
    } else {
      std::snprintf(buf, sizeof buf, "%+.2f", (r.test_acc - rungs[i - 1].row->test_acc) * 100);
      row.push_back(buf);
    }
    t.rows.push_back(std::move(row));
  }
  t.notes = "Ladder: each rung stacks one more technique (adds) on the rung below and is timed against it, in the same "
            "run; each row's stack is in report.json (results[].stack). Speed-ups as above (wall "
            "time, validation included; steady: samples/s after warm-up).\n";
  return t;
}

}  // namespace ftb
