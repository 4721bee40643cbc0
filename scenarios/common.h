// Pieces every scenario file uses: loop options from the config, and the
// result record from a finished loop.
#pragma once

#include <string>

#include "core/train/optimizer.h"
#include "core/train/run_config.h"
#include "core/train/train_loop.h"
#include "core/train/workload.h"
#include "scenarios/scenario.h"

namespace ftb {

LoopOptions loop_options(const RunConfig& c, const std::string& scenario, const torch::Device& device);

// The three loaders of a run (train shuffled, val/test in order).
struct RunLoaders {
  BatchLoader train, val, test;
  RunLoaders(const Workload& w, const RunConfig& c);
  // This rank's shards (train: equal shards of each epoch's permutation;
  // val/test: every example on exactly one rank).
  RunLoaders(const Workload& w, const RunConfig& c, int rank, int world_size);
  Loaders refs() { return {train, val, test}; }
};

// Fills the measured fields of a ScenarioResult (one repeat) from the loop's output.
// The SDPA kernel the workload's attention runs on `device` in `precision`
// at the config's batch and max_length, as the global switches stand now
// (core/model/attention.h: sdpa_backend): a row's extra.attention_backend.
std::string attention_backend(const Workload& w, const RunConfig& c, const torch::Device& device, Precision precision);

ScenarioResult result_from_loop(const std::string& scenario, const LoopResult& loop, const torch::Device& device,
                                Precision precision, const std::string& optimizer);

// The set-up every single-process row shares, in this order: the device, the
// model on it, the config's Adam from the one optimizer factory, the three
// loaders, and a reset of the peak-memory counter. A row file is its step.
struct SingleProcess {
  SingleProcess(const Workload& w, const RunConfig& c, std::string scenario);
  const RunConfig& config;
  std::string scenario;
  torch::Device device;
  SequenceClassifier model;
  AdamKernel adam_kernel;
  std::unique_ptr<torch::optim::Adam> adam;
  torch::optim::Adam& optimizer;
  RunLoaders loaders;

  LoopOptions options() const { return loop_options(config, scenario, device); }
  // run_fine_tuning over the loaders with `step` (and `eval` for evaluation).
  LoopResult fit(const StepFn& step, const ScenarioContext& ctx, const EvalForward& eval = nullptr);
  ScenarioResult result(const LoopResult& loop, Precision precision) const;
};

// The reference's plain step (zero_grad, forward, backward, Adam step) over
// the shared loop, with the config's Adam and accumulate (micro-batches per
// step, train_step's): baseline, fused_adam with
// adam=fused, bucketed with bucketing=on. With bf16_mixed the forward
// (training and evaluation) runs under bf16 autocast, no loss scaling
// (amp_bf16, fastest on CUDA); fp16 needs a GradScaler (amp.cpp).
ScenarioResult run_plain_loop(const Workload& w, const RunConfig& c, const ScenarioContext& ctx,
                              const std::string& scenario, Precision precision = Precision::fp32);

// The config with length bucketing on: padding to the longest row of each
// batch, batches of similar lengths (core/train/batching.h).
RunConfig with_bucketing(RunConfig c);

// A ScenarioInfo's `unavailable` for rows that run anywhere.
inline std::string runs_anywhere(const RunConfig&) { return ""; }

}  // namespace ftb
