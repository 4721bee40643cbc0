#include "reports/views/phase_table.h"

#include "core/base/text_format.h"

namespace ftb {

namespace {
std::string percent(double share) { return format_percent(share, "%.1f"); }
}  // namespace

std::optional<ResultTable> phase_table(const Report& report) {
  ResultTable t;
  std::vector<std::string> header = {"scenario", "clock"};
  t.right = {false, false};
  for (Phase p : all_phases()) {
    header.push_back(std::string(phase_name(p)) + " %");
    t.right.push_back(true);
  }
  header.push_back("total s");
  header.push_back("real tokens %");
  t.right.push_back(true);
  t.right.push_back(true);
  t.rows.push_back(header);
  for (const auto& r : report.results) {
    if (r.status != Status::ok || r.phases.empty()) continue;
    std::vector<std::string> row = {r.scenario, to_string(r.phases.clock)};
    for (Phase p : all_phases()) row.push_back(percent(r.phases.share(p)));
    row.push_back(format_double("%.2f", r.phases.total()));
    row.push_back(r.real_token_share > 0 ? percent(r.real_token_share) : "-");
    t.rows.push_back(std::move(row));
  }
  if (t.rows.size() == 1) return std::nullopt;
  // Reports since per-repeat phases keep each repeat's; older ones the last repeat's.
  bool per_repeat = false;
  for (const auto& r : report.results)
    for (const auto& s : r.repeats) per_repeat = per_repeat || !s.phases.empty();
  t.notes =
      std::string("Where the time goes (rank 0, ") +
      (per_repeat ? "each phase's median over repeats" : "last repeat") + "): percent of the row's total. Per training step: data_wait (the "
      "host waiting on the loader), h2d_copy, forward, backward, optimizer (zero_grad and step), grad_comm (waiting "
      "for gradient collectives after backward; the overlapped part is in backward), other (step time in no named "
      "phase, e.g. a CUDA-graph replay); then the validation and test passes. steady_clock on a CPU; cuda_events "
      "on a GPU, read once per epoch. The names are the NVTX ranges of an Nsight timeline. real tokens: non-pad "
      "over padded tokens of the training batches (padding is computed on, and wasted).\n";
  return t;
}

}  // namespace ftb
