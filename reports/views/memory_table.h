// Memory per rank of the distributed rows: what each strategy keeps where,
// measured from the tensors that exist (result.distributed: parameters,
// gradients, optimizer state on the device; the offloaded part on the host),
// beside the ZeRO paper's model of it (Rajbhandari et al. 2020, section 3)
// computed from the model's parameter count alone (result.parameter_count),
// so the two can disagree; then the most a rank held in training and in
// evaluation (result.memory_phases): "held", measured by the caching
// allocator, on a GPU; "tracked" on a CPU, the strategy's own tensors read
// back at its hook points (not a measurement of the device). A reader sees which strategy
// fits a model on a given device before running it. Its own table under the
// speed-up table.
#pragma once

#include "reports/record/report.h"
#include "reports/views/table.h"

#include <optional>

namespace ftb {

// The model's bytes per rank of one strategy for psi parameters on n ranks,
// with ftbench's fp32 weights and gradients (autocast keeps them fp32) and
// Adam's two fp32 moments: ddp 4psi + 4psi + 8psi, sharded (ZeRO-1)
// 4psi + 4psi + 8psi/n, zero2 4psi + 4psi/n + 8psi/n, zero2_offload the
// same split with the optimizer's 8psi/n (plus its fp32 master and gradient
// staging, 8psi/n) on the host, zero3 4psi/n + 4psi/n + 8psi/n (plus the
// units gathered at a time, not modelled), zero3_offload its device part with
// the host's 16psi/n. nullopt for a strategy the model does not cover.
struct MemoryModel {
  double params = 0, grads = 0, optimizer = 0;  // device bytes
  double host = 0;                              // host bytes (offload)
};
std::optional<MemoryModel> zero_memory_model(const std::string& strategy, double psi, int ranks);

// nullopt when no row is distributed.
std::optional<ResultTable> memory_table(const Report& report);

}  // namespace ftb
