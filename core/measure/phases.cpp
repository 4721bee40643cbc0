#include "core/measure/phases.h"

#include "core/base/errors.h"

namespace ftb {

const std::array<Phase, kPhaseCount>& all_phases() {
  static const std::array<Phase, kPhaseCount> phases = {Phase::data_wait, Phase::h2d_copy,  Phase::forward,
                                                        Phase::backward,  Phase::optimizer, Phase::grad_comm,
                                                        Phase::other,     Phase::validation, Phase::test};
  return phases;
}

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::data_wait: return "data_wait";
    case Phase::h2d_copy: return "h2d_copy";
    case Phase::forward: return "forward";
    case Phase::backward: return "backward";
    case Phase::optimizer: return "optimizer";
    case Phase::grad_comm: return "grad_comm";
    case Phase::other: return "other";
    case Phase::validation: return "validation";
    case Phase::test: return "test";
  }
  return "?";
}

Phase phase_from_name(const std::string& name, const std::string& where) {
  for (Phase p : all_phases())
    if (name == phase_name(p)) return p;
  input_error(where, "unknown phase \"" + name + "\"");
}

std::string to_string(PhaseClock c) {
  switch (c) {
    case PhaseClock::none: return "none";
    case PhaseClock::steady_clock: return "steady_clock";
    case PhaseClock::cuda_events: return "cuda_events";
  }
  return "?";
}

PhaseClock phase_clock_from_string(const std::string& s, const std::string& where) {
  for (PhaseClock c : {PhaseClock::none, PhaseClock::steady_clock, PhaseClock::cuda_events})
    if (s == to_string(c)) return c;
  input_error(where, "unknown phase clock \"" + s + "\" (steady_clock, cuda_events)");
}

double PhaseTimes::total() const {
  double t = 0;
  for (double s : seconds) t += s;
  return t;
}

}  // namespace ftb
