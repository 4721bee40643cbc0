// Reading a row's operator profile (core/measure/op_profile.h, `run
// --profile`): operators grouped into categories by a small explicit table of
// name rules, the top operators, and the diff of two profiles (which
// operators and categories account for the change in step time). Pure
// functions of the record, no LibTorch: the views and `compare` call them.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/measure/op_profile.h"

namespace ftb {

// What an operator's time is spent on. `untracked`: host time of a step in
// no operator (the loop's own code, autograd's bookkeeping between
// operators); `idle`: on a GPU, the step's time with no kernel running
// (launch gaps, host waits).
enum class OpCategory { matmul, attention, elementwise_norm, optimizer, communication, copies, other, untracked, idle };
const std::vector<OpCategory>& all_op_categories();
std::string to_string(OpCategory c);  // "matmul", "attention", "elementwise_norm", ...

// The rule table (first match wins; case-insensitive substrings of the name,
// reports/analysis/profile.cpp lists them), with the phase: a host operator
// in the optimizer phase is optimizer time, whatever its name (Adam's loop
// kernel is aten::mul, aten::sqrt ... on a CPU).
OpCategory op_category(const std::string& name, const std::string& phase, bool device_kernel);

struct CategoryTime {
  OpCategory category;
  double step_s = 0;  // per profiled step
  double share = 0;   // of the step's wall time
};
// Host categories (untracked included) or, where the profile has device
// activity and `device` is true, device categories (idle included); each
// in the order of all_op_categories, zero ones left out.
std::vector<CategoryTime> profile_categories(const OpProfile& p, bool device);
// The basis the views and diffs use: device time where recorded, else host.
inline bool profile_basis_device(const OpProfile& p) { return p.device; }

// One operator name (summed over its phases) per profiled step.
struct OperatorTime {
  std::string name;
  OpCategory category;
  int64_t calls_per_step = 0;
  double step_s = 0;
  double share = 0;  // of the step's wall time
};
// The `n` operators (host or device) with the most time, largest first.
std::vector<OperatorTime> top_operators(const OpProfile& p, bool device, std::size_t n);

// What accounts for the change in step time from `a` to `b` (per profiled
// step: b - a). share = the line's change over the step's change (positive:
// moved with it). Lines are sorted by the size of their change, largest
// first, so a slowed operator comes first.
struct DiffLine {
  std::string name;  // operator name, or the category's
  double a_step_s = 0, b_step_s = 0, change_s = 0, share = 0;
};
struct ProfileDiff {
  bool device = false;  // device time (both profiles have it), else host self time
  double a_step_s = 0, b_step_s = 0, change_s = 0;
  // false where the two were summarised by different ftbench versions
  // (OpProfile::summary_version): then no operator or category lines (an
  // operator the newer summary names, c10d::wait, would read as growth).
  bool comparable = true;
  int a_version = kOpSummaryVersion, b_version = kOpSummaryVersion;
  std::vector<DiffLine> operators, categories;
};
ProfileDiff profile_diff(const OpProfile& a, const OpProfile& b);
// "the profiles are not comparable (summarised by different ftbench
// versions: summary_version 1 and 2)"; "" where they are.
std::string not_comparable_text(const ProfileDiff& d);

// One line: "step 12.1 -> 7.9 ms (-4.2 ms): attention -2.1 ms (50 %), matmul ..."
// with the `n` largest categories and operators.
std::string describe_diff(const ProfileDiff& d, std::size_t n);
// The diff as JSON (compare.json's profile_diff): basis, step seconds, lines.
nlohmann::json profile_diff_json(const ProfileDiff& d);

// The record plus what the views read from it (each operator's share, the
// categories), as report.json's result.profile: derived on every write,
// never read back.
nlohmann::json profile_report_json(const OpProfile& p);

// A profile with steps in it (not a "not profiled" note).
inline bool has_profile(const OpProfile& p) { return p.steps > 0 && p.wall_s > 0; }
inline bool has_profile(const std::optional<OpProfile>& p) { return p && has_profile(*p); }

}  // namespace ftb
