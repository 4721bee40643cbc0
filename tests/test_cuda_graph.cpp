// cuda_graph: replayed steps give the same parameters as eager steps on the
// same batches. The cases marked (CUDA) need a GPU: skipped (tests/skip.h)
// where none is visible.
#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/measure/device.h"
#include "core/train/run_config.h"
#include "core/train/workload.h"
#ifdef FTB_WITH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#endif

#include "scenarios/capture_guard.h"
#include "scenarios/cuda_graph.h"
#include "scenarios/registry.h"
#include "scenarios/runner.h"
#include "scenarios/sync_free_step.h"
#include "tests/skip.h"

namespace {

ftb::RunConfig graph_test_config() {
  auto c = ftb::preset_config("smoke");
  c.synthetic_count = 400;
  c.epochs = 1;
  c.max_steps = 6;
  c.eval_max_batches = 2;
  c.dropout = 0;  // dropout masks differ between eager and graph RNG offsets
  c.device = "cuda";
  return c;
}

}  // namespace

TEST_CASE("capture guard: a body that throws is abandoned once and its error goes on, a good one ends") {
  std::vector<std::string> calls;
  auto begin = [&] { calls.push_back("begin"); };
  auto end = [&] { calls.push_back("end"); };
  auto abandon = [&] { calls.push_back("abandon"); };
  ftb::guarded_capture(begin, [&] { calls.push_back("body"); }, end, abandon);
  CHECK(calls == std::vector<std::string>{"begin", "body", "end"});
  calls.clear();
  CHECK_THROWS_WITH(ftb::guarded_capture(begin, [] { throw std::runtime_error("kernel not capturable"); }, end, abandon),
                    "kernel not capturable");
  CHECK(calls == std::vector<std::string>{"begin", "abandon"});
  calls.clear();
  // capture_end itself failing (an invalidated capture) is abandoned too.
  CHECK_THROWS(ftb::guarded_capture(begin, [] {}, [] { throw std::runtime_error("capture invalidated"); }, abandon));
  CHECK(calls == std::vector<std::string>{"begin", "abandon"});
  calls.clear();
  // A begin that throws started no capture: nothing to abandon.
  CHECK_THROWS(ftb::guarded_capture([] { throw std::runtime_error("no"); }, [] {}, end, abandon));
  CHECK(calls.empty());
}

