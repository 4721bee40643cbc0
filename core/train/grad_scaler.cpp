#include "core/train/grad_scaler.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "core/model/compat.h"

namespace ftb {
namespace {

// Grads of one (device, dtype): the unit the foreach kernel takes.
struct GradGroup {
  torch::Device device;
  torch::ScalarType dtype;
  std::vector<torch::Tensor> grads;
};

// Same semantics as the kernel: found_inf = 1 if any grad has an inf/NaN, and
// every grad is multiplied by inv_scale (also when found_inf: those grads are
// discarded by the skipped step). No host sync.
void composite_check_and_unscale_(const std::vector<torch::Tensor>& grads, torch::Tensor& found_inf,
                                  const torch::Tensor& inv_scale) {
  std::vector<torch::Tensor> finite;
  finite.reserve(grads.size());
  for (const auto& g : grads) finite.push_back(torch::isfinite(g).all());
  found_inf.copy_(torch::maximum(found_inf, torch::stack(finite).all().logical_not().to(found_inf.dtype())));
  for (const auto& g : grads) g.mul_(inv_scale);
}

// Same semantics as the CUDA/CPU kernel of _amp_update_scale_, including
// "grow only if the grown scale is finite" (the tracker resets either way).
void composite_update_scale_(torch::Tensor& scale, torch::Tensor& growth_tracker, const torch::Tensor& found_inf,
                             double growth_factor, double backoff_factor, int64_t growth_interval) {
  auto inf = found_inf > 0;
  auto successful = growth_tracker + 1;
  auto grow = inf.logical_not().logical_and(successful == growth_interval);
  auto grown = scale * growth_factor;
  auto new_scale = torch::where(inf, scale * backoff_factor,
                                torch::where(grow.logical_and(torch::isfinite(grown)), grown, scale));
  auto new_tracker = torch::where(inf.logical_or(grow), torch::zeros_like(growth_tracker), successful);
  scale.copy_(new_scale);
  growth_tracker.copy_(new_tracker);
}

}  // namespace

GradScaler::GradScaler(GradScalerOptions options) : options_(options) {
  if (options_.init_scale <= 0 || options_.growth_factor <= 1 || options_.backoff_factor <= 0 ||
      options_.backoff_factor >= 1 || options_.growth_interval < 1)
    throw std::invalid_argument(
        "GradScaler: need init_scale > 0, growth_factor > 1, 0 < backoff_factor < 1, growth_interval >= 1");
}

bool GradScaler::native_ops(const torch::Device& device) const {
  if (options_.force_composite) return false;
  return device.is_cuda() || device.is_cpu();
}

void GradScaler::require_scale(const char* caller) const {
  if (!scale_.defined())
    throw std::logic_error(std::string("GradScaler::") + caller +
                           ": call scale(loss) first (the scale lives on the loss's device)");
}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) {
  if (!options_.enabled) return loss;
  if (!scale_.defined()) {
    auto on = torch::TensorOptions().device(loss.device());
    scale_ = torch::full({}, options_.init_scale, on.dtype(torch::kFloat));
    growth_tracker_ = torch::zeros({}, on.dtype(torch::kInt));
  }
  return loss * scale_.to(loss.device(), /*non_blocking=*/true);
}

torch::Tensor GradScaler::unscale_grads(torch::optim::Optimizer& optimizer, const torch::Tensor& inv_scale) {
  std::vector<torch::Tensor> grads;
  for (auto& param_group : optimizer.param_groups())
    for (auto& p : param_group.params())
      if (p.grad().defined()) grads.push_back(p.grad());  // shares storage: the ops below are in place
  return unscale_list(grads, inv_scale);
}

torch::Tensor GradScaler::unscale_list(const std::vector<torch::Tensor>& grads, const torch::Tensor& inv_scale) {
  std::vector<GradGroup> groups;
  for (const auto& g : grads) {
    if (g.is_sparse()) throw std::invalid_argument("GradScaler: sparse gradients are not supported");
    // As Python's GradScaler: fp16 master weights cannot be unscaled safely;
    // autocast keeps the parameters fp32 and casts inside the ops.
    if (g.scalar_type() == torch::kHalf)
      throw std::invalid_argument("GradScaler: attempting to unscale fp16 gradients (keep the parameters fp32)");
    auto it = groups.begin();
    while (it != groups.end() && !(it->device == g.device() && it->dtype == g.scalar_type())) ++it;
    if (it == groups.end()) it = groups.insert(groups.end(), GradGroup{g.device(), g.scalar_type(), {}});
    it->grads.push_back(g);
  }
  auto found_inf = torch::zeros({}, scale_.options());
  for (auto& group : groups) {
    auto found_here = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(group.device));
    auto inv_here = inv_scale.to(group.device, /*non_blocking=*/true);
    if (native_ops(group.device))
      at::_amp_foreach_non_finite_check_and_unscale_(group.grads, found_here, inv_here);
    else
      composite_check_and_unscale_(group.grads, found_here, inv_here);
    found_inf += found_here.to(scale_.device(), /*non_blocking=*/true);
  }
  return found_inf;
}

