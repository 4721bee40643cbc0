// Timing the phases of training steps without waiting on the device per step.
// The loop owns a PhaseRecorder and brackets each step (begin_step/end_step);
// code inside the step marks its phases with PhaseScope, which reports to the
// recorder made active on this thread (like LibTorch's own thread-local
// guards: the step functions of the scenarios keep their signature).
//   CPU:  steady-clock marks (the CPU runs the ops as they are called).
//   CUDA: events recorded on the current stream at each mark; the elapsed
//         times are read once per epoch (collect_epoch), after one wait for
//         the last event: no host synchronisation inside the epoch.
// Every PhaseScope is also an NVTX range of the same name (nvtx_range.h),
// and a profiler range of that name (a user-scope record function, inert
// unless a profiler runs: op_profiler.h), so traces show the report's phases.
#pragma once

#include <ATen/record_function.h>
#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <vector>

#include "core/measure/nvtx_range.h"
#include "core/measure/phases.h"

namespace ftb {

class PhaseRecorder {
 public:
  explicit PhaseRecorder(const torch::Device& device);
  ~PhaseRecorder();
  PhaseRecorder(const PhaseRecorder&) = delete;
  PhaseRecorder& operator=(const PhaseRecorder&) = delete;

  void begin_step();
  void end_step();
  // The last step's time, for a CPU recorder (on a device it would wait).
  double last_step_ms() const { return ms_between(steps_.back().begin, steps_.back().end); }
  // The epoch's steps, read from their marks (waits for the device once):
  // step_ms of each step in order; adds the step phases (and `other`, the
  // step time in no named phase) into `totals`. Clears the marks.
  std::vector<double> collect_epoch(PhaseTimes& totals);
  PhaseClock clock() const;

 private:
  friend class PhaseScope;
  int mark();  // records "now" on this recorder's clock; returns its index
  double ms_between(int a, int b) const;
  bool in_step() const { return in_step_; }
  void add_phase(Phase p, int begin, int end) { steps_.back().phases.push_back({p, begin, end}); }

  struct Interval {
    Phase phase;
    int begin, end;
  };
  struct StepMarks {
    int begin = -1, end = -1;
    std::vector<Interval> phases;
  };
  struct DeviceMarks;  // CUDA events (FTB_WITH_CUDA), out of this header
  torch::Device device_;
  std::vector<std::chrono::steady_clock::time_point> host_marks_;
  std::unique_ptr<DeviceMarks> device_marks_;
  int marks_ = 0;
  std::vector<StepMarks> steps_;
  bool in_step_ = false;
};

// Makes `recorder` the one this thread's PhaseScopes report to, for the
// guard's lifetime (the previous one is restored).
class ActivePhaseRecorder {
 public:
  explicit ActivePhaseRecorder(PhaseRecorder* recorder);
  ~ActivePhaseRecorder();
  ActivePhaseRecorder(const ActivePhaseRecorder&) = delete;
  ActivePhaseRecorder& operator=(const ActivePhaseRecorder&) = delete;

 private:
  PhaseRecorder* previous_;
};

// A named phase of the current step: an NVTX range always; a timed interval
// when a recorder is active and inside a step (a forward pass during
// validation is an NVTX range inside "validation", and not a train phase).
class PhaseScope {
 public:
  explicit PhaseScope(Phase phase);
  ~PhaseScope();
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  NvtxRange range_;
  at::RecordFunction profiler_range_{at::RecordScope::USER_SCOPE};
  PhaseRecorder* recorder_;
  Phase phase_;
  int begin_ = -1;
};

}  // namespace ftb
