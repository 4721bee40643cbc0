// Dynamic loss scaling for fp16 mixed precision: torch.amp.GradScaler in C++
// (LibTorch has no class for it), built on ATen's own AMP ops:
//   at::_amp_foreach_non_finite_check_and_unscale_  (grads *= 1/scale, found_inf |= any non-finite)
//   at::_amp_update_scale_                           (back off on inf, grow after N clean steps)
// Both have CUDA and CPU kernels; a composite with the same semantics runs on
// other devices, and in the tests that check it against the kernels.
//
// Per step, exactly as in Python:
//   optimizer.zero_grad();
//   scaler.scale(loss).backward();
//   scaler.step(optimizer);   // unscales (unless unscale_ was called), skips on inf/NaN
//   scaler.update();
//
// Scale and growth tracker live on the device as 0-dim tensors; the only host
// sync is step()'s read of found_inf (Python's GradScaler does the same read).
//
// Without the sync (the CUDA-graph rows, scenarios/sync_free_step.h, and the
// sharded rows): unscale_grads_(grads) unscales and returns found_inf on the
// device, a fused optimizer step (FusedAdam::step(..., found_inf)) skips on
// the device, and update(found_inf) is sync-free already. This is Python's
// path for fused=True. check_inf_() is the variant that records found_inf
// without unscaling, for a fused step that unscales itself (grad_scale).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <map>

namespace ftb {

struct GradScalerOptions {
  double init_scale = 65536.0;    // 2^16, PyTorch's default
  double growth_factor = 2.0;     // after growth_interval consecutive clean steps
  double backoff_factor = 0.5;    // on a step with an inf/NaN gradient
  int64_t growth_interval = 2000;
  bool enabled = true;            // false: scale() is the identity, step() always steps
  // Use the composite ops even where ATen has kernels: how the tests check the
  // composite against the native kernels.
  bool force_composite = false;
};

class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});

  // loss * scale; the scale tensor is created on the loss's device the first time.
  torch::Tensor scale(const torch::Tensor& loss);
  // Divides the optimizer's grads by the scale in place and records whether
  // any is inf/NaN. At most once per optimizer between update()s (call it
  // before clipping gradients).
  void unscale_(torch::optim::Optimizer& optimizer);
  // Unscales if not done yet; steps unless a gradient was inf/NaN (then counts
  // a skipped step). One host sync. Returns whether the optimizer stepped.
  bool step(torch::optim::Optimizer& optimizer);
  // New scale from this step's found_inf (of every optimizer stepped since the
  // last update): backoff on inf, growth after growth_interval clean steps.
  void update();

  // Fused/capturable hook (see the top of the file): found_inf without
  // unscaling. Returns found_inf (0-dim float32 on the scale's device).
  torch::Tensor check_inf_(torch::optim::Optimizer& optimizer);

  // For optimizers that are not torch::optim ones (the sharded optimizers of
  // scenarios/parallel/data_parallel.h): unscales `grads` in place and returns
  // found_inf (0-dim float32 on the scale's device). The caller makes it agree
  // across ranks, steps with it (the fused step skips on the device) and
  // passes it to update(found_inf).
  torch::Tensor unscale_grads_(const std::vector<torch::Tensor>& grads);
  void update(const torch::Tensor& found_inf);
  // Back to init_scale and a zero growth tracker, in place (a captured CUDA
  // graph holds their addresses), with no step in flight and no skip counted.
  void reset_();

  double scale_value() const;          // host sync; init_scale before the first scale()
  int64_t growth_tracker() const;      // host sync; clean steps since the last change
  int64_t skipped_steps() const { return skipped_steps_; }
  const GradScalerOptions& options() const { return options_; }
  // Device tensors for a fused optimizer: the scale (0-dim float32) and the
  // found_inf recorded for `optimizer` in this step (undefined before).
  torch::Tensor found_inf(const torch::optim::Optimizer& optimizer) const;

 private:
  enum class Stage { ready, unscaled, stepped };
  struct PerOptimizer {
    Stage stage = Stage::ready;
    torch::Tensor found_inf;  // 0-dim float32 on the scale's device; > 0 = inf/NaN seen
  };
  // grads *= inv_scale (for each (device, dtype) group); returns found_inf.
  torch::Tensor unscale_grads(torch::optim::Optimizer& optimizer, const torch::Tensor& inv_scale);
  torch::Tensor unscale_list(const std::vector<torch::Tensor>& grads, const torch::Tensor& inv_scale);
  torch::Tensor inv_scale() const;
  bool native_ops(const torch::Device& device) const;
  void require_scale(const char* caller) const;

  GradScalerOptions options_;
  torch::Tensor scale_;           // () float32
  torch::Tensor growth_tracker_;  // () int32
  std::map<const torch::optim::Optimizer*, PerOptimizer> per_optimizer_;
  int64_t skipped_steps_ = 0;
};

}  // namespace ftb
