// The one optimizer factory every row uses: Adam as the reference's
// torch.optim.Adam(params, lr) (betas 0.9/0.999, eps 1e-8, no weight decay),
// with the kernels chosen here and recorded by the row, so that a speed-up is
// never credited to the wrong technique:
//   loop     torch::optim::Adam, ~8 kernels per parameter (PyTorch's pick on CPU)
//   foreach  ForeachAdam, a dozen multi-tensor kernels (PyTorch's pick on CUDA)
//   fused    one fused kernel (aten::_fused_adam_), torch.optim.Adam(fused=True)
// Rows whose technique needs a different optimizer take make_device_adam:
// cuda_graph (a capturable step: step counters on the device) and the
// data-parallel rows (the step over flat bucket views or this rank's shard).
// Kernels are chosen by what the LibTorch at hand offers for the device
// (fused: CUDA and, from LibTorch 2.4, the CPU), probed at run time (see
// fused_adam_available).
#pragma once

#include <torch/torch.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/train/fused_adam.h"
#include "core/train/train_options.h"

namespace ftb {


// Whether this LibTorch has the fused Adam kernel for the device type
// (probed once per device type with a one-element call; cached).
bool fused_adam_available(const torch::Device& device);

// The config key `adam`: auto (nullopt: what torch.optim.Adam picks, foreach
// on CUDA, loop on CPU) | loop | foreach | fused. InputError naming `adam`
// for fused where this LibTorch has no fused kernel.
AdamKernel resolve_adam_kernel(std::optional<AdamKernel> setting, const torch::Device& device);

// The torch::optim::Adam for the plain-loop rows (GradScaler and the Trainer
// drive it like any torch::optim optimizer).
std::unique_ptr<torch::optim::Adam> make_adam(std::vector<torch::Tensor> params, double lr, AdamKernel kernel);

// Adam with every piece of state on the parameters' device (capturable) and
// a step that takes the gradients given (flat buckets, shards): the fused
// kernel where this LibTorch has it, else the same math in per-tensor ATen ops.
std::unique_ptr<FusedAdam> make_device_adam(std::vector<torch::Tensor> params, double lr, const torch::Device& device);

// What a row reports as its optimizer: "adam/<kernel>" plus how the state is
// laid out where it is not one tensor per parameter ("adam/fused, flat buckets").
std::string optimizer_label(AdamKernel kernel, const std::string& layout = "");
// The same for a device Adam (make_device_adam): the kernel it actually ran.
std::string optimizer_label(const FusedAdam& adam, const std::string& layout);

}  // namespace ftb
