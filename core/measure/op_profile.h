// An operator profile of a few steady training steps (`ftbench run --profile`):
// the record (what report.json keeps of a row's profile) and the pure
// function that turns the profiler's events into it. No LibTorch here: the
// profiler (op_profiler.h) hands plain events over, and the reports read the
// record without linking LibTorch.
//
// Self time: an operator's time minus the time of the operators it called
// (aten::linear calls aten::addmm: addmm's time is addmm's, not linear's),
// so the self times of a step's operators add up to the host time spent in
// operators, and the rest of the step is host code in no operator.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ftb {

// One event of the profiler, as it came: a host operator or range (thread
// set, on_device false), or a device activity (kernel, copy, set; on_device true).
struct ProfileEvent {
  std::string name;
  uint64_t thread = 0;  // host thread id (device events: the stream)
  int64_t start_ns = 0, end_ns = 0;
  bool on_device = false;
  bool range = false;  // a range of ours (a phase, a step), not an operator
};

// One operator (host) or kernel (device) over the profiled steps; a host
// operator once per phase it ran in (aten::mul in forward and in optimizer).
struct OpStat {
  std::string name;
  std::string phase;  // host: the innermost range of ours around it ("forward", "optimizer"); "" = none
  int64_t calls = 0;
  double self_s = 0;  // host: self time; device: kernel time
};

// How summarize_profile counts, as an OpProfile records it
// (summary_version): 1 = before issue 29 (no c10d::* or
// ftb::dist::grad_ready_hook operators; a range took its whole span off the
// operator around it), 2 = since. Two profiles summarised by different
// versions are not compared operator by operator (reports/analysis/profile.h,
// profile_diff): the new operators would read as growth.
inline constexpr int kOpSummaryVersion = 2;

struct OpProfile {
  int summary_version = kOpSummaryVersion;  // JSON: absent = 1 (reports before it)
  int64_t steps = 0;          // steady training steps profiled (after the warm-up steps)
  double wall_s = 0;          // those steps' wall time, summed (the step ranges of the trace)
  double host_ops_s = 0;      // sum of the host operators' self times
  // Time the thread running the steps was runnable but waited for a CPU
  // (the kernel's run delay, /proc/thread-self/schedstat), summed over the
  // steps: another process's load, inside operators or between them; absent
  // where the kernel does not say (no schedstat).
  std::optional<double> cpu_wait_s;
  bool device = false;        // device activities recorded (CUDA through CUPTI)
  double device_busy_s = 0;   // union of device activity inside the steps
  double device_idle_s = 0;   // the steps' wall time with no device activity (launch gaps, host waits)
  std::vector<OpStat> host;   // by self time, largest first (per name and phase)
  std::vector<OpStat> device_ops;
  std::string trace;          // the Chrome trace, relative to the report's folder
  std::string note;           // how it was taken (outside every timed figure), and anything missing
};

// The name of the range around each profiled step ("ProfilerStep#3", as
// torch.profiler names it, so trace tools find the steps).
std::string profiler_step_name(int64_t step);
bool is_profiler_step(const std::string& name);

// Summarises `events`: the steps are the ranges named by profiler_step_name;
// only operators inside a step count (host: every thread, each nested by
// time; device: activity overlapping the step, clipped to it). Ranges other
// than the steps (the phases) are not operators: they name the phase of the
// operators inside them.
OpProfile summarize_profile(const std::vector<ProfileEvent>& events, bool device);

nlohmann::json to_json(const OpProfile& p);
// InputError naming `where` and the key on a malformed record.
OpProfile op_profile_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace ftb
