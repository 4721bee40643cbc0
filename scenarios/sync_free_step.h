// The training step a CUDA graph captures (cuda_graph.cpp), written so that
// nothing in it reads a value back to the host: a graph replays kernels, not
// host decisions. zero_grad, the forward (under autocast for bf16/fp16), the
// backward and a FusedAdam step whose counters live on the device; for fp16
// the loss is scaled and Python's GradScaler protocol for fused optimizers
// runs on the device: grads unscaled with found_inf recorded, the fused
// kernel skips the step where found_inf != 0, _amp_update_scale_ backs off or
// grows the scale, and a device counter counts the skipped steps. It runs
// eagerly on any device (how the tests check it on a CPU) and is captured as
// is on CUDA.
//
// One graph per bucket length: with bucketing, batches have varying lengths.
// graph_lengths() is the set of lengths a graph is captured for (multiples of
// kGraphLengthStep up to max_length, and max_length), and each batch is padded
// to the smallest of them that holds it (pad_to_length), so padding grows by
// less than one step's worth of tokens per batch.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/model/classifier.h"
#include "core/train/batching.h"
#include "core/train/fused_adam.h"
#include "core/train/grad_scaler.h"
#include "core/measure/precision.h"

namespace ftb {

class SyncFreeStep {
 public:
  // `optimizer` must be built over model->parameters() (make_device_adam).
  SyncFreeStep(SequenceClassifier model, FusedAdam& optimizer, Precision precision,
               GradScalerOptions scaler_options = {});
  // One step on `batch` (already on the device); the batch's loss and argmax
  // hits are written into loss_out (0-dim float) and correct_out (0-dim long).
  void operator()(const Batch& batch, torch::Tensor& loss_out, torch::Tensor& correct_out);
  // The loss scale and the skip counter back to their initial values, in
  // place (a captured graph holds their addresses): after warm-up steps.
  void reset();
  // fp16 only: steps skipped for inf/NaN gradients, and the current scale
  // (each a host sync; 0 and 1 for bf16/fp32).
  int64_t skipped_steps() const;
  double loss_scale() const;
  const GradScalerOptions& scaler_options() const { return scaler_.options(); }
  Precision precision() const { return precision_; }

 private:
  SequenceClassifier model_;
  FusedAdam& optimizer_;
  Precision precision_;
  GradScaler scaler_;
  std::vector<torch::Tensor> params_;
  torch::Tensor skipped_;  // () int64 on the device
};

// Tokens per sequence a graph is captured for, every kGraphLengthStep.
constexpr int kGraphLengthStep = 64;
// {max_length} without bucketing; with it every multiple of kGraphLengthStep
// below max_length, then max_length. Ascending.
std::vector<int64_t> graph_lengths(int max_length, bool bucketing);
// The smallest of `lengths` (ascending) that holds `length`; throws
// std::out_of_range when none does.
int64_t graph_length_for(const std::vector<int64_t>& lengths, int64_t length);
// Copies `batch` into the static buffers of a graph captured at length
// ids.size(1): the batch's tokens first, then pad_id with mask 0.
void load_padded(const Batch& batch, torch::Tensor& ids, torch::Tensor& mask, torch::Tensor& labels,
                 int32_t pad_id);

}  // namespace ftb
