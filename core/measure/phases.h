// Where the time goes: the phases of a run and their totals. The names are
// the report's keys (result.phases) and the NVTX range names, so an Nsight
// timeline lines up with the report. No LibTorch here (the reports read it).
#pragma once

#include <array>
#include <cstddef>
#include <string>

namespace ftb {

// In a training step, in order: data_wait (host blocked on the loader, before
// the step), h2d_copy, forward, backward, optimizer (zero_grad, unscale, step),
// grad_comm (distributed rows: waiting for the gradient collectives after
// backward; the part that overlaps backward is inside backward), other (the
// step's time in no named phase: a CUDA-graph replay, loss scaling, hooks).
// Then, per epoch and at the end: validation, test.
enum class Phase { data_wait, h2d_copy, forward, backward, optimizer, grad_comm, other, validation, test };
constexpr std::size_t kPhaseCount = 9;
const std::array<Phase, kPhaseCount>& all_phases();
const char* phase_name(Phase p);  // "data_wait", "h2d_copy", ...
Phase phase_from_name(const std::string& name, const std::string& where);  // InputError naming `where`

// How phase times were measured.
enum class PhaseClock { none, steady_clock, cuda_events };
std::string to_string(PhaseClock c);
PhaseClock phase_clock_from_string(const std::string& s, const std::string& where);

// Seconds per phase over a run (every step, warm-up included, so the train
// phases add up to the training time; validation and test are whole passes).
struct PhaseTimes {
  std::array<double, kPhaseCount> seconds{};
  PhaseClock clock = PhaseClock::none;
  double& operator[](Phase p) { return seconds[static_cast<std::size_t>(p)]; }
  double operator[](Phase p) const { return seconds[static_cast<std::size_t>(p)]; }
  double total() const;
  double share(Phase p) const { return total() > 0 ? (*this)[p] / total() : 0; }
  bool empty() const { return clock == PhaseClock::none; }
};

}  // namespace ftb
