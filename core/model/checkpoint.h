// Hugging Face model folders: config.json + model.safetensors (+ vocab.txt or
// tokenizer.json). We read what transformers writes and write what
// from_pretrained reads, for every architecture of core/model/classifier.h.
#pragma once

#include <string>
#include <vector>

#include "core/model/classifier.h"
#include "core/model/hf_config.h"

namespace ftb {

// What from_pretrained reports, HF names: what a run prints and records.
struct LoadReport {
  std::vector<std::string> initialised;  // head parameters absent from the file (fresh init)
  std::vector<std::string> ignored;      // tensors in the file the model does not use
  // What was loaded, as content: FNV-1a 64 over each loaded parameter's name
  // and its values as the model holds them, in the model's order. Two folders
  // with the same weights give one hash; a run's identity compares weights
  // by it, not by the folder's path.
  std::string weights_hash;
};

// A checkpoint without the classification head: fine-tuning starts from a
// fresh head (as from_pretrained does); inference must not (random logits).
enum class MissingHead { initialise, reject };

// Copies the tensors of `safetensors_path` into `model` by HF name. Two
// layouts load, decided by where the word embeddings are: the task model's
// (names with the body prefix "distilbert." / "bert.") and the bare body's
// (DistilBertModel, BertModel, sentence-transformers), each with or without a
// head; a masked-LM head (vocab_projector, cls.predictions) is reported as
// unused. Head parameters missing from the file keep their fresh init (with
// MissingHead::initialise), as in from_pretrained. A file that fits neither
// layout, lacks a body tensor, or has one with the wrong shape is an
// InputError naming the file and the tensor(s).
LoadReport load_weights(SequenceClassifier& model, const std::string& safetensors_path,
                        MissingHead missing_head = MissingHead::initialise);

// config.json + model.safetensors from `dir` (InputError naming the file).
SequenceClassifier load_model_dir(const std::string& dir, LoadReport* report = nullptr,
                                  MissingHead missing_head = MissingHead::initialise);

// Writes dir/config.json and dir/model.safetensors (fp32, HF names), creating
// dir; each file goes through a temporary file and a rename.
void save_model_dir(SequenceClassifier& model, const std::string& dir);

}  // namespace ftb
