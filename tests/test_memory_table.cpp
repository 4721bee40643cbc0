// The memory table: each distributed row's bytes per rank, measured, beside
// the ZeRO paper's model of its strategy.
#include <doctest/doctest.h>

#include "reports/views/memory_table.h"

namespace {

ftb::ScenarioResult row(const std::string& strategy, int ranks, int64_t params, int64_t grads, int64_t state,
                        int64_t host) {
  ftb::ScenarioResult r;
  r.scenario = strategy;
  r.world_size = ranks;
  r.distributed.backend = "gloo";
  r.distributed.strategy = strategy;
  r.distributed.param_bytes_per_rank = params;
  r.distributed.grad_bytes_per_rank = grads;
  r.distributed.optimizer_state_bytes_per_rank = state;
  r.distributed.host_bytes_per_rank = host;
  r.peak_bytes = 512 << 20;
  r.parameter_count = 1 << 20;  // psi = 1 Mi parameters
  return r;
}

}  // namespace

TEST_CASE("memory model: each ZeRO stage divides what the paper says, offload moves the state to the host") {
  const double psi = 1e6;
  const auto ddp = ftb::zero_memory_model("ddp", psi, 4);
  const auto z1 = ftb::zero_memory_model("sharded", psi, 4);
  const auto z2 = ftb::zero_memory_model("zero2", psi, 4);
  const auto off = ftb::zero_memory_model("zero2_offload", psi, 4);
  REQUIRE(ddp);
  REQUIRE(z1);
  REQUIRE(z2);
  REQUIRE(off);
  CHECK(ddp->params + ddp->grads + ddp->optimizer == 16 * psi);
  CHECK(z1->optimizer == 2 * psi);
  CHECK(z2->grads == psi);
  CHECK(off->optimizer == 0);
  CHECK(off->host == 4 * psi);
  CHECK_FALSE(ftb::zero_memory_model("fabric_custom", psi, 4));
}

TEST_CASE("memory table: measured bytes per rank with the model beside them, single-process rows left out") {
  ftb::Report report;
  const int64_t mib = 1 << 20;
  report.results = {row("ddp", 2, 4 * mib, 4 * mib, 8 * mib, 0), row("zero2", 2, 4 * mib, 2 * mib, 4 * mib, 0),
                    row("zero2_offload", 2, 4 * mib, 2 * mib, 4 * mib, 8 * mib)};
  ftb::ScenarioResult single;
  single.scenario = "baseline";
  report.results.push_back(single);
  const auto t = ftb::memory_table(report);
  REQUIRE(t);
  REQUIRE(t->rows.size() == 4);  // header + the three distributed rows
  CHECK(t->rows[1][3] == "4.00 (4.00)");  // ddp parameters: psi = 1 Mi floats
  CHECK(t->rows[1][5] == "8.00 (8.00)");  // Adam's two moments, unsharded
  CHECK(t->rows[2][4] == "2.00 (2.00)");  // zero2's gradients: half
  CHECK(t->rows[3][5] == "0.00 (0.00)");  // offload: no optimizer state on the device
  CHECK(t->rows[3][6] == "8.00 (8.00)");  // ... it is on the host with its master and staging
  CHECK(t->rows[3][7] == "6.00 (6.00)");  // device: parameters + gradient shard
  ftb::Report none;
  none.results = {single};
  CHECK_FALSE(ftb::memory_table(none));
}

// zero3 on 2 ranks whose measured parameters are more than its share (a unit
// left whole): the model, from the parameter count alone, says 2 MiB. On the
// old code psi came from the measured bytes, so the bracket repeated the
// measurement ("2.50 (2.50)") and could never disagree; there was no zero3 row
// and no measured phase columns.
TEST_CASE("memory table: zero3's model from the parameter count, measured phases beside it") {
  ftb::Report report;
  const int64_t mib = 1 << 20;
  auto z3 = row("zero3", 2, 5 * mib / 2, 2 * mib, 4 * mib, 0);
  z3.memory_phases.source = "tracked_tensors";
  z3.memory_phases.training.per_rank = {10 * mib, 11 * mib};
  z3.memory_phases.evaluation.per_rank = {12 * mib, 12 * mib};
  auto old = row("ddp", 2, 4 * mib, 4 * mib, 8 * mib, 0);
  old.parameter_count = 0;  // a report from before the count: measured only, no phases
  report.results = {z3, old};
  const auto t = ftb::memory_table(report);
  REQUIRE(t);
  REQUIRE(t->rows.size() == 3);
  // CPU rows are "tracked" (the strategy's tensors read back), never called
  // held or measured: on the old code the header said "held" whatever the
  // source (review 6, finding 2).
  CHECK(t->rows[0][8] == "tracked in training MiB");
  CHECK(t->rows[0][9] == "tracked in evaluation MiB");
  CHECK(t->notes.find("not a measurement of the device") != std::string::npos);
  CHECK(t->rows[1][3] == "2.50 (2.00)");   // measured beside the model: 4 psi / 2
  CHECK(t->rows[1][4] == "2.00 (2.00)");   // gradient shards
  CHECK(t->rows[1][5] == "4.00 (4.00)");   // Adam's moments of the shard
  CHECK(t->rows[1][7] == "8.50 (8.00)");   // device total
  CHECK(t->rows[1][8] == "11.00");         // the larger rank's training peak
  CHECK(t->rows[1][9] == "12.00");         // every unit whole in evaluation
  CHECK(t->rows[2][3] == "4.00");          // no count recorded: no model
  CHECK(t->rows[2][8] == "-");
  // The allocator's figure (a GPU run) is "held".
  z3.memory_phases.source = "cuda_max_allocated";
  report.results = {z3};
  CHECK(ftb::memory_table(report)->rows[0][8] == "held in training MiB");
}
