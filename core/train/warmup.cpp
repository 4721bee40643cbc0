#include "core/train/warmup.h"

#include "core/train/device.h"
#include "core/train/optimizer.h"
#include "core/train/records.h"
#include "core/train/train_step.h"

namespace ftb {

SequenceClassifier train_throwaway(const Workload& w, const RunConfig& c, const Batch& batch,
                                   const torch::Device& device, Precision precision, int steps, bool also_fused) {
  auto model = w.make_model();
  model->to(device);
  model->train();
  std::vector<std::unique_ptr<torch::optim::Adam>> optimizers;
  optimizers.push_back(make_adam(model->parameters(), c.lr, resolve_adam_kernel(c.adam, device)));
  if (also_fused && fused_adam_available(device))
    optimizers.push_back(make_adam(model->parameters(), c.lr, AdamKernel::fused));
  const auto forward = autocast_forward(model, device, precision);
  for (int i = 0; i < steps; ++i) train_step(*optimizers[static_cast<size_t>(i) % optimizers.size()], batch, forward);
  return model;
}

double warm_up(const Workload& w, const RunConfig& c, const torch::Device& device, Precision precision, int steps) {
  const auto t0 = Clock::now();
  auto options = w.train_loader_options(c);
  options.prefetch = 0;
  BatchLoader loader(w.train, options);
  loader.start_epoch(0);
  auto first = loader.next();
  if (!first) return 0;
  const Batch b = to_device(*first, device);
  auto model = train_throwaway(w, c, b, device, precision, steps, /*also_fused=*/true);
  {
    torch::NoGradGuard no_grad;
    model->eval();
    autocast_forward(model, device, precision)(b);
  }
  synchronize(device);
  return seconds_since(t0);
}

}  // namespace ftb
