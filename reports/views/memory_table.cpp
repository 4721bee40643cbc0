#include "reports/views/memory_table.h"

#include <cstdio>

namespace ftb {

namespace {

std::string mib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", bytes / (1024.0 * 1024.0));
  return buf;
}

// "measured (model)" in MiB.
std::string pair(double measured, double model) { return mib(measured) + " (" + mib(model) + ")"; }

// A phase's measured peak (the largest rank's), "-" where not measured.
std::string held(const ScenarioResult& r, const ScenarioResult::HeldPhase& p) {
  return r.memory_phases.source.empty() || p.per_rank.empty() ? "-" : mib(static_cast<double>(p.peak_bytes()));
}

// The phase columns' word, by what filled them: "held" where an allocator
// measured them (CUDA), "tracked" where the strategy's own tensors were read
// back at its hook points (CPU: not a measurement of the device).
std::string phase_word(const Report& report) {
  bool tracked = false, measured = false;
  for (const auto& r : report.results) {
    if (r.memory_phases.source == "tracked_tensors") tracked = true;
    else if (!r.memory_phases.source.empty()) measured = true;
  }
  return tracked && measured ? "held/tracked" : tracked ? "tracked" : "held";
}

}  // namespace

std::optional<MemoryModel> zero_memory_model(const std::string& strategy, double psi, int ranks) {
  const double n = ranks > 0 ? ranks : 1;
  if (strategy == "ddp") return MemoryModel{4 * psi, 4 * psi, 8 * psi, 0};
  if (strategy == "sharded") return MemoryModel{4 * psi, 4 * psi, 8 * psi / n, 0};
  if (strategy == "zero2") return MemoryModel{4 * psi, 4 * psi / n, 8 * psi / n, 0};
  if (strategy == "zero2_offload") return MemoryModel{4 * psi, 4 * psi / n, 0, 16 * psi / n};
  if (strategy == "zero3") return MemoryModel{4 * psi / n, 4 * psi / n, 8 * psi / n, 0};
  if (strategy == "zero3_offload") return MemoryModel{4 * psi / n, 4 * psi / n, 0, 16 * psi / n};
  return std::nullopt;
}

std::optional<ResultTable> memory_table(const Report& report) {
  ResultTable t;
  const std::string word = phase_word(report);
  t.rows.push_back({"scenario", "strategy", "ranks", "parameters MiB", "gradients MiB", "optimizer state MiB",
                    "host MiB", "device total MiB", word + " in training MiB", word + " in evaluation MiB",
                    "peak MiB"});
  t.right = {false, false, true, true, true, true, true, true, true, true, true};
  for (const auto& r : report.results) {
    const auto& d = r.distributed;
    if (r.status != Status::ok || d.backend.empty() || d.param_bytes_per_rank <= 0) continue;
    // The model from the parameter count alone (a report that did not record
    // it shows the measured figures only), so measured and model can differ.
    const auto found = zero_memory_model(d.strategy, static_cast<double>(r.parameter_count), r.world_size);
    const bool modelled = r.parameter_count > 0 && found.has_value();
    const MemoryModel m = found.value_or(MemoryModel{});
    const bool host_state = d.host_bytes_per_rank > 0;
    const double state_on_device = host_state ? 0.0 : static_cast<double>(d.optimizer_state_bytes_per_rank);
    const double device = static_cast<double>(d.param_bytes_per_rank + d.grad_bytes_per_rank) + state_on_device;
    auto cell = [&](double measured, double MemoryModel::*field) {
      return modelled ? pair(measured, m.*field) : mib(measured);
    };
    // zero3 under mixed precision: what its units were gathered and its
    // gradients reduced in (FSDP's param_dtype / reduce_dtype).
    const bool mixed_gathers = !d.gather_dtype.empty() && d.gather_dtype != "fp32";
    const std::string strategy =
        mixed_gathers ? d.strategy + " (" + d.gather_dtype + " gathers, " + d.reduce_dtype + " reduce)" : d.strategy;
    t.rows.push_back({r.scenario, strategy, std::to_string(r.world_size),
                      cell(static_cast<double>(d.param_bytes_per_rank), &MemoryModel::params),
                      cell(static_cast<double>(d.grad_bytes_per_rank), &MemoryModel::grads),
                      cell(state_on_device, &MemoryModel::optimizer),
                      cell(static_cast<double>(d.host_bytes_per_rank), &MemoryModel::host),
                      modelled ? pair(device, m.params + m.grads + m.optimizer) : mib(device),
                      held(r, r.memory_phases.training), held(r, r.memory_phases.evaluation),
                      mib(static_cast<double>(r.peak_bytes))});
  }
  if (t.rows.size() == 1) return std::nullopt;
  t.notes =
      "Memory per rank: the sizes of the tensors each strategy keeps between steps (padding to the ranks "
      "included; model in brackets: the ZeRO paper's accounting from the model's parameter count psi alone, with "
      "ftbench's fp32 weights and gradients: ddp 4psi + 4psi + 8psi of Adam state, sharded divides the state by "
      "the ranks, zero2 the gradients too, zero3 the parameters too (the units gathered at a time come on top), the "
      "_offload rows move the state, its fp32 master and its gradient staging (16psi/n) to the host; the paper's "
      "mixed-precision 2psi + 2psi + 12psi keeps fp16 weights, ftbench's autocast keeps fp32). held in training / "
      "evaluation (GPU): the most a rank's device held in that phase, measured by the caching allocator (its "
      "peak, reset at each change of phase; activations and autocast's casts included; the largest rank's). "
      "tracked in training / evaluation (CPU): not a measurement of the device but the strategy's own tensors "
      "(parameters, gradients, optimizer state, gathered units, staging copies) read back from their storages "
      "at its hook points, the most a rank had; for the state kept between steps it reads the same storages as "
      "the columns before it, so ddp's and every evaluation but zero3's equal the state by construction; "
      "activations and autocast's bf16/fp16 casts are not seen, so a bf16-mixed row of ddp, sharded or zero2 "
      "shows what fp32 does; zero3 under bf16-mixed (fp16-mixed) gathers its units in bf16 (fp16) from its fp32 "
      "shards, as FSDP's MixedPrecision param_dtype, and reduces in fp32 (the strategy cell says so): its units "
      "whole are half fp32's and no weight casts are made. "
      "zero3's evaluation holds every unit whole. Activations are not in the model: peak MiB is the row's "
      "measured peak (a CPU's resident memory, every rank's process alike).\n";
  return t;
}

}  // namespace ftb
