#include "core/model/classifier.h"

#include "core/model/bert.h"
#include "core/model/distilbert.h"

namespace ftb {
namespace nn = torch::nn;

void SequenceClassifierImpl::init_weights() {
  torch::NoGradGuard no_grad;
  const double std = config.initializer_range;
  for (auto& m : modules(/*include_self=*/false)) {
    if (auto* lin = m->as<nn::Linear>()) {
      lin->weight.normal_(0.0, std);
      lin->bias.zero_();
    } else if (auto* emb = m->as<nn::Embedding>()) {
      emb->weight.normal_(0.0, std);
      if (emb->options.padding_idx()) emb->weight[*emb->options.padding_idx()].zero_();
    } else if (auto* ln = m->as<nn::LayerNorm>()) {
      ln->weight.fill_(1.0);
      ln->bias.zero_();
    }
  }
}

SequenceClassifier make_classifier(const ModelConfig& config) {
  std::shared_ptr<SequenceClassifierImpl> impl;
  if (config.type == ModelType::bert) impl = std::make_shared<BertForSequenceClassificationImpl>(config);
  else impl = std::make_shared<DistilBertForSequenceClassificationImpl>(config);
  return SequenceClassifier(impl);
}

}  // namespace ftb