#ifdef FTB_WITH_CUDA
TEST_CASE("capture guard: a capture that fails part way leaves the stream usable (CUDA)") {
  if (!ftb::cuda_available()) FTB_SKIP_CASE("no CUDA device visible");
  const torch::Device dev(torch::kCUDA, 0);
  auto x = torch::ones({64, 64}, torch::TensorOptions().device(dev));
  auto side = c10::cuda::getStreamFromPool(false, 0);
  {  // cuBLAS's workspace for this stream, outside the capture's pool
    c10::cuda::CUDAStreamGuard guard(side);
    (void)torch::mm(x, x).sum().item<float>();
  }
  c10::cuda::CUDACachingAllocator::emptyCache();
  const auto reserved_before = c10::cuda::CUDACachingAllocator::getDeviceStats(0).reserved_bytes[0].current;
  {
    c10::cuda::CUDAStreamGuard guard(side);
    at::cuda::CUDAGraph graph;
    const auto pool = at::cuda::graph_pool_handle();
    const int pool_uses = ftb::pool_use_count(0, pool);
    CHECK_THROWS(ftb::guarded_capture([&] { graph.capture_begin(pool); },
                                      [&] {
                                        auto y = torch::mm(x, x);  // captured
                                        (void)y.sum().item<float>();  // a host sync: not allowed under capture
                                      },
                                      [&] { graph.capture_end(); }, [&] { ftb::abandon_capture(graph, 0, pool_uses); }));
    // The failed capture gave its pool back: nothing stays reserved for it
    // (fails on the old code, which released the pool only after a capture
    // that ended, squeezing every later row and the largest-batch search).
    CHECK(ftb::pool_use_count(0, pool) == pool_uses);
    c10::cuda::CUDACachingAllocator::emptyCache();
    CHECK(c10::cuda::CUDACachingAllocator::getDeviceStats(0).reserved_bytes[0].current == reserved_before);
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
    REQUIRE(cudaStreamIsCapturing(side.stream(), &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusNone);
    // The same stream computes again, and a new capture works.
    CHECK(torch::mm(x, x).sum().item<float>() == doctest::Approx(64.0 * 64 * 64));
    at::cuda::CUDAGraph again;
    auto out = torch::zeros({64, 64}, x.options());
    again.capture_begin(at::cuda::graph_pool_handle());
    out.copy_(torch::mm(x, x));
    again.capture_end();
    again.replay();
    CHECK(out.sum().item<float>() == doctest::Approx(64.0 * 64 * 64));
  }
}
#endif

TEST_CASE("cuda_graph: replay matches eager training step for step (CUDA)") {
  if (!ftb::cuda_available()) FTB_SKIP_CASE("no CUDA device visible (the GPU check script runs this)");
  auto c = graph_test_config();
  c.padding = ftb::Padding::max_length;
  const auto w = ftb::build_workload(c);
  // Eager reference with the same optimizer math: baseline uses
  // torch::optim::Adam; both implement Adam, compared by per-step loss.
  auto eager = ftb::run_scenario(*ftb::find_scenario("baseline"), w, c, {});
  auto graph = ftb::run_scenario(*ftb::find_scenario("cuda_graph"), w, c, {});
  REQUIRE(graph.status == ftb::Status::ok);
  REQUIRE(eager.steps.size() == graph.steps.size());
  for (std::size_t i = 0; i < eager.steps.size(); ++i) {
    CAPTURE(i);
    CHECK(graph.steps[i].loss == doctest::Approx(eager.steps[i].loss).epsilon(1e-4));
  }
  CHECK(graph.capture_time_s > 0);
}

TEST_CASE("cuda_graph: one graph per bucket length replays the bucketed eager steps (CUDA)") {
  if (!ftb::cuda_available()) FTB_SKIP_CASE("no CUDA device visible (the GPU check script runs this)");
  auto c = graph_test_config();
  c.padding = ftb::Padding::longest;
  c.bucketing = true;
  const auto w = ftb::build_workload(c);
  auto eager = ftb::run_scenario(*ftb::find_scenario("bucketed"), w, c, {});
  auto graph = ftb::run_scenario(*ftb::find_scenario("cuda_graph"), w, c, {});
  REQUIRE(graph.status == ftb::Status::ok);
  REQUIRE(eager.steps.size() == graph.steps.size());
  for (std::size_t i = 0; i < eager.steps.size(); ++i) {
    CAPTURE(i);  // padding to a captured length changes sums' order only
    CHECK(graph.steps[i].loss == doctest::Approx(eager.steps[i].loss).epsilon(1e-4));
  }
  const auto& replays = graph.extra.at("graph_replays_by_length");
  CHECK(replays.size() == ftb::graph_lengths(c.max_length, true).size());
}

TEST_CASE("cuda_graph_fp16: the loss scaler inside the graph trains as amp does (CUDA)") {
  if (!ftb::cuda_available()) FTB_SKIP_CASE("no CUDA device visible (the GPU check script runs this)");
  auto c = graph_test_config();
  c.padding = ftb::Padding::max_length;
  const auto w = ftb::build_workload(c);
  auto eager = ftb::run_scenario(*ftb::find_scenario("amp"), w, c, {});
  auto graph = ftb::run_scenario(*ftb::find_scenario("cuda_graph_fp16"), w, c, {});
  REQUIRE(graph.status == ftb::Status::ok);
  REQUIRE(eager.steps.size() == graph.steps.size());
  for (std::size_t i = 0; i < eager.steps.size(); ++i) {
    CAPTURE(i);  // same fp16 math; Adam kernels differ (foreach vs fused) by rounding
    CHECK(graph.steps[i].loss == doctest::Approx(eager.steps[i].loss).epsilon(2e-3));
  }
  CHECK(graph.skipped_steps == eager.skipped_steps);
  CHECK(graph.extra.at("loss_scale_final").get<double>() == eager.extra.at("loss_scale_final").get<double>());
}

TEST_CASE("cuda_graph rows: each states its precision, what it stacks, and why it is skipped without CUDA") {
  struct Expected {
    const char* name;
    ftb::Precision precision;
    std::vector<std::string> stack;
  };
  for (const auto& e : {Expected{"cuda_graph", ftb::Precision::fp32, {"fused_adam", "graph"}},
                        Expected{"cuda_graph_bf16", ftb::Precision::bf16_mixed, {"bf16", "fused_adam", "graph"}},
                        Expected{"cuda_graph_fp16", ftb::Precision::fp16_mixed, {"fp16", "fused_adam", "graph"}}}) {
    CAPTURE(e.name);
    const auto* info = ftb::find_scenario(e.name);
    REQUIRE(info != nullptr);
    CHECK(info->name == e.name);
    CHECK((info->precision == e.precision));
    CHECK(info->stack == e.stack);
    const bool changes_precision = std::find(info->technique_settings.begin(), info->technique_settings.end(),
                                             ftb::RowSetting::precision) != info->technique_settings.end();
    CHECK(changes_precision == (e.precision != ftb::Precision::fp32));
    auto c = ftb::preset_config("smoke");
    c.device = "cpu";
    CHECK(info->unavailable(c).find("needs CUDA") == 0);
    // The preset's device "auto" is the CPU where no CUDA device is visible.
    if (!ftb::cuda_available()) CHECK(!info->unavailable(ftb::preset_config("smoke")).empty());
  }
  const auto* compiled = ftb::find_scenario("compiled");  // the alias users of the reference look for
  REQUIRE(compiled != nullptr);
  CHECK(compiled->name == "cuda_graph");
}
