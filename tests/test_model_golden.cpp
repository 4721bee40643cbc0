// The C++ models against Hugging Face's on the same weights and inputs
// (fixtures from tools/golden_model.py: golden_model is DistilBERT,
// golden_bert is BERT; fp32).
#include <doctest/doctest.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/model/checkpoint.h"
#include "core/model/safetensors.h"
#include "core/base/errors.h"
#include "core/base/files.h"

namespace {

const std::string kDir = std::string(FTB_FIXTURES_DIR) + "/golden_model";
const std::string kBertDir = std::string(FTB_FIXTURES_DIR) + "/golden_bert";

nlohmann::json golden(const std::string& dir) {
  std::ifstream in(dir + "/golden.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

torch::Tensor tensor_2d(const nlohmann::json& j, torch::Dtype dtype) {
  std::vector<double> flat;
  for (const auto& row : j)
    for (const auto& v : row) flat.push_back(v.get<double>());
  return torch::tensor(flat, torch::kFloat64).view({static_cast<int64_t>(j.size()), -1}).to(dtype);
}

double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

void check_eval(const std::string& dir) {
  const auto g = golden(dir);
  auto model = ftb::load_model_dir(dir);
  model->eval();
  auto ids = tensor_2d(g["input_ids"], torch::kLong);
  auto mask = tensor_2d(g["attention_mask"], torch::kLong);
  auto labels = torch::tensor(g["labels"].get<std::vector<int64_t>>());
  torch::NoGradGuard no_grad;
  auto logits = model->forward(ids, mask);
  const double diff = max_abs_diff(logits, tensor_2d(g["eval_logits"], torch::kFloat));
  MESSAGE("eval logits maxdiff " << diff);
  CHECK(diff <= 1e-5);
  const double loss = torch::cross_entropy_loss(logits, labels).item<double>();
  CHECK(loss == doctest::Approx(g["eval_loss"].get<double>()).epsilon(1e-5));
}

void check_adam_step(const std::string& dir) {
  const auto g = golden(dir);
  auto model = ftb::load_model_dir(dir);
  // Dropout off, train mode: the computation the fixture recorded.
  for (auto& m : model->modules())
    if (auto* d = m->as<torch::nn::Dropout>()) d->options.p(0.0);
  model->train();
  auto ids = tensor_2d(g["input_ids"], torch::kLong);
  auto mask = tensor_2d(g["attention_mask"], torch::kLong);
  auto labels = torch::tensor(g["labels"].get<std::vector<int64_t>>());

  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(g["adam_lr"].get<double>()));
  auto loss = torch::cross_entropy_loss(model->forward(ids, mask), labels);
  CHECK(loss.item<double>() == doctest::Approx(g["train_loss"].get<double>()).epsilon(1e-5));
  opt.zero_grad();
  loss.backward();
  // Where |gradient| is within 100x of Adam's eps (1e-8), the first step,
  // lr * g / (|g| + eps), follows g's rounding noise: such a gradient is a
  // near-cancellation whose relative error in fp32 is percent-level in either
  // program (one element of BERT's last query weight has |g| = 4e-9, where
  // the [CLS]-only pooler reads one query row). Those elements can only be
  // held to a step no larger than lr, as the key bias below.
  std::map<std::string, torch::Tensor> ill_conditioned;
  for (const auto& item : model->named_parameters())
    ill_conditioned[item.key()] = item.value().grad().abs() < 1e-6;
  opt.step();

  const auto after = ftb::SafetensorsFile::read(dir + "/after_adam_step.safetensors");
  double worst_rel = 0;
  std::string worst;
  const double lr = g["adam_lr"].get<double>();
  for (const auto& item : model->named_parameters()) {
    REQUIRE(after.contains(item.key()));
    auto want = after.tensor(item.key());
    auto got = item.value().detach();
    // The key bias adds q.b_k to every score of a query row, which softmax
    // ignores: its gradient is exactly 0 in real arithmetic and rounding
    // noise (~1e-10) in both implementations. Adam's first step normalises
    // that noise to +-lr, so its sign is arbitrary in either program; all we
    // can require is a step no larger than lr.
    if (item.key().find("attention.k_lin.bias") != std::string::npos ||
        item.key().find("attention.self.key.bias") != std::string::npos) {
      CHECK((got - want).abs().max().item<double>() <= 2 * lr * (1 + 1e-3));
      continue;
    }
    // Relative error 1e-6, as torch.allclose(rtol=1e-6, atol=1e-9): the atol
    // only matters for weights within ~1e-3 of zero, and is 1/50,000 of the
    // lr-sized move a wrong update makes.
    const auto& ill = ill_conditioned.at(item.key());
    if (ill.any().item<bool>())
      CHECK((got - want).abs().masked_select(ill).max().item<double>() <= 2 * lr * (1 + 1e-3));
    auto rel = ((got - want).abs() - 1e-9).clamp_min(0).div(want.abs()).masked_fill(ill, 0).max().item<double>();
    if (rel > worst_rel) worst_rel = rel, worst = item.key();
  }
  MESSAGE("after-step params: worst relative diff " << worst_rel << " (" << worst << ")");
  CHECK(worst_rel <= 1e-6);

  model->eval();
  torch::NoGradGuard no_grad;
  const double diff = max_abs_diff(model->forward(ids, mask), tensor_2d(g["after_step_logits"], torch::kFloat));
  MESSAGE("after-step logits maxdiff " << diff);
  CHECK(diff <= 1e-5);
}

}  // namespace

TEST_CASE("golden: eval logits and loss match Hugging Face") { check_eval(kDir); }
TEST_CASE("golden: one Adam step matches torch.optim.Adam on Hugging Face's model") { check_adam_step(kDir); }
TEST_CASE("golden bert: eval logits and loss match Hugging Face's BertForSequenceClassification") {
  check_eval(kBertDir);
}
TEST_CASE("golden bert: one Adam step matches torch.optim.Adam on Hugging Face's BERT") {
  check_adam_step(kBertDir);
}

TEST_CASE("checkpoint: a folder we write loads back bit-identically, for either model") {
  for (const auto& src : {kDir, kBertDir}) {
    CAPTURE(src);
    ftb::LoadReport first, copy, changed;
    auto model = ftb::load_model_dir(src, &first);
    const auto dir = std::filesystem::temp_directory_path() / ("ftb_ckpt_" + std::to_string(::getpid()));
    ftb::save_model_dir(model, dir.string());
    auto again = ftb::load_model_dir(dir.string(), &copy);
    auto a = model->named_parameters(), b = again->named_parameters();
    REQUIRE(a.size() == b.size());
    for (const auto& item : a) CHECK(torch::equal(item.value(), b[item.key()]));
    // The run identity's weights_hash: the same weights in another folder
    // are one model; one value changed is another.
    CHECK(first.weights_hash.size() == 16);
    CHECK(copy.weights_hash == first.weights_hash);
    {
      torch::NoGradGuard no_grad;
      a.begin()->value().view(-1)[0].add_(1e-3);
    }
    ftb::save_model_dir(model, dir.string());
    (void)ftb::load_model_dir(dir.string(), &changed);
    CHECK(changed.weights_hash != first.weights_hash);
    CHECK(again->config.type == model->config.type);
    CHECK(again->config.layer_norm_eps == model->config.layer_norm_eps);
    for (const char* f : {"config.json", "model.safetensors"}) ::unlink((dir / f).c_str());
    ::rmdir(dir.c_str());  // not fs::remove_all: it crashes under the pip LibTorch (pytorch#133437)
  }
}

TEST_CASE("checkpoint: a base model's file loads as from_pretrained does, and predicting rejects it") {
  // distilbert-base-uncased's layout: the MLM head instead of ours. Bare body
  // names here (a DistilBertModel file); the prefixed layout is cli.model_load_report's.
  auto golden_model = ftb::load_model_dir(kDir);
  std::vector<std::pair<std::string, torch::Tensor>> tensors{{"vocab_projector.bias", torch::zeros({101})}};
  for (const auto& item : golden_model->named_parameters())
    if (!golden_model->is_head_parameter(item.key())) tensors.emplace_back(item.key().substr(11), item.value());
  ftb::TempDir dir("ftb-base-");
  const std::string path = dir.path() + "/model.safetensors";
  ftb::write_safetensors(path, tensors);

  auto model = ftb::make_classifier(golden_model->config);
  const auto report = ftb::load_weights(model, path);
  CHECK(report.initialised == std::vector<std::string>{"pre_classifier.weight", "pre_classifier.bias",
                                                       "classifier.weight", "classifier.bias"});
  CHECK(report.ignored == std::vector<std::string>{"vocab_projector.bias"});
  auto loaded = model->named_parameters();
  CHECK(torch::equal(loaded["distilbert.transformer.layer.1.ffn.lin2.weight"],
                     golden_model->named_parameters()["distilbert.transformer.layer.1.ffn.lin2.weight"]));

  try {
    ftb::load_weights(model, path, ftb::MissingHead::reject);
    FAIL("expected InputError");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()) == path + ": missing tensors pre_classifier.weight, pre_classifier.bias, "
                                          "classifier.weight and 1 more (predicting needs every tensor of the "
                                          "classification model)");
  }
}