void GradScaler::unscale_(torch::optim::Optimizer& optimizer) {
  if (!options_.enabled) return;
  require_scale("unscale_");
  auto& state = per_optimizer_[&optimizer];
  if (state.stage == Stage::unscaled)
    throw std::logic_error("GradScaler::unscale_: already called on this optimizer since the last update()");
  if (state.stage == Stage::stepped) throw std::logic_error("GradScaler::unscale_: called after step()");
  state.found_inf = unscale_grads(optimizer, inv_scale());
  state.stage = Stage::unscaled;
}

torch::Tensor GradScaler::inv_scale() const {
  // Reciprocal in fp64, as Python does: exact for the power-of-two scales.
  return scale_.to(torch::kDouble).reciprocal().to(torch::kFloat);
}

torch::Tensor GradScaler::unscale_grads_(const std::vector<torch::Tensor>& grads) {
  if (!options_.enabled) return torch::Tensor();
  require_scale("unscale_grads_");
  return unscale_list(grads, inv_scale());
}

bool GradScaler::step(torch::optim::Optimizer& optimizer) {
  if (!options_.enabled) {
    optimizer.step();
    return true;
  }
  require_scale("step");
  auto& state = per_optimizer_[&optimizer];
  if (state.stage == Stage::stepped)
    throw std::logic_error("GradScaler::step: already called on this optimizer since the last update()");
  if (state.stage == Stage::ready) unscale_(optimizer);
  // The one host sync of the step (Python's GradScaler reads found_inf the same way).
  const bool finite = state.found_inf.item<float>() == 0.0f;
  if (finite)
    optimizer.step();
  else
    ++skipped_steps_;
  state.stage = Stage::stepped;
  return finite;
}

torch::Tensor GradScaler::check_inf_(torch::optim::Optimizer& optimizer) {
  require_scale("check_inf_");
  auto& state = per_optimizer_[&optimizer];
  if (state.stage != Stage::ready)
    throw std::logic_error("GradScaler::check_inf_: the grads of this optimizer were already handled this step");
  // inv_scale = 1: detect only, grads stay scaled (x * 1 is exact) for the fused step.
  state.found_inf = unscale_grads(optimizer, torch::ones({}, scale_.options()));
  state.stage = Stage::stepped;  // the caller's fused step consumes found_inf; then update()
  return state.found_inf;
}

void GradScaler::update() {
  if (!options_.enabled) return;
  require_scale("update");
  torch::Tensor found_inf;
  for (const auto& [opt, state] : per_optimizer_)
    if (state.found_inf.defined()) found_inf = found_inf.defined() ? found_inf + state.found_inf : state.found_inf;
  if (!found_inf.defined())
    throw std::logic_error("GradScaler::update: no inf checks were recorded (call step() first)");
  update(found_inf);
}

void GradScaler::update(const torch::Tensor& found_inf) {
  if (!options_.enabled) return;
  require_scale("update");
  if (native_ops(scale_.device()))
    at::_amp_update_scale_(scale_, growth_tracker_, found_inf, options_.growth_factor, options_.backoff_factor,
                           options_.growth_interval);
  else
    composite_update_scale_(scale_, growth_tracker_, found_inf, options_.growth_factor, options_.backoff_factor,
                            options_.growth_interval);
  per_optimizer_.clear();
}

void GradScaler::reset_() {
  if (scale_.defined()) {
    scale_.fill_(options_.init_scale);
    growth_tracker_.zero_();
  }
  per_optimizer_.clear();
  skipped_steps_ = 0;
}

double GradScaler::scale_value() const { return scale_.defined() ? scale_.item<float>() : options_.init_scale; }

int64_t GradScaler::growth_tracker() const { return growth_tracker_.defined() ? growth_tracker_.item<int>() : 0; }

torch::Tensor GradScaler::found_inf(const torch::optim::Optimizer& optimizer) const {
  auto it = per_optimizer_.find(&optimizer);
  return it == per_optimizer_.end() ? torch::Tensor() : it->second.found_inf;
}

}  // namespace ftb
