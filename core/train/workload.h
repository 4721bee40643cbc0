// The Workload: tokenized train/val/test splits and the model factory that
// every scenario of a run shares. Built once per run from the RunConfig
// (data preparation is outside every timed region, as in the reference).
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "core/train/batching.h"
#include "core/model/checkpoint.h"
#include "core/model/hf_config.h"
#include "core/model/classifier.h"
#include "core/train/run_config.h"
#include "core/text/tokenizer.h"
#include "core/text/wordpiece_trainer.h"
#include "core/text/tokenizer_json.h"

namespace ftb {

struct Workload {
  ModelConfig model_config;
  std::string model_dir;        // "" = random init (embedded default)
  bool random_init = false;     // with model_dir: its architecture, fresh weights (init=random)
  uint64_t seed = 123;
  std::shared_ptr<WordPieceTokenizer> tokenizer;
  TokenizedSplit train, val, test;
  std::string data_source;      // "synthetic(n=..., seed=...)" or the path
  std::string vocab_source;     // file or "trained WordPiece on the training split (...)"
  // How a vocabulary learned from the corpus was made (tokens left empty);
  // target_size 0 = read from a file.
  TrainedVocab vocab_training;
  bool vocab_auto_size = false;  // vocab_size=0: the auto rule chose target_size
  double prep_time_s = 0;
  // With model_dir: the head tensors initialised fresh and the checkpoint's
  // tensors not used (from_pretrained's warning), found while building.
  LoadReport model_load;

  // A fresh model with this workload's initial weights: the same for every
  // scenario and rank (seeded), loaded from model_dir when given.
  SequenceClassifier make_model(LoadReport* load = nullptr) const;
  LoaderOptions train_loader_options(const RunConfig& c) const;
  LoaderOptions eval_loader_options(const RunConfig& c) const;
  nlohmann::json describe() const;  // sizes and sources, for the report
  nlohmann::json vocab_json() const;  // describe()'s "vocab": file, or trained and how
  std::string summary() const;      // one line for the console: sizes, source, vocabulary, time
  // From_pretrained's warning, one line each for fresh and unused tensors; "" without model_dir.
  std::string load_warning() const;
};

// The loader's prefetch for this process: config.prefetch when >= 0; for -1
// (auto) 2 when the step runs on a GPU or a core is left over for the loader
// thread (intra-op threads x the local ranks (LOCAL_WORLD_SIZE) < the cores),
// else 0: a loader thread competing with compute threads for every core
// makes processes land apart and first repeats slow, so on a full machine
// the loader runs in the step's thread (docs/statistics.md, "What the set
// showed"). `reason` says which.
int resolve_prefetch(const RunConfig& c, std::string* reason = nullptr);

// Builds the splits, tokenizer and model config; fails (InputError) before any
// training on data that cannot train (see check_trains) and on a checkpoint
// that does not load.
Workload build_workload(const RunConfig& config);

// InputError naming batch_size when an epoch would have no training step
// (the row would report loss 0 and accuracy 0 as if it had trained): each of
// `world_size` ranks takes train/world_size examples and drops the last
// partial batch. (Empty val/test splits fail in build_workload.)
void check_trains(const Workload& workload, const RunConfig& config, int world_size);

}  // namespace ftb
