// ForeachAdam: torch::optim::Adam with the step that Python's
// torch.optim.Adam takes by default on CUDA (foreach=True, its
// _multi_tensor_adam): a fixed dozen multi-tensor kernels per step instead of
// LibTorch's loop of ~8 kernels per parameter (DistilBERT has 104). Same
// state (AdamParamState), same math up to rounding (lerp for the first
// moment, as Python), so GradScaler and tests treat it as the Adam it is.
//
// The reference's baseline is `torch.optim.Adam(params, lr)`: PyTorch picks
// foreach on CUDA and the per-parameter loop on the CPU; the optimizer factory
// (core/train/optimizer.h) does the same for adam=auto.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

namespace ftb {

class ForeachAdam : public torch::optim::Adam {
 public:
  using torch::optim::Adam::Adam;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace ftb
