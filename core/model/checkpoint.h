// Hugging Face model folders: config.json + model.safetensors (+ vocab.txt).
// We read what transformers writes and write what from_pretrained reads.
#pragma once

#include <string>
#include <vector>

#include "core/model/hf_config.h"
#include "core/model/distilbert.h"

namespace ftb {

// What from_pretrained reports, HF names: what a run prints and records.
struct LoadReport {
  std::vector<std::string> initialised;  // head parameters absent from the file (fresh init)
  std::vector<std::string> ignored;      // tensors in the file the model does not use
};

// A checkpoint without the classification head: fine-tuning starts from a
// fresh head (as from_pretrained does); inference must not (random logits).
enum class MissingHead { initialise, reject };

// Copies the tensors of `safetensors_path` into `model` by HF name. Accepts
// names with or without the "distilbert." prefix (base-model checkpoints such
// as distilbert-base-uncased's have the MLM head instead of ours: the
// classification head then keeps its fresh init, as in from_pretrained).
// Every body parameter (and with MissingHead::reject every head parameter)
// must be present with the model's shape, else InputError naming the file and
// the missing tensors, or the tensor with the wrong shape.
LoadReport load_weights(DistilBertForSequenceClassification& model, const std::string& safetensors_path,
                        MissingHead missing_head = MissingHead::initialise);

// config.json + model.safetensors from `dir` (InputError naming the file).
DistilBertForSequenceClassification load_model_dir(const std::string& dir, LoadReport* report = nullptr,
                                                   MissingHead missing_head = MissingHead::initialise);

// Writes dir/config.json and dir/model.safetensors (fp32, HF names), creating
// dir; each file goes through a temporary file and a rename.
void save_model_dir(DistilBertForSequenceClassification& model, const std::string& dir);

}  // namespace ftb
