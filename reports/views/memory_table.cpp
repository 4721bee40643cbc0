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
  t.rows.push_back({"scenario", "strategy", "ranks", "parameters MiB", "gradients MiB", "optimizer state MiB",
                    "host MiB", "device total MiB", "peak MiB"});
  t.right = {false, false, true, true, true, true, true, true, true};
  for (const auto& r : report.results) {
    const auto& d = r.distributed;
    if (r.status != Status::ok || d.backend.empty() || d.param_bytes_per_rank <= 0) continue;
    // psi from the device's parameter storage (fp32; padding to the world size included): whole
    // parameters, or zero3's 1/N shards of them.
    const bool params_sharded = d.strategy.rfind("zero3", 0) == 0;
    const double psi = static_cast<double>(d.param_bytes_per_rank) / 4.0 * (params_sharded ? r.world_size : 1);
    const auto m = zero_memory_model(d.strategy, psi, r.world_size);
    const bool host_state = d.host_bytes_per_rank > 0;
    const double state_on_device = host_state ? 0.0 : static_cast<double>(d.optimizer_state_bytes_per_rank);
    const double device = static_cast<double>(d.param_bytes_per_rank + d.grad_bytes_per_rank) + state_on_device;
    auto cell = [&](double measured, double MemoryModel::*field) {
      return m ? pair(measured, (*m).*field) : mib(measured);
    };
    t.rows.push_back({r.scenario, d.strategy, std::to_string(r.world_size),
                      cell(static_cast<double>(d.param_bytes_per_rank), &MemoryModel::params),
                      cell(static_cast<double>(d.grad_bytes_per_rank), &MemoryModel::grads),
                      cell(state_on_device, &MemoryModel::optimizer),
                      cell(static_cast<double>(d.host_bytes_per_rank), &MemoryModel::host),
                      m ? pair(device, m->params + m->grads + m->optimizer) : mib(device),
                      mib(static_cast<double>(r.peak_bytes))});
  }
  if (t.rows.size() == 1) return std::nullopt;
  t.notes =
      "Memory per rank, measured from the tensors each strategy keeps between steps (model in brackets: the ZeRO "
      "paper's accounting with ftbench's fp32 weights and gradients, psi = parameters incl. padding: ddp 4psi + "
      "4psi + 8psi of Adam state, sharded divides the state by the ranks, zero2 the gradients too, "
      "zero3 the parameters too (the units gathered at a time come on top), the _offload rows move the state, its "
      "fp32 master and its gradient staging (16psi/n) to the host; the paper's "
      "mixed-precision 2psi + 2psi + 12psi keeps fp16 weights, ftbench's autocast keeps fp32). Activations are "
      "not in the model: peak MiB is the row's measured peak (a CPU's resident memory, every rank's process "
      "alike).\n";
  return t;
}

}  // namespace ftb
