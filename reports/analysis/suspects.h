// What changed: the recorded facts that decide a kernel's speed, compared
// between a set of reference runs (the nights behind a regressed row's level,
// the runs before a change point, baseline reports) and the runs judged
// (tonight's, the runs after a change point). `regress` prints them next to
// a regression, `history show` at each change point.
//
// A fact is a suspect when every run on both sides recorded it and the two
// sides share no value (a fact that already varied among the reference nights
// and takes one of those values tonight is not one). A fact some run did not
// record (an older report, a machine without cpufreq) is listed as "not
// recorded", never as a difference.
//
// Order, most decisive first (the order of environment_facts.h's table, its
// facts that decide a kernel's speed):
//   1. processor: CPU vendor, family, model, stepping, model name, the
//      instruction sets (AMX, AVX-512 BF16/VNNI, AVX-512F, AVX2), ATen's
//      dispatch ISA, the GPUs: they decide which kernels exist at all and
//      the peak they reach; another processor explains a step of any size.
//   2. compute: cores available, intra/inter-op threads: on a small CPU one
//      thread fewer is most of a step.
//   3. libraries and build: LibTorch, CUDA, cuDNN, NCCL, MKL, oneDNN, BLAS,
//      attention implementation, build type, compiler: they choose the
//      kernel that runs on that processor.
//   4. driver: the NVIDIA driver and the CUDA version it supports.
//   5. kernel release: scheduling, page handling, mitigations.
//   6. frequency and power: cpufreq governor and driver, GPU clocks and power
//      limit.
//   7. thread, kernel and allocator settings: the watched variables
//      (OMP/MKL threads, ATEN_CPU_CAPABILITY, PYTORCH_CUDA_ALLOC_CONF, ...),
//      ftbench's malloc mode.
//   8. data: the data's content hash (config.workload.data_hash).
//   9. ftbench's commit and tree: a nightly's commit changes every night,
//      so it says least by itself (the change point's commit range names it).
// Within a group, the table's order. Pure: no LibTorch, no I/O.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/measure/op_profile.h"
#include "reports/analysis/environment_facts.h"
#include "reports/record/environment.h"
#include "reports/record/report.h"

namespace ftb {

// One fact, flattened: "cpu.family" = "25"; no value = not recorded.
struct SpeedFact {
  std::string key;    // dotted, as in report.json ("cpu.isa.amx_bf16"; gpus.name, nvml.gpus.power_limit_w)
  std::string group;  // processor, compute, libraries, driver, kernel, frequency, settings, data, ftbench
  std::optional<std::string> value;
};
// Every fact the table knows, in decisive order (keys whose value is null or
// absent carry no value).
std::vector<SpeedFact> speed_facts(const RunFacts& run);

// What a suspect is: an environment fact, or (where both sides carry an
// operator profile of the row, `run --profile`) an operator whose time per
// profiled step grew with the slowdown.
enum class SuspectKind { environment, operator_time };
std::string to_string(SuspectKind k);

struct Suspect {
  SuspectKind kind = SuspectKind::environment;
  std::string key, group;  // operator: its name and category
  std::vector<std::string> before, after;  // distinct values, first seen first (operator: its ms a profiled step)
  double change_s = 0, share = 0;          // operator: its change a profiled step, and its share of the step's
  double before_s = 0, after_s = 0;        // operator: its time a profiled step on each side
  std::string text() const;  // "cpu.family (processor): 23 -> 25"; "operator aten::addmm (matmul): 12.0 -> 42.0 ms
                             // a profiled step (+30.0 ms, 100 % of the step's change)"
};

struct WhatChanged {
  std::vector<Suspect> suspects;        // environment facts most decisive first, then operators (largest change first)
  std::vector<std::string> not_recorded;  // keys recorded by some run but not by every one, decisive order
  int compared = 0;                     // facts every run on both sides recorded
  std::string profiles;                 // operator suspects: which runs' profiles were compared ("" = none)
  bool empty() const { return suspects.empty() && not_recorded.empty(); }
};
WhatChanged what_changed(const std::vector<RunFacts>& before, const std::vector<RunFacts>& after);

// The operator suspects of a slower row, from one profile on each side
// (`run --profile`; `from` names the runs they come from): the operators
// whose time a profiled step grew, largest change first (at most three),
// appended to w.suspects, and w.profiles saying which profiles and steps.
// `measured_growth` is the slowdown the repeats measured, as the relative
// growth of the step time (0.25: a step takes 25 % longer;
// step_time_growth). Operators are named only where the profiled step grew
// by at least half of it (kProfiledShareOfSlowdown); otherwise w.profiles
// says the profiled steps do not show the slowdown, and where the two
// profiles were summarised by different ftbench versions
// (OpProfile::summary_version) that they are not comparable. `regress`
// (beside a regression) and `history show` (at a change point) both use this
// one. A profile is an untimed pass of a few steps: it names where a slowdown
// the repeats measured went, it does not measure one.
inline constexpr double kProfiledShareOfSlowdown = 0.5;
void add_operator_suspects(WhatChanged& w, const OpProfile& before, const std::string& before_from,
                           const OpProfile& after, const std::string& after_from, double measured_growth);
// A measured relative change of a metric as the relative growth of the step
// time: a rate (higher is better) that changed by -0.2 is a step 25 % longer;
// a time's change is its own.
double step_time_growth(double change, bool rate);
// The profile of `scenario` in a report as read (nullopt: none, or one
// without steps).
std::optional<OpProfile> profile_in(const Report& report, const std::string& scenario);

// Markdown lines (each "- ..."): the environment suspects, or "- no recorded
// fact differs (N compared)", then one line naming the facts not recorded on
// every side, then the operator suspects with the profiles they come from
// (or, where no operator is named, one line saying why: the profiles do not
// show the slowdown, or are not comparable).
std::vector<std::string> what_changed_lines(const WhatChanged& w);
// The same as JSON (regress.json): environment suspects {key, group, before,
// after}, operator suspects {name, category, before_step_s, after_step_s,
// change_s, share_of_change}, not_recorded, compared, profiles.
nlohmann::json what_changed_json(const WhatChanged& w);

}  // namespace ftb
