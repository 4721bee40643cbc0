// RunConfig: everything a run depends on, resolved from a preset, the CLI
// flags and key=value overrides (in that order). Unknown keys are errors; the
// resolved config is printed at start and written into the report.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/allocator.h"
#include "core/measure/precision.h"
#include "core/model/hf_config.h"
#include "core/text/text_data.h"
#include "core/train/train_options.h"

namespace ftb {

// MFU's peak: where it comes from and, for a given number, its TFLOP/s.
enum class PeakSource { measured, datasheet, given };
FTB_CHOICES(PeakSource,
            {PeakSource::measured, "measured"},
            {PeakSource::datasheet, "datasheet"},
            {PeakSource::given, "given"});
struct PeakSetting {
  PeakSource source = PeakSource::measured;
  double tflops = 0;  // given
};
// "measured" | "datasheet" | a positive number of TFLOP/s; InputError naming peak.
PeakSetting parse_peak(const std::string& value);
std::string to_string(const PeakSetting& peak);  // as parse_peak reads it

struct RunConfig {
  std::string preset = "quick";
  std::vector<std::string> scenarios;  // empty = every registered scenario
  std::string model_dir;  // HF folder (config.json, model.safetensors, vocab.txt or tokenizer.json); "" = embedded default
  // With model_dir: pretrained loads its weights (from_pretrained), random
  // keeps the architecture and tokenizer but starts from fresh weights
  // (from_config): the control run for what pre-training buys.
  ModelInit init = ModelInit::pretrained;
  std::string data;       // IMDB archive/folder, CSV, or train/val/test.csv folder; "" = synthetic
  std::string vocab;      // vocab.txt or tokenizer.json; "" = model_dir's, else built from the training text
  std::string device = "auto";
  int repeats = 1;
  int world_size = 0;  // ranks of the distributed scenarios; 0 = auto (GPUs on CUDA, 2 on CPU)

  // Distributed scenarios (ddp, sharded, zero2, fabric).
  double bucket_mb = 25;          // gradient bucket cap in MiB (PyTorch DDP's bucket_cap_mb)
  double dist_timeout_s = 300;    // rendezvous and every collective; a dead/hung peer fails the run after this
  std::optional<Precision> dp_precision;      // ddp/sharded/zero2; nullopt = auto (16-mixed on CUDA, 32 on CPU)
  // Distributed rows: the device bytes a rank may keep for the model's state
  // (parameters, gradients, optimizer state, zero3's gathered units); a row
  // that needs more fails saying so, as a device of that size would.
  // 0 = no budget.
  int64_t max_device_bytes = 0;
  Strategy fabric_strategy = Strategy::zero2;  // ftbench's row names, or DeepSpeed's/FSDP's (train_options.h)
  std::optional<Precision> fabric_precision;  // nullopt = auto (16-mixed on CUDA, bf16-mixed on CPU)

  // Training (the reference: 3 epochs, batch 12, Adam lr 5e-5, seed 123).
  int epochs = 3;
  int batch_size = 12;  // the micro-batch, per rank: what one forward and backward computes on
  // Gradient accumulation (DeepSpeed's gradient_accumulation_steps,
  // Lightning's accumulate_grad_batches, HF Trainer's
  // gradient_accumulation_steps): an optimizer step consumes `accumulate`
  // micro-batches of batch_size, each loss scaled by 1/accumulate before its
  // backward, so K micro-batches of B are one batch of K*B (a step's samples
  // are accumulate * batch_size * ranks). The loader yields the step's K*B
  // examples and the step splits them (core/train/train_step.h:
  // accumulate_gradients); steps, warm-up steps and step times count
  // optimizer steps. Rows whose step cannot run micro-batches are skipped
  // with the reason (cuda_graph's captured step, the Python peer). 1 = off.
  int accumulate = 1;
  int eval_batch_size = 0;  // 0 = batch_size
  double lr = 5e-5;
  std::optional<AdamKernel> adam;  // auto = nullopt (PyTorch's pick: foreach on CUDA, loop on CPU) | loop | foreach | fused
  uint64_t seed = 123;
  // The training run's own randomness (initial weights, dropout, shuffling);
  // the data split stays seed's. 0 = seed. training_seed() resolves it.
  uint64_t train_seed = 0;
  // on: repeat i retrains with training_seed() + i (issue 47: the spread of
  // accuracy over training luck; the keeps-accuracy verdict pairs by seed).
  bool seed_per_repeat = false;
  // The keeps-accuracy verdict's minimum effect, percentage points.
  double accuracy_min_effect = 1.0;
  int max_steps = 0;         // per-epoch cap on training steps; 0 = the whole epoch
  int eval_max_batches = 0;  // cap on validation/test batches; 0 = all
  int warmup_steps = 2;      // steps excluded from the step-time statistics
  // Steps profiled per row after its timed repeats, in an extra untimed pass
  // (scenarios/profile_pass.h); 0 = off; `run --profile` = 5.
  int profile = 0;

