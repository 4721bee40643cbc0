// Labelled review text: readers for the IMDB archive / folder and CSV files,
// the reference's shuffle-and-split, and the synthetic sentiment corpus.
// Nothing here depends on LibTorch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/choices.h"

namespace ftb {

struct Example {
  std::string text;
  int label = 0;  // 1 = positive, 0 = negative
};

// aclImdb_v1.tar.gz (or any .tar.gz / .tar with the aclImdb layout), read with
// libarchive: every aclImdb/{train,test}/{pos,neg}/<id>_<rating>.txt, in a
// deterministic order (sorted by path). Other members are ignored.
// A truncated or corrupt archive -> InputError naming the file.
std::vector<Example> read_imdb_archive(const std::string& path);
// An extracted aclImdb/ folder (the folder itself or its parent).
std::vector<Example> read_imdb_folder(const std::string& path);
// CSV with a header naming columns `text` and `label` (any order, extra
// columns ignored), RFC 4180 quoting (embedded commas, quotes, newlines).
// Bad label, unclosed quote, missing column -> InputError naming file and line.
std::vector<Example> read_csv(const std::string& path);
// Writes `text,label` with RFC 4180 quoting, through a temporary file + rename.
void write_csv(const std::string& path, const std::vector<Example>& examples);
// Dispatch on what `path` is: *.tar.gz/*.tgz/*.tar -> archive, directory ->
// IMDB folder (or a folder holding train.csv/val.csv/test.csv -> see
// load_split_folder), *.csv -> CSV. An empty result -> InputError.
std::vector<Example> read_examples(const std::string& path);

struct Splits {
  std::vector<Example> train, val, test;
};

// The reference's split: shuffle all examples with `seed`, then
// 35,000 / 5,000 / 10,000 of 50,000, i.e. fractions 0.7 / 0.1 / 0.2 of
// whatever is given (after `limit`, when limit > 0 keeps the first `limit`
// shuffled examples). Deterministic for a given seed and input order.
Splits split_reference(std::vector<Example> all, uint64_t seed, std::size_t limit = 0);
// A folder with train.csv, val.csv, test.csv (as the reference writes them).
bool is_split_folder(const std::string& path);
Splits load_split_folder(const std::string& path);

// How long synthetic reviews are. compact: 40-150 words, as the templates
// make them (smoke: minutes on a CPU). imdb: the same reviews lengthened with
// neutral plot sentences to a length drawn per review from IMDB's
// distribution under bert-base-uncased (log-normal, median 231 tokens,
// sigma 0.72: mean 273 after truncation to 512, as measured on the real
// archive), so padding and length bucketing behave as on real reviews.
enum class SyntheticLengths { compact, imdb };
FTB_CHOICES(SyntheticLengths, {SyntheticLengths::compact, "compact"}, {SyntheticLengths::imdb, "imdb"});

struct SyntheticOptions {
  std::size_t count = 5000;
  uint64_t seed = 123;
  double label_noise = 0.05;  // fraction of labels flipped at random
  int min_sentences = 2, max_sentences = 5;
  SyntheticLengths lengths = SyntheticLengths::compact;
};
// Review-like sentiment text: sentences built from templates with positive
// and negative words, intensifiers, neutral filler, plot words and negation
// ("not good" flips the polarity), so that bag-of-words alone is not enough.
// Labels are balanced; deterministic for a given seed (std::mt19937_64 with
// our own uniform sampling, so identical across standard libraries).
std::vector<Example> synthetic_corpus(const SyntheticOptions& options);

}  // namespace ftb
