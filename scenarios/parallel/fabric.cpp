#include "scenarios/parallel/fabric.h"

#include <stdexcept>

#include "core/measure/device.h"
#include "core/measure/phase_recorder.h"
#include "scenarios/parallel/fully_sharded.h"
#include "scenarios/parallel/rank_env.h"
#include "core/base/errors.h"

namespace ftb {

Fabric::Fabric(FabricOptions options) : options_(std::move(options)), precision_(options_.precision) {}

Fabric::~Fabric() = default;

void Fabric::launch() { launch(dist_env_or_world_of_one()); }

void Fabric::launch(const DistEnv& env) {
  if (options_.devices > 0 && options_.devices != env.world_size)
    throw std::runtime_error("Fabric(devices=" + std::to_string(options_.devices) + ") but the launcher started " +
                             std::to_string(env.world_size) + " ranks");
  const std::string acc = options_.accelerator;
  if (acc == "cpu") device_ = torch::kCPU;
  else if (acc == "cuda" || (acc == "auto" && cuda_available()))
    device_ = cuda_device_of_rank(env.local_rank);
  else if (acc == "auto") device_ = torch::kCPU;
  else if (acc.rfind("cuda:", 0) == 0)  // a named GPU: a world of one keeps it, ranks take one each
    device_ = env.world_size == 1 ? resolve_device(acc) : cuda_device_of_rank(env.local_rank);
  else input_error("accelerator", "unknown accelerator \"" + acc + "\" (auto, cpu, cuda, cuda:N)");
  if (precision_ == Precision::fp16_mixed && !device_.is_cuda())
    input_error("precision", "16-mixed needs CUDA (fp16 autocast with loss scaling); use bf16-mixed on the CPU");
  comm_ = dist::Communicator::create(env, device_, options_.timeout, options_.group_name);
}

int Fabric::global_rank() const { return comm_ ? comm_->rank() : 0; }
int Fabric::world_size() const { return comm_ ? comm_->size() : 1; }

dist::Communicator& Fabric::comm() {
  if (!comm_) throw std::logic_error("Fabric: call launch() first");
  return *comm_;
}

dist::GradientSync& Fabric::strategy() {
  if (!dp_) throw std::logic_error("Fabric: call setup(model, optimizer) first");
  return *dp_;
}

FabricOptimizer& Fabric::setup(SequenceClassifier& model, AdamConfig adam) {
  if (!comm_) throw std::logic_error("Fabric::setup: call launch() first");
  if (dp_) throw std::logic_error("Fabric::setup: one model per Fabric");
  model->to(device_);  // parameters stay fp32 in every precision (autocast casts inside the ops)
  dist::DataParallelOptions o;
  o.sharding = dist::sharding_of(options_.strategy);
  o.offload = dist::offloaded(options_.strategy);
  o.bucket_cap_bytes = options_.bucket_cap_bytes;
  o.lr = adam.lr;
  o.accumulate = options_.accumulate;
  dp_ = dist::make_gradient_sync(model, comm_, o, precision_);  // zero3 gathers in its compute dtype
  dp_->broadcast_parameters(0);
  if (precision_ == Precision::fp16_mixed) scaler_ = std::make_unique<GradScaler>();
  skipped_ = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(device_));
  optimizer_.reset(new FabricOptimizer(*this));
  return *optimizer_;
}

LoaderOptions Fabric::setup_dataloader(LoaderOptions options) const {
  options.rank = global_rank();
  options.world_size = world_size();
  return options;
}

void Fabric::backward(const torch::Tensor& loss) {
  strategy();  // throws before setup()
  {
    PhaseScope phase(Phase::backward);
    (scaler_ ? scaler_->scale(loss) : loss).backward();
    // Inside no_backward_sync: no collective, the gradients stay on this rank
    // (zero3 adds what a unit with an unused parameter got to its buffer).
    if (!dp_->sync()) {
      dp_->finish_gradient_sync();
      return;
    }
  }
  PhaseScope phase(Phase::grad_comm);  // what did not overlap backward
  dp_->finish_gradient_sync();
}

NoBackwardSync Fabric::no_backward_sync(bool enabled) {
  auto& dp = strategy();  // throws before setup()
  if (!enabled) return NoBackwardSync(nullptr, true);
  const bool before = dp.sync();
  dp.set_sync(false);
  return NoBackwardSync(&dp, before);
}

NoBackwardSync::~NoBackwardSync() {
  if (sync_ == nullptr) return;
  try {
    sync_->set_sync(restore_);
  } catch (...) {
    // Turning sync back on does not throw; never from a destructor.
  }
}

void Fabric::all_reduce_sum(torch::Tensor& t) { comm().sum_in_place(t); }

void FabricOptimizer::zero_grad() {
  PhaseScope phase(Phase::optimizer);
  fabric_.strategy().zero_grad();
}

void FabricOptimizer::step() {
  PhaseScope phase(Phase::optimizer);
  auto& dp = fabric_.strategy();
  if (!fabric_.scaler_) return dp.step();
  fabric_.skipped_ += dist::scaled_step(dp, *fabric_.scaler_);
}

int64_t Fabric::skipped_steps() const {
  return skipped_.defined() ? static_cast<int64_t>(skipped_.item<float>()) : 0;
}

double Fabric::loss_scale() const { return scaler_ ? scaler_->scale_value() : 1.0; }

}  // namespace ftb
