// The synthetic corpus: deterministic, balanced, review-sized, a modest
// vocabulary, and negation in both classes (so word counting is not enough).
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/text/text_data.h"
#include "core/text/tokenizer.h"
#include "core/text/wordpiece_trainer.h"

namespace {

std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  for (char c : text) {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      w.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else if (!w.empty()) {
      out.push_back(w);
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(w);
  return out;
}

}  // namespace

TEST_CASE("synthetic: deterministic for a seed, shorter corpora are prefixes") {
  ftb::SyntheticOptions o;
  o.count = 400;
  const auto a = ftb::synthetic_corpus(o);
  const auto b = ftb::synthetic_corpus(o);
  REQUIRE(a.size() == 400);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].text == b[i].text);
    CHECK(a[i].label == b[i].label);
  }
  o.count = 100;
  const auto prefix = ftb::synthetic_corpus(o);
  for (std::size_t i = 0; i < prefix.size(); ++i) CHECK(prefix[i].text == a[i].text);
  o.count = 400;
  o.seed = 124;
  const auto c = ftb::synthetic_corpus(o);
  int same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i].text == c[i].text;
  CHECK(same < 4);
  MESSAGE("example 0 (label " << a[0].label << "): " << a[0].text);
  MESSAGE("example 1 (label " << a[1].label << "): " << a[1].text);
  // Pinned: the same on every standard library (our own uniform draws).
  CHECK(a[0].text ==
        "So I watched this comedy last night. Years later the lawyer follows the friend in a "
        "remote island. I appreciated the screenplay. Everyone in the room loved the script. "
        "Honestly, the story felt remarkably engaging. I honestly appreciated the score.");
  CHECK(a[0].label == 0);  // pair 0 is one of the 5 % with flipped labels
}

TEST_CASE("synthetic: balanced labels, review-sized texts, modest vocabulary") {
  ftb::SyntheticOptions o;
  o.count = 5000;
  const auto corpus = ftb::synthetic_corpus(o);
  int positives = 0;
  std::size_t min_words = 1000, max_words = 0, total_words = 0;
  std::set<std::string> vocab;
  std::set<std::string> distinct_texts;
  for (const auto& e : corpus) {
    positives += e.label;
    CHECK((e.label == 0 || e.label == 1));
    const auto w = words_of(e.text);
    min_words = std::min(min_words, w.size());
    max_words = std::max(max_words, w.size());
    total_words += w.size();
    vocab.insert(w.begin(), w.end());
    distinct_texts.insert(e.text);
  }
  MESSAGE("words per review: min " << min_words << " mean " << total_words / corpus.size()
                                   << " max " << max_words << "; distinct words "
                                   << vocab.size());
  CHECK(positives == 2500);  // exactly balanced, label noise included
  CHECK(min_words >= 30);
  CHECK(max_words <= 160);
  CHECK(total_words / corpus.size() >= 50);
  CHECK(vocab.size() >= 200);
  CHECK(vocab.size() <= 1000);
  CHECK(distinct_texts.size() == corpus.size());
}

TEST_CASE("synthetic: negation and sentiment words occur in both classes") {
  ftb::SyntheticOptions o;
  o.count = 2000;
  o.label_noise = 0;
  const auto corpus = ftb::synthetic_corpus(o);
  // count[word][label]: reviews containing the word.
  std::map<std::string, int[2]> count;
  for (const auto& e : corpus) {
    std::set<std::string> seen;
    for (const auto& w : words_of(e.text)) seen.insert(w);
    for (const auto& w : seen) count[w][e.label]++;
  }
  for (const char* w : {"not", "never", "good", "boring", "great", "terrible"}) {
    CAPTURE(w);
    // Each appears in at least 10% of the reviews of *each* class.
    CHECK(count[w][0] > 20);
    CHECK(count[w][1] > 20);
  }
  // A negator right before a sentiment word of the other polarity.
  auto has_negated = [](const std::string& text, std::initializer_list<const char*> adjs) {
    for (const char* neg : {"not ", "never ", "hardly "})
      for (const char* adj : adjs)
        if (text.find(std::string(neg) + adj) != std::string::npos) return true;
    return false;
  };
  int negated_positive = 0, negated_negative = 0;
  for (const auto& e : corpus) {
    negated_positive += e.label == 1 && has_negated(e.text, {"bad", "boring", "dull", "awful"});
    negated_negative += e.label == 0 && has_negated(e.text, {"good", "great", "brilliant"});
  }
  CHECK(negated_positive > 5);
  CHECK(negated_negative > 5);
}

