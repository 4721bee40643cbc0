#include "core/train/workload.h"

#include "core/base/fnv_hash.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

#include "core/model/checkpoint.h"
#include "core/measure/device.h"

#include <ATen/Parallel.h>
#include "core/base/errors.h"
#include "core/text/text_data.h"

namespace ftb {
namespace fs = std::filesystem;

namespace {

Splits load_splits(const RunConfig& c, std::string* source) {
  if (c.data.empty()) {
    SyntheticOptions so;
    so.count = static_cast<std::size_t>(c.synthetic_count);
    so.seed = c.seed;
    so.label_noise = c.label_noise;
    so.lengths = c.synthetic_lengths;
    *source = "synthetic(count=" + std::to_string(c.synthetic_count) + ", seed=" + std::to_string(c.seed) +
              (so.lengths == SyntheticLengths::compact ? "" : ", lengths=" + to_string(so.lengths)) + ")";
    return split_reference(synthetic_corpus(so), c.seed, static_cast<std::size_t>(c.limit));
  }
  *source = c.data;
  if (!fs::exists(c.data)) input_error("--data", "\"" + c.data + "\" does not exist");
  if (is_split_folder(c.data)) return load_split_folder(c.data);
  return split_reference(read_examples(c.data), c.seed, static_cast<std::size_t>(c.limit));
}

std::shared_ptr<WordPieceTokenizer> load_tokenizer(const RunConfig& c, const Splits& splits, Workload& w) {
  std::string path = c.vocab;
  if (path.empty() && !c.model_dir.empty()) path = model_tokenizer_file(c.model_dir);
  if (!path.empty()) {
    w.vocab_source = path;
    return std::make_shared<WordPieceTokenizer>(load_tokenizer_file(path));
  }
  std::vector<std::string> texts;
  texts.reserve(splits.train.size());
  for (const auto& e : splits.train) texts.push_back(e.text);
  WordPieceTrainerOptions options;
  options.vocab_size = static_cast<std::size_t>(c.vocab_size);
  w.vocab_training = train_wordpiece(texts, options);
  w.vocab_auto_size = c.vocab_size == 0;
  const auto& v = w.vocab_training;
  w.vocab_source = "trained WordPiece on the training split (" + std::to_string(v.tokens.size()) + " entries" +
                   (w.vocab_auto_size ? ", auto size" : "") + "; " + std::to_string(v.texts) + " texts, " +
                   std::to_string(v.distinct_words) + " distinct words)";
  auto tokenizer = std::make_shared<WordPieceTokenizer>(WordPieceTokenizer::from_tokens(std::move(w.vocab_training.tokens), "trained vocabulary"));
  w.vocab_training.tokens.clear();
  return tokenizer;
}

}  // namespace

Workload build_workload(const RunConfig& c) {
  const auto t0 = std::chrono::steady_clock::now();
  Workload w;
  w.seed = training_seed(c);  // the initial weights; the split above is seed's
  w.model_dir = c.model_dir;
  w.random_init = c.init == ModelInit::random;
  if (c.model_dir.empty() && c.preset == "paper")
    input_error("--model", "preset paper needs a distilbert-base-uncased folder (config.json, "
                           "model.safetensors, vocab.txt)");
  if (c.data.empty() && c.preset == "paper")
    input_error("--data", "preset paper needs the IMDB archive, its aclImdb/ folder or train/val/test.csv");

  Splits splits = load_splits(c, &w.data_source);
  if (splits.train.empty() || splits.val.empty() || splits.test.empty())
    input_error(c.data.empty() ? "synthetic_count" : c.data,
                "empty data set after splitting (" + std::to_string(splits.train.size()) + "/" +
                    std::to_string(splits.val.size()) + "/" + std::to_string(splits.test.size()) + ")");
  w.tokenizer = load_tokenizer(c, splits, w);

  if (!c.model_dir.empty()) {
    w.model_config = read_config((fs::path(c.model_dir) / "config.json").string());
  } else {
    auto& m = w.model_config;
    m.type = c.model_type;
    m.vocab_size = c.model_vocab_size > 0 ? c.model_vocab_size : static_cast<int64_t>(w.tokenizer->vocab_size());
    m.dim = c.dim, m.n_layers = c.n_layers, m.n_heads = c.n_heads, m.hidden_dim = c.hidden_dim;
    m.dropout = m.attention_dropout = c.dropout;
    // dropout=0 turns every dropout off (the classifier's too, HF's 0.2
    // otherwise): what tests comparing two runs step for step need.
    if (c.dropout == 0) m.seq_classif_dropout = 0;
    if (m.type == ModelType::bert) m.seq_classif_dropout = c.dropout;  // HF's classifier_dropout=None
    m.max_position_embeddings = std::max(512, c.max_length);
    m.pad_token_id = w.tokenizer->pad_id();
    validate_config(m, "embedded model config");
  }
  if (c.max_length > w.model_config.max_position_embeddings)
    input_error("max_length", std::to_string(c.max_length) + " exceeds the model's max_position_embeddings " +
                                  std::to_string(w.model_config.max_position_embeddings));
  if (static_cast<int64_t>(w.tokenizer->vocab_size()) > w.model_config.vocab_size)
    input_error(w.vocab_source, "vocabulary has " + std::to_string(w.tokenizer->vocab_size()) +
                                    " entries but the model only " + std::to_string(w.model_config.vocab_size));

  const int threads = std::max(1u, std::thread::hardware_concurrency());
  w.train = tokenize_split(*w.tokenizer, splits.train, c.max_length, threads);
  w.val = tokenize_split(*w.tokenizer, splits.val, c.max_length, threads);
  w.test = tokenize_split(*w.tokenizer, splits.test, c.max_length, threads);
  // One process trains on every row; rows of kind ranks are checked by the sweep.
  check_trains(w, c, 1);
  // Loaded once here, not only in each row: a checkpoint that does not fit
  // fails before any training, and what it lacks or has extra is known.
  if (!w.model_dir.empty() && !w.random_init) w.make_model(&w.model_load);
  w.prep_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return w;
}

void check_trains(const Workload& w, const RunConfig& c, int world_size) {
  const auto per_rank = static_cast<int64_t>(w.train.size()) / std::max(1, world_size);
  const int64_t step_rows = static_cast<int64_t>(c.batch_size) * c.accumulate;  // a step's examples per rank
  if (per_rank >= step_rows) return;
  const std::string split = "split " + std::to_string(w.train.size()) + "/" + std::to_string(w.val.size()) + "/" +
                            std::to_string(w.test.size());
  const std::string rows = c.accumulate > 1 ? std::to_string(c.batch_size) + " x accumulate=" +
                                                  std::to_string(c.accumulate) + " = " + std::to_string(step_rows)
                                            : std::to_string(c.batch_size);
  input_error("batch_size", rows + " is larger than the " + std::to_string(per_rank) +
                                " training examples" +
                                (world_size > 1 ? " each of " + std::to_string(world_size) + " ranks gets" : "") +
                                " (" + split + "); no training step would run");
}

SequenceClassifier Workload::make_model(LoadReport* load) const {
  // Same seed -> same initial weights for every scenario and every rank. The
  // global generator is shared: one model at a time (tests run ranks as
  // threads of one process).
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  seed_everything(seed);
  if (model_dir.empty() || random_init) return make_classifier(model_config);
  return load_model_dir(model_dir, load);
}

int resolve_prefetch(const RunConfig& c, std::string* reason) {
  auto say = [&](int value, const std::string& why) {
    if (reason) *reason = why;
    return value;
  };
  if (c.prefetch >= 0) return say(c.prefetch, "prefetch=" + std::to_string(c.prefetch) + " as given");
  if (resolve_device(c.device).is_cuda()) return say(2, "auto: the step runs on the GPU, the loader on the host");
  int local_ranks = 1;
  if (const char* v = std::getenv("LOCAL_WORLD_SIZE")) local_ranks = std::max(1, std::atoi(v));
  const int compute = at::get_num_threads() * local_ranks;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (compute < cores)
    return say(2, "auto: " + std::to_string(compute) + " compute thread(s) on " + std::to_string(cores) +
                      " cores leave one for the loader");
  return say(0, "auto: " + std::to_string(compute) + " compute thread(s) take all " + std::to_string(cores) +
                    " cores, so the loader runs in the step's thread (a loader thread would compete with them)");
}

LoaderOptions Workload::train_loader_options(const RunConfig& c) const {
  LoaderOptions o;
  // One optimizer step's examples: accumulate micro-batches of batch_size,
  // split by the step (accumulate_gradients), so shuffling, drop_last,
  // bucketing and the ranks' shards are those of one batch of K*B.
  o.batch_size = static_cast<int64_t>(c.batch_size) * c.accumulate;
  o.shuffle = true;
  o.drop_last = true;
  o.padding = c.padding;
  o.max_length = c.max_length;
  o.pad_id = tokenizer->pad_id();
  o.seed = training_seed(c);
  o.prefetch = resolve_prefetch(c);
  o.pin_memory = resolve_device(c.device).is_cuda();  // the loader thread pins; the step's copy is asynchronous
  o.bucketing = c.bucketing;
  return o;
}

LoaderOptions Workload::eval_loader_options(const RunConfig& c) const {
  LoaderOptions o = train_loader_options(c);
  o.batch_size = c.eval_batch_size > 0 ? c.eval_batch_size : c.batch_size;  // the micro-batch: no accumulation
  o.shuffle = false;
  // Every example is evaluated (the reference drops the last partial batch,
  // at most 11 of its 10,000 test reviews; on small sets that would skew or
  // empty the metric).
  o.drop_last = false;
  o.even_shards = false;  // distributed evaluation: each example once, summed over ranks
  return o;
}

// How the vocabulary was made: read from a file, or learned here (method,
// size rule, what it was learned from), so a report says which.
nlohmann::json Workload::vocab_json() const {
  if (vocab_training.target_size == 0) return {{"method", "file"}, {"path", vocab_source}, {"size", tokenizer->vocab_size()}};
  const auto& v = vocab_training;
  return {
      {"method", "trained_wordpiece"},
      {"size", tokenizer->vocab_size()},
      {"size_rule", vocab_auto_size ? "auto: merge until every word seen min_pair_frequency times is one token, at most " +
                                          std::to_string(kAutoVocabCap) + " entries"
                                    : "given (vocab_size)"},
      {"target_size", v.target_size},
      {"stopped", v.exhausted ? "no pair left min_pair_frequency times" : "target_size reached"},
      {"learned_pieces", v.merges},
      {"min_pair_frequency", v.min_frequency},
      {"corpus", {{"split", "train"}, {"texts", v.texts}, {"words", v.words}, {"distinct_words", v.distinct_words},
                  {"alphabet", v.alphabet}}},
  };
}

nlohmann::json Workload::describe() const {
  nlohmann::json j = {
      {"data_source", data_source},
      // The data as the model sees it (train, val, test: labels and token ids):
      // compare identifies the data by this, not by its path.
      {"data_hash", hex64(test.content_hash(val.content_hash(train.content_hash(kFnvOffset))))},
      {"vocab_source", vocab_source},
      {"vocab_size", tokenizer->vocab_size()},
      {"vocab", vocab_json()},
      {"train_examples", train.size()},
      {"val_examples", val.size()},
      {"test_examples", test.size()},
      // The test split alone (labels and token ids): two reports' per-example
      // hits compare example by example only on the same test split.
      {"test_hash", hex64(test.content_hash(kFnvOffset))},
      {"train_tokens", train.token_count()},
      {"model", config_to_json(model_config)},
      {"model_dir", model_dir},
      {"init", model_dir.empty() || random_init ? "random" : "pretrained"},
      {"prep_time_s", prep_time_s},
      // Names as from_pretrained reports them (empty lists without model_dir).
      {"model_load", {{"newly_initialized", model_load.initialised}, {"unused", model_load.ignored}}},
  };
  // The pretrained weights as loaded (absent without them, so that runs from
  // scratch keep their identity): compare and history identify the model by
  // this, not by model_dir's path.
  if (!model_load.weights_hash.empty()) j["weights_hash"] = model_load.weights_hash;
  return j;
}

std::string Workload::summary() const {
  return "data: " + std::to_string(train.size()) + " train / " + std::to_string(val.size()) + " val / " +
         std::to_string(test.size()) + " test examples (" + data_source + "), vocab " +
         std::to_string(tokenizer->vocab_size()) + ", " + std::to_string(prep_time_s) + " s";
}

// Hugging Face's wording, so the message reads as the one users know.
std::string Workload::load_warning() const {
  const std::string file = (fs::path(model_dir) / "model.safetensors").string();
  std::string out;
  if (!model_load.initialised.empty())
    out += "Some weights of " + architecture_name(model_config.type) + " were not initialized from the model checkpoint at " +
           file + " and are newly initialized: " + names_for_message(model_load.initialised, 8) + "\n";
  if (!model_load.ignored.empty())
    out += "Some weights of the model checkpoint at " + file +
           " were not used when initializing " + architecture_name(model_config.type) + ": " +
           names_for_message(model_load.ignored, 8) + "\n";
  return out;
}

}  // namespace ftb
