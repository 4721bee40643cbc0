#include "core/measure/phase_recorder.h"

#include <algorithm>

#ifdef FTB_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#endif

namespace ftb {

namespace {
thread_local PhaseRecorder* active_recorder = nullptr;
}  // namespace

// A pool of timing-enabled CUDA events, reused from epoch to epoch.
struct PhaseRecorder::DeviceMarks {
#ifdef FTB_WITH_CUDA
  std::vector<std::unique_ptr<at::cuda::CUDAEvent>> events;
#endif
};

PhaseRecorder::PhaseRecorder(const torch::Device& device)
    : device_(device), device_marks_(std::make_unique<DeviceMarks>()) {}

PhaseRecorder::~PhaseRecorder() = default;

PhaseClock PhaseRecorder::clock() const {
  return device_.is_cuda() ? PhaseClock::cuda_events : PhaseClock::steady_clock;
}

int PhaseRecorder::mark() {
  const int index = marks_++;
#ifdef FTB_WITH_CUDA
  if (device_.is_cuda()) {
    auto& events = device_marks_->events;
    if (static_cast<int>(events.size()) <= index)
      events.push_back(std::make_unique<at::cuda::CUDAEvent>(cudaEventDefault));  // timing on
    // The row's device's current stream: where the step's kernels go.
    events[index]->record(at::cuda::getCurrentCUDAStream(device_.index()));
    return index;
  }
#endif
  if (static_cast<int>(host_marks_.size()) <= index) host_marks_.resize(index + 1);
  host_marks_[index] = std::chrono::steady_clock::now();
  return index;
}

double PhaseRecorder::ms_between(int a, int b) const {
#ifdef FTB_WITH_CUDA
  if (device_.is_cuda()) return device_marks_->events[a]->elapsed_time(*device_marks_->events[b]);
#endif
  return std::chrono::duration<double, std::milli>(host_marks_[b] - host_marks_[a]).count();
}

void PhaseRecorder::begin_step() {
  steps_.emplace_back();
  steps_.back().begin = mark();
  in_step_ = true;
}

void PhaseRecorder::end_step() {
  steps_.back().end = mark();
  in_step_ = false;
}

std::vector<double> PhaseRecorder::collect_epoch(PhaseTimes& totals) {
  totals.clock = clock();
#ifdef FTB_WITH_CUDA
  // The one wait of the epoch: events complete in stream order.
  if (device_.is_cuda() && marks_ > 0) device_marks_->events[marks_ - 1]->synchronize();
#endif
  std::vector<double> step_ms;
  step_ms.reserve(steps_.size());
  for (const auto& s : steps_) {
    const double step = ms_between(s.begin, s.end);
    double named = 0;
    for (const auto& p : s.phases) {
      const double ms = ms_between(p.begin, p.end);
      totals[p.phase] += ms / 1000;
      named += ms;
    }
    // Phases are sequential inside the step, so named <= step up to clock
    // resolution; the rest is `other`.
    totals[Phase::other] += std::max(0.0, step - named) / 1000;
    step_ms.push_back(step);
  }
  steps_.clear();
  marks_ = 0;
  return step_ms;
}

ActivePhaseRecorder::ActivePhaseRecorder(PhaseRecorder* recorder) : previous_(active_recorder) {
  active_recorder = recorder;
}

ActivePhaseRecorder::~ActivePhaseRecorder() { active_recorder = previous_; }

PhaseScope::PhaseScope(Phase phase)
    : range_(phase_name(phase)),
      recorder_(active_recorder && active_recorder->in_step() ? active_recorder : nullptr),
      phase_(phase) {
  if (profiler_range_.isActive())
    profiler_range_.before(std::string_view(phase_name(phase)), c10::ArrayRef<const c10::IValue>{});
  if (recorder_) begin_ = recorder_->mark();
}

PhaseScope::~PhaseScope() {
  if (recorder_ && recorder_->in_step()) recorder_->add_phase(phase_, begin_, recorder_->mark());
}

}  // namespace ftb