TEST_CASE("synthetic: label noise flips about the requested fraction") {
  ftb::SyntheticOptions clean, noisy;
  clean.count = noisy.count = 4000;
  clean.label_noise = 0;
  noisy.label_noise = 0.05;
  const auto a = ftb::synthetic_corpus(clean);
  const auto b = ftb::synthetic_corpus(noisy);
  int flipped = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].text == b[i].text);  // noise changes labels only
    flipped += a[i].label != b[i].label;
  }
  CHECK(flipped > 4000 * 0.03);
  CHECK(flipped < 4000 * 0.07);
}

TEST_CASE("synthetic: imdb lengths follow IMDB's token-length distribution, compact reviews are unchanged") {
  ftb::SyntheticOptions compact;
  compact.count = 2000;
  auto imdb = compact;
  imdb.lengths = ftb::SyntheticLengths::imdb;
  const auto a = ftb::synthetic_corpus(compact);
  const auto b = ftb::synthetic_corpus(imdb);
  REQUIRE(a.size() == b.size());
  // Same labels, and each imdb review holds its compact review's words in order
  // (the added plot sentences sit between the plot and the opinions).
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].label == b[i].label);
    texts.push_back(b[i].text);
  }
  const auto wa = words_of(a[7].text), wb = words_of(b[7].text);
  CHECK(wb.size() >= wa.size());
  CHECK(std::equal(wa.end() - 3, wa.end(), wb.end() - 3));  // the verdict is still last
  // Token lengths as the run sees them: the corpus' own WordPiece vocabulary,
  // [CLS] ... [SEP], truncated to 512. IMDB under bert-base-uncased (the
  // shared archive): median 231, mean 273 after truncation; the log-normal
  // puts 13 % of reviews above 512.
  const auto vocab = ftb::train_wordpiece(texts);
  const auto tok = ftb::WordPieceTokenizer::from_tokens(vocab.tokens);
  std::vector<std::size_t> lengths;
  std::size_t truncated = 0;
  double sum = 0;
  for (const auto& t : texts) {
    const auto n = tok.encode(t, 1 << 20).size();
    truncated += n > 512;
    lengths.push_back(std::min<std::size_t>(n, 512));
    sum += static_cast<double>(lengths.back());
  }
  std::sort(lengths.begin(), lengths.end());
  const double median = static_cast<double>(lengths[lengths.size() / 2]);
  const double mean = sum / static_cast<double>(lengths.size());
  const double share_truncated = static_cast<double>(truncated) / static_cast<double>(lengths.size());
  CAPTURE(median);
  CAPTURE(mean);
  CAPTURE(share_truncated);
  MESSAGE("imdb lengths: median " << median << ", mean " << mean << ", truncated " << share_truncated);
  CHECK(median == doctest::Approx(231).epsilon(0.08));
  CHECK(mean == doctest::Approx(273).epsilon(0.08));
  CHECK(share_truncated > 0.05);
  CHECK(share_truncated < 0.2);
  CHECK(ftb::parse_choice<ftb::SyntheticLengths>("imdb", "synthetic_lengths") == ftb::SyntheticLengths::imdb);
  CHECK(ftb::to_string(ftb::SyntheticLengths::compact) == "compact");
  CHECK_THROWS_AS(ftb::parse_choice<ftb::SyntheticLengths>("long", "synthetic_lengths"), ftb::InputError);
}
