// The Workload: tokenized train/val/test splits and the model factory that
// every scenario of a run shares. Built once per run from the RunConfig
// (data preparation is outside every timed region, as in the reference).
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "core/train/batching.h"
#include "core/model/hf_config.h"
#include "core/model/distilbert.h"
#include "core/train/run_config.h"
#include "core/text/tokenizer.h"

namespace ftb {

struct Workload {
  DistilBertConfig model_config;
  std::string model_dir;        // "" = random init (embedded default)
  uint64_t seed = 123;
  std::shared_ptr<WordPieceTokenizer> tokenizer;
  TokenizedSplit train, val, test;
  std::string data_source;      // "synthetic(n=..., seed=...)" or the path
  std::string vocab_source;     // file or "built from the training split"
  double prep_time_s = 0;

  // A fresh model with this workload's initial weights: the same for every
  // scenario and rank (seeded), loaded from model_dir when given.
  DistilBertForSequenceClassification make_model() const;
  LoaderOptions train_loader_options(const RunConfig& c) const;
  LoaderOptions eval_loader_options(const RunConfig& c) const;
  nlohmann::json describe() const;  // sizes and sources, for the report
  std::string summary() const;      // one line for the console: sizes, source, vocabulary, time
};

Workload build_workload(const RunConfig& config);

}  // namespace ftb
