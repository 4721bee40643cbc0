// Fabric: a thin API in the style of Lightning Fabric, so that a plain
// training loop runs data-parallel, sharded or in mixed precision by naming
// a strategy and a precision, not by rewriting the loop:
//
//   Fabric fabric({"auto", 0, "zero2", "16-mixed"});
//   fabric.launch();                                   // join the ranks
//   auto& optimizer = fabric.setup(model, {lr});       // wrap model + Adam
//   auto train = fabric.setup_dataloader(loader_options);
//   for (batch : loader) {
//     optimizer.zero_grad();
//     auto loss = [&] { auto ctx = fabric.forward_context(); return forward(...); }();
//     fabric.backward(loss);
//     optimizer.step();
//   }
//
// Gradient accumulation as with Lightning Fabric: the first K-1
// micro-batches' backwards inside no_backward_sync, the K-th outside it,
// then one optimizer step (scenarios/fabric.cpp runs it for accumulate=K):
//   optimizer.zero_grad();
//   for (i = 0; i < K; ++i) {
//     auto no_sync = fabric.no_backward_sync(/*enabled=*/i + 1 < K);
//     fabric.backward(loss_i / K);
//   }
//   optimizer.step();
//
// Strategies: ddp, sharded (ZeRO-1), zero2 (scenarios/parallel/data_parallel.h).
// Precisions: 32, bf16-mixed (autocast), 16-mixed (fp16 autocast + loss
// scaling; CUDA only). Ranks come from the launcher (`ftbench run
// --world-size N`, torchrun, SLURM, mpirun); without one, a world of one.
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "core/train/autocast.h"
#include "core/train/batching.h"
#include "scenarios/parallel/data_parallel.h"
#include "scenarios/parallel/rank_env.h"
#include "core/train/grad_scaler.h"
#include "core/model/classifier.h"

namespace ftb {

struct FabricOptions {
  std::string accelerator = "auto";  // auto | cpu | cuda | cuda:N (a world of one on GPU N)
  int devices = 0;                   // ranks expected; 0 = whatever the launcher started
  Strategy strategy = Strategy::ddp;     // Lightning's strings parse with parse_choice<Strategy>
  Precision precision = Precision::fp32;  // ... and parse_choice<Precision> ("32", "bf16-mixed", "16-mixed")
  int64_t bucket_cap_bytes = 25 * 1024 * 1024;
  std::chrono::milliseconds timeout{300000};  // store and collectives
  std::string group_name = "fabric";          // key prefix in the rendezvous store
  // Micro-batches per optimizer step the loop will run (no_backward_sync):
  // for the strategy's memory model only (DataParallelOptions::accumulate).
  int64_t accumulate = 1;
};

struct AdamConfig {
  double lr = 5e-5;
};

class Fabric;

// While alive (and enabled), backwards do not synchronise gradients across
// ranks: they add into this rank's (GradientSync::set_sync(false), DDP's
// no_sync); the sync setting is put back on destruction. Lightning Fabric's
// no_backward_sync(model, enabled) context manager.
class NoBackwardSync {
 public:
  NoBackwardSync(NoBackwardSync&& other) noexcept : sync_(other.sync_), restore_(other.restore_) {
    other.sync_ = nullptr;
  }
  NoBackwardSync(const NoBackwardSync&) = delete;
  NoBackwardSync& operator=(const NoBackwardSync&) = delete;
  NoBackwardSync& operator=(NoBackwardSync&&) = delete;
  ~NoBackwardSync();

 private:
  friend class Fabric;
  NoBackwardSync(dist::GradientSync* sync, bool restore) : sync_(sync), restore_(restore) {}
  dist::GradientSync* sync_;  // nullptr: not enabled, nothing to put back
  bool restore_;
};

// What setup() returns in place of the user's optimizer: zero_grad() and
// step() do the strategy's and the precision's work.
class FabricOptimizer {
 public:
  void zero_grad();
  // Unscales and checks the gradients (16-mixed; all ranks agree on a skip),
  // steps Adam on this rank's part, gathers the parameters, updates the scale.
  void step();

 private:
  friend class Fabric;
  explicit FabricOptimizer(Fabric& fabric) : fabric_(fabric) {}
  Fabric& fabric_;
};

class Fabric {
 public:
  explicit Fabric(FabricOptions options);
  ~Fabric();

  void launch();
  // The same with the rank given (tests run ranks as threads of one process).
  void launch(const DistEnv& env);
  int global_rank() const;
  int world_size() const;
  const torch::Device& device() const { return device_; }
  const FabricOptions& options() const { return options_; }
  Precision precision() const { return precision_; }

  // Moves the model to this rank's device, packs its parameters for the
  // strategy (rank 0's weights broadcast to all) and builds the Adam
  // optimizer, sharded as the strategy says.
  FabricOptimizer& setup(SequenceClassifier& model, AdamConfig adam);
  // The loader options for this rank's shard of the data.
  LoaderOptions setup_dataloader(LoaderOptions options) const;

  // Holds autocast for the precision while alive (nothing for "32").
  PrecisionAutocast forward_context() const { return PrecisionAutocast(device_.type(), precision_); }

  // loss.backward() (scaled for 16-mixed), then the gradient collectives
  // finish. One synchronised backward per optimizer step: a second before
  // zero_grad() throws naming accumulate (never silently wrong); for
  // gradient accumulation run the first micro-batches' backwards inside
  // no_backward_sync (their gradients stay local; no collective to finish).
  void backward(const torch::Tensor& loss);
  // Lightning Fabric's no_backward_sync(model, enabled): the one model of
  // setup(). Strategies that cannot accumulate throw naming accumulate.
  [[nodiscard]] NoBackwardSync no_backward_sync(bool enabled = true);
  // Sums a tensor over ranks in place (metrics); any device.
  void all_reduce_sum(torch::Tensor& t);

  // Measurements for the report.
  dist::Communicator& comm();
  dist::GradientSync& strategy();
  int64_t skipped_steps() const;  // steps skipped by loss scaling (host sync)
  double loss_scale() const;      // current scale (16-mixed), else 1

 private:
  friend class FabricOptimizer;
  FabricOptions options_;
  Precision precision_;
  torch::Device device_ = torch::kCPU;
  std::shared_ptr<dist::Communicator> comm_;
  std::unique_ptr<dist::GradientSync> dp_;
  std::unique_ptr<GradScaler> scaler_;
  std::unique_ptr<FabricOptimizer> optimizer_;
  torch::Tensor skipped_;  // 0-dim float on the device: sum of found_inf
};

}  // namespace ftb