  // Data and tokenization (the reference pads every sequence to 512).
  int max_length = 512;
  Padding padding = Padding::max_length;
  bool bucketing = false;  // on: batches of similar length (needs padding=longest); order still shuffled
  int64_t limit = 0;                   // keep the first N shuffled examples; 0 = all
  int64_t synthetic_count = 5000;      // size of the synthetic corpus
  double label_noise = 0.05;
  SyntheticLengths synthetic_lengths = SyntheticLengths::compact;  // core/text/text_data.h
  // Size of a vocabulary trained from the corpus (WordPiece, when neither
  // vocab nor model_dir gives one); 0 = auto: until every word seen twice in
  // the training split is one token, at most kAutoVocabCap entries
  // (core/text/wordpiece_trainer.h).
  int vocab_size = 0;
  // Batches prepared ahead by the loader thread; -1 = auto (resolve_prefetch:
  // 2 where the loader has a core of its own or the step runs on a GPU, else
  // 0, synchronous: on a CPU whose every core computes, a loader thread
  // competes with the compute threads and makes runs land apart).
  int prefetch = -1;
  // glibc malloc's thresholds for the run (core/base/allocator.h): tuned
  // (fixed; the peer and the ranks inherit them) | system (glibc's moving default).
  MallocMode allocator = MallocMode::tuned;

  // Embedded model (used when model_dir is empty); HF DistilBERT names for
  // either family (for bert: hidden_size, num_hidden_layers, ...).
  ModelType model_type = ModelType::distilbert;
  int dim = 768, n_layers = 6, n_heads = 12, hidden_dim = 3072;
  double dropout = 0.1;
  int model_vocab_size = 0;  // 0 = the tokenizer's vocabulary size

  int threads = 0;  // intra-op threads; 0 = every core of the machine

  // MFU's denominator: measured (this run's matmul peak), datasheet (the
  // vendor's dense peak, core/measure/datasheet_peaks.h; none for an unknown
  // device), or a number in TFLOP/s per device for every precision (a
  // nightly series pins one reference).
  PeakSetting peak;
};

// Presets: quick (the default: smoke trained less, 3 repeats, every row in
// about 5 minutes on 2 cores), smoke (tiny model on the synthetic corpus,
// 3 epochs, minutes on 2 cores), paper (the reference's workload; needs --model and --data),
// synthetic-full (full-size DistilBERT on synthetic data: compare GPUs without
// downloads), mfu (full-size shape, 1 warm-up + 3 timed steps),
// pretrained-small (the reference's recipe from a small pre-trained BERT-family
// folder, tools/get_pretrained.sh, on IMDB: about 30 minutes on 2 cores).
// `reviews`: the run reads real reviews (--data or data=), where smoke trains
// 1 epoch at 256 tokens, batch 64, instead of 3 at 128, batch 32 (see
// preset_config).
RunConfig preset_config(const std::string& name, bool reviews = false);
// The seed of the training run's randomness: train_seed, else seed.
uint64_t training_seed(const RunConfig& c);  // InputError naming --preset
std::vector<std::string> preset_names();

// Applies "key=value" (InputError naming the key when unknown or malformed:
// a choice's message lists every accepted name).
void apply_override(RunConfig& config, const std::string& assignment);
// Checks ranges and combinations; InputError naming the offending key.
void validate(const RunConfig& config);

nlohmann::json to_json(const RunConfig& config);
// Rows (key, value, description) for the start-of-run table.
std::vector<std::vector<std::string>> config_rows(const RunConfig& config);

}  // namespace ftb
