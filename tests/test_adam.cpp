// FusedAdam (the capturable optimizer of cuda_graph) against torch::optim::Adam.
#include <doctest/doctest.h>
#include <torch/torch.h>

#include "core/train/fused_adam.h"
#include "core/base/errors.h"
#include "core/train/foreach_adam.h"
#include "core/train/optimizer.h"
#include "core/train/run_config.h"
#include "core/model/classifier.h"
#include "tests/skip.h"

namespace {

ftb::ModelConfig tiny() {
  ftb::ModelConfig c;
  c.vocab_size = 50, c.dim = 16, c.n_heads = 2, c.hidden_dim = 32, c.n_layers = 1, c.max_position_embeddings = 16;
  c.dropout = c.attention_dropout = c.seq_classif_dropout = 0.0;
  return c;
}

void loss_backward(ftb::SequenceClassifier& m, int step) {
  torch::manual_seed(100 + step);
  auto ids = torch::randint(1, 50, {4, 8}, torch::kLong);
  auto labels = torch::randint(0, 2, {4}, torch::kLong);
  torch::cross_entropy_loss(m->forward(ids, torch::ones_like(ids)), labels).backward();
}

}  // namespace

TEST_CASE("FusedAdam matches torch::optim::Adam step for step") {
  if (!ftb::fused_adam_available(torch::kCPU)) FTB_SKIP_CASE("this LibTorch has no CPU fused Adam kernel (< 2.4)");
  torch::manual_seed(0);
  auto a = ftb::make_classifier(tiny());
  torch::manual_seed(0);
  auto b = ftb::make_classifier(tiny());
  torch::optim::Adam ref(a->parameters(), torch::optim::AdamOptions(1e-3));
  ftb::FusedAdam fused(b->parameters(), 1e-3);
  for (int step = 0; step < 5; ++step) {
    ref.zero_grad();
    loss_backward(a, step);
    ref.step();
    fused.zero_grad();
    loss_backward(b, step);
    fused.step();
  }
  double worst = 0;
  auto pa = a->parameters(), pb = b->parameters();
  auto names = a->named_parameters().keys();
  for (std::size_t i = 0; i < pa.size(); ++i) {
    // The key bias's gradient is rounding noise (softmax ignores a shift of
    // a row's scores), and Adam normalises noise to +-lr with arbitrary sign.
    if (names[i].find("k_lin.bias") != std::string::npos) continue;
    worst = std::max(worst, ((pa[i] - pb[i]).abs() - 1e-9).clamp_min(0).div(pa[i].abs()).max().item<double>());
  }
  MESSAGE("worst relative difference after 5 steps: " << worst);
  CHECK(worst <= 1e-5);
}

TEST_CASE("FusedAdam skips the step when found_inf is set, and does not count it") {
  // Both paths: the fused kernel where this LibTorch has it, and the
  // per-tensor fallback (the only one on LibTorch < 2.4's CPU).
  for (bool fused : {false, true}) {
    if (fused && !ftb::fused_adam_available(torch::kCPU)) continue;
    CAPTURE(fused);
    torch::manual_seed(0);
    auto m = ftb::make_classifier(tiny());
    ftb::FusedAdam opt(m->parameters(), 1e-3, fused);
    std::vector<torch::Tensor> before;
    for (const auto& p : m->parameters()) before.push_back(p.detach().clone());
    opt.zero_grad();
    loss_backward(m, 0);
    opt.step(torch::ones({}), torch::ones({}));  // grad_scale 1, found_inf 1
    auto params = m->parameters();
    for (std::size_t i = 0; i < params.size(); ++i) CHECK(torch::equal(params[i], before[i]));
    opt.step(torch::ones({}), torch::zeros({}));  // a clean step moves them
    bool moved = false;
    for (std::size_t i = 0; i < params.size(); ++i) moved |= !torch::equal(params[i], before[i]);
    CHECK(moved);
    CHECK(opt.state_bytes() > 0);
    // ... as the first step: the skipped one did not count (Adam's bias
    // correction of step 2 would move the parameters differently).
    torch::manual_seed(0);
    auto fresh = ftb::make_classifier(tiny());
    ftb::FusedAdam once(fresh->parameters(), 1e-3, fused);
    once.zero_grad();
    loss_backward(fresh, 0);
    once.step(torch::ones({}), torch::zeros({}));
    auto expected = fresh->parameters();
    double worst = 0;
    for (std::size_t i = 0; i < params.size(); ++i)
      worst = std::max(worst, (params[i] - expected[i]).abs().max().item<double>());
    CHECK(worst < 1e-7);
  }
  // Asking for the fused kernel where there is none is an error, not a no-op.
  if (!ftb::fused_adam_available(torch::kCPU)) {
    torch::manual_seed(0);
    auto m = ftb::make_classifier(tiny());
    CHECK_THROWS_AS(ftb::FusedAdam(m->parameters(), 1e-3, true), c10::Error);
    CHECK(std::string(ftb::make_device_adam(m->parameters(), 1e-3, torch::kCPU)->kernel()) == "loop");
  }
}

TEST_CASE("ForeachAdam (torch.optim.Adam's default on CUDA) matches torch::optim::Adam step for step") {
  torch::manual_seed(0);
  auto a = ftb::make_classifier(tiny());
  torch::manual_seed(0);
  auto b = ftb::make_classifier(tiny());
  torch::optim::Adam ref(a->parameters(), torch::optim::AdamOptions(1e-3));
  auto foreach = ftb::make_adam(b->parameters(), 1e-3, ftb::AdamKernel::foreach);
  CHECK(dynamic_cast<ftb::ForeachAdam*>(foreach.get()) != nullptr);
  for (int step = 0; step < 5; ++step) {
    ref.zero_grad();
    loss_backward(a, step);
    ref.step();
    foreach->zero_grad();
    loss_backward(b, step);
    foreach->step();
  }
  auto pa = a->parameters(), pb = b->parameters();
  double worst = 0, moved = 0;
  torch::manual_seed(0);
  auto init = ftb::make_classifier(tiny());
  auto p0 = init->parameters();
  for (std::size_t i = 0; i < pa.size(); ++i) {
    worst = std::max(worst, (pa[i] - pb[i]).abs().max().item<double>());
    moved = std::max(moved, (pa[i] - p0[i]).abs().max().item<double>());
  }
  CHECK(worst < 1e-6);
  CHECK(moved > 1e-3);  // the parameters did move
  // PyTorch's pick: foreach on CUDA, the loop on the CPU.
  CHECK(ftb::resolve_adam_kernel(std::nullopt, torch::kCPU) == ftb::AdamKernel::loop);
  CHECK(ftb::resolve_adam_kernel(std::nullopt, torch::Device(torch::kCUDA, 0)) == ftb::AdamKernel::foreach);
  CHECK(ftb::resolve_adam_kernel(ftb::AdamKernel::foreach, torch::kCPU) == ftb::AdamKernel::foreach);
  // The config accepts every kernel the factory has (fused too: the error
  // comes from this LibTorch, not from a list that forgot it).
  auto c = ftb::preset_config("smoke");
  ftb::apply_override(c, "adam=fused");
  CHECK(c.adam == ftb::AdamKernel::fused);
  ftb::apply_override(c, "adam=auto");
  CHECK(!c.adam.has_value());
  CHECK_THROWS_AS(ftb::apply_override(c, "adam=sgd"), ftb::InputError);
  if (!ftb::fused_adam_available(torch::kCPU))
    CHECK_THROWS_AS(ftb::resolve_adam_kernel(ftb::AdamKernel::fused, torch::kCPU), ftb::InputError);
}

TEST_CASE("every Adam kernel of the factory steps as torch::optim::Adam, fused or not") {
  // The factory's torch::optim rows (loop, foreach, fused where this LibTorch
  // has it) and the device Adam on both of its paths (the fused kernel and the
  // per-tensor fallback that serves LibTorch builds without it) agree.
  std::vector<ftb::AdamKernel> kernels{ftb::AdamKernel::loop, ftb::AdamKernel::foreach};
  if (ftb::fused_adam_available(torch::kCPU)) kernels.push_back(ftb::AdamKernel::fused);
  torch::manual_seed(0);
  auto ref_model = ftb::make_classifier(tiny());
  torch::optim::Adam ref(ref_model->parameters(), torch::optim::AdamOptions(1e-3));
  for (int step = 0; step < 4; ++step) {
    ref.zero_grad();
    loss_backward(ref_model, step);
    ref.step();
  }
  auto compare = [&](ftb::SequenceClassifier& m) {
    double worst = 0;
    auto pa = ref_model->parameters(), pb = m->parameters();
    for (std::size_t i = 0; i < pa.size(); ++i) worst = std::max(worst, (pa[i] - pb[i]).abs().max().item<double>());
    return worst;
  };
  for (auto k : kernels) {
    CAPTURE(ftb::to_string(k));
    torch::manual_seed(0);
    auto m = ftb::make_classifier(tiny());
    auto opt = ftb::make_adam(m->parameters(), 1e-3, k);
    for (int step = 0; step < 4; ++step) {
      opt->zero_grad();
      loss_backward(m, step);
      opt->step();
    }
    CHECK(compare(m) < 1e-5);
  }
  for (bool fused : {false, true}) {
    if (fused && !ftb::fused_adam_available(torch::kCPU)) continue;
    CAPTURE(fused);
    torch::manual_seed(0);
    auto m = ftb::make_classifier(tiny());
    ftb::FusedAdam opt(m->parameters(), 1e-3, fused);
    CHECK(std::string(opt.kernel()) == (fused ? "fused" : "loop"));
    for (int step = 0; step < 4; ++step) {
      opt.zero_grad();
      loss_backward(m, step);
      opt.step(torch::ones({}), torch::zeros({}));
    }
    CHECK(compare(m) < 1e-5);
  }
  CHECK(ftb::optimizer_label(ftb::AdamKernel::fused, "flat buckets") == "adam/fused, flat buckets");
}
