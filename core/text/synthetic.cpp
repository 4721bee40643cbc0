// The synthetic sentiment corpus of the smoke preset: movie-review-like text
// that a small transformer can learn in minutes, but not by counting words.
//
// A review is: an opening line, one to four plot sentences (neutral, though
// some carry a sentiment adjective that has nothing to do with the verdict),
// `min_sentences..max_sentences` opinion sentences, sometimes a neutral aside,
// and usually a closing verdict. Every opinion sentence has a polarity; its surface
// word is flipped by negation ("was not good" is negative, "never boring" is
// positive) in about a quarter of them, so "good" occurs in both classes.
// A quarter of the reviews are mixed: a minority of opinion sentences argue the
// other way, then "but overall" the verdict agrees with the majority. The label
// is the review's polarity, then flipped for `label_noise` of the reviews, which
// caps the reachable accuracy near 1 - label_noise.
//
// With SyntheticLengths::imdb each review is then lengthened, after its plot
// sentences and before its opinions, with more plot sentences (and asides)
// until it holds a length drawn from IMDB's (see text_data.h); the draws use
// their own generator, so the compact corpus is unchanged.
//
// Determinism: example i is drawn from its own std::mt19937_64 seeded from
// (seed, i) and our own uniform sampling, so the corpus is identical across
// standard libraries and a shorter corpus is a prefix of a longer one.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <random>
#include <string>
#include <vector>

#include "core/base/portable_random.h"
#include "core/text/text_data.h"

namespace ftb {
namespace {

using Words = std::vector<const char*>;

// --- vocabulary -------------------------------------------------------------
const Words kPosAdj = {"good", "great", "excellent", "wonderful", "brilliant", "superb",
                       "amazing", "fantastic", "delightful", "moving", "charming", "gripping",
                       "clever", "beautiful", "memorable", "fresh", "funny", "touching",
                       "compelling", "stunning", "enjoyable", "solid", "impressive", "powerful",
                       "engaging", "entertaining", "thoughtful", "witty", "outstanding",
                       "remarkable"};
const Words kNegAdj = {"bad", "terrible", "awful", "boring", "dull", "weak", "poor", "horrible",
                       "dreadful", "clumsy", "tedious", "predictable", "bland", "forgettable",
                       "lazy", "messy", "painful", "silly", "pointless", "flat", "lifeless",
                       "annoying", "confusing", "disappointing", "mediocre", "shallow", "stiff",
                       "awkward", "tiresome", "unbearable"};
const Words kPosVerb = {"loved", "enjoyed", "adored", "liked", "admired", "appreciated"};
const Words kNegVerb = {"hated", "disliked", "resented", "despised", "regretted"};
const Words kIntens = {"very", "really", "extremely", "truly", "quite", "rather", "incredibly",
                       "genuinely", "surprisingly", "remarkably", "so", "pretty"};
const Words kIntensVerb = {"really", "truly", "genuinely", "absolutely", "honestly"};
const Words kAspect = {"acting", "script", "story", "soundtrack", "ending", "cinematography",
                       "dialogue", "pacing", "direction", "plot", "cast", "music", "editing",
                       "screenplay", "lead performance", "camera work", "final act",
                       "effects work", "humor", "first half", "main character", "writing",
                       "score", "production design", "costume design", "climax", "premise"};
const Words kFilm = {"movie", "film", "picture", "thriller", "comedy", "drama", "western",
                     "mystery", "romance", "sequel", "remake", "documentary", "horror film",
                     "musical", "war film", "adventure"};
const Words kWhen = {"last weekend", "yesterday", "on a long flight", "last night", "on tv",
                     "at a festival", "on a rainy sunday", "with my family", "with friends",
                     "at the cinema", "after work", "on a whim", "for a class", "twice"};
const Words kPerson = {"detective", "teacher", "doctor", "soldier", "farmer", "journalist",
                       "singer", "widow", "boxer", "lawyer", "nurse", "priest", "thief",
                       "student", "pilot", "painter", "sailor", "mechanic", "scientist",
                       "waitress", "banker", "writer"};
const Words kPlotAdj = {"young", "old", "lonely", "retired", "stubborn", "quiet", "ambitious",
                        "shy", "troubled", "famous", "small", "strange", "mysterious", "distant",
                        "forgotten", "broken", "secret", "hidden", "ordinary", "local"};
const Words kPlace = {"a small town", "the city", "a remote island", "an old house",
                      "the mountains", "a fishing village", "the desert", "a hospital",
                      "a boarding school", "the countryside", "a crowded train", "the coast",
                      "a prison", "a farm", "the border", "a hotel"};
const Words kThing = {"letter", "map", "child", "dog", "fortune", "brother", "sister", "debt",
                      "photograph", "diary", "friend", "past", "enemy", "treasure", "key",
                      "promise", "truth", "crime", "voice", "song"};
const Words kPlotVerb = {"finds", "loses", "searches for", "discovers", "hides", "protects",
                         "runs from", "inherits", "chases", "remembers", "follows", "meets"};
const Words kRelative = {"mother", "father", "husband", "wife", "son", "daughter", "partner",
                         "neighbor", "boss", "rival", "uncle", "best friend"};

// --- templates --------------------------------------------------------------
// Placeholders: {F} film, {W} when, {P} person, {PA} plot adjective (sometimes
// a sentiment adjective: a distractor), {L} place, {T} thing, {V} plot verb,
// {R} relative, {A} aspect, {I} / {IV} optional intensifier (adjective / verb),
// {ADJ} opinion adjective, {VERB} / {VERB0} opinion verb (past / base form),
// {NUM} a number, {SCORE} a score out of ten that agrees with the polarity.
const Words kOpening = {
    "I watched this {F} {W}.", "I saw this {F} {W} and here is what I think.",
    "My {R} talked me into watching this {F} {W}.", "I finally got around to this {F} {W}.",
    "I rented this {F} {W} without knowing much about it.",
    "This {F} came out {NUM} years ago and I only saw it {W}.",
    "I had heard a lot about this {F} before I watched it {W}.",
    "So I watched this {F} {W}."};
const Words kPlot = {
    "The story follows a {PA} {P} who {V} a {PA} {T} in {L}.",
    "It is about a {PA} {P} and her {R}, who {V} a {T}.",
    "A {PA} {P} moves to {L} and {V} a {PA} {T}.",
    "The {P} {V} a {T} while the {R} tries to keep a {PA} secret.",
    "Most of it takes place in {L}, where a {P} {V} the {T} of a {PA} {R}.",
    "After a {PA} accident, a {P} returns to {L} to face the past.",
    "The plot has a {P}, a {R} and a {PA} {T}, and not much more.",
    "Years later the {P} {V} the {T} in {L}."};
const Words kAside = {
    "It runs about {NUM} minutes longer than it needs to.",
    "The theater was almost empty that night.", "I went in without reading any reviews.",
    "It was shot in {L}, which you can tell.", "My {R} fell asleep halfway through.",
    "There is a dog in it, for what that is worth.",
    "It is based on a book I have not read.", "The trailer gives away most of the plot."};
// Opinion sentences, each with the polarity of the slot word before negation.
const Words kOpinionAdj = {
    "The {A} was {I} {ADJ}.", "The {A} is {I} {ADJ}.", "I thought the {A} was {I} {ADJ}.",
    "Honestly, the {A} felt {I} {ADJ}.", "The {A} turned out {I} {ADJ}.",
    "All in all the {A} was {I} {ADJ}.", "I found the {A} {I} {ADJ}."};
const Words kOpinionAdjNeg = {
    "The {A} was not {ADJ} at all.", "The {A} is never {ADJ}.",
    "I did not think the {A} was {ADJ}.", "The {A} was hardly {ADJ}.",
    "Nobody could call the {A} {ADJ}.", "The {A} was anything but {ADJ}.",
    "I would not say the {A} is {ADJ}.", "The {A} never felt {ADJ}."};
const Words kOpinionVerb = {"I {VERB} the {A}.", "I {IV} {VERB} the {A}.",
                            "Everyone in the room {VERB} the {A}."};
const Words kOpinionVerbNeg = {"I did not {VERB0} the {A}.", "I never {VERB0} the {A}.",
                               "Nobody I know {VERB} the {A}."};
// Verdicts come in pairs that differ mostly by a negation ("I would (not)
// recommend it", "it was (not) a waste of time"), so "not" is no class marker.
const Words kVerdictPos = {
    "Overall, I would recommend it.", "It is worth watching.", "I will watch it again.",
    "It was not a waste of time.", "You will not regret it.",
    "Easily one of the best films of the year.", "I would not call it a failure.",
    "{SCORE} out of ten.", "Go and see it."};
const Words kVerdictNeg = {
    "Overall, I would not recommend it.", "It is not worth watching.",
    "I will not watch it again.", "It was a waste of time.", "You will regret it.",
    "Easily one of the worst films of the year.", "I would call it a failure.",
    "{SCORE} out of ten.", "Skip this one."};
const Words kMixedTurn = {"But overall,", "Still, in the end", "Even so,", "That said,",
                          "Despite all that,"};
const Words kNumbers = {"two", "three", "four", "five", "six", "seven", "eight", "nine",
                        "ten", "twenty", "thirty", "forty", "ninety"};
const Words kPosScore = {"seven", "eight", "nine", "ten"};
const Words kNegScore = {"one", "two", "three", "four"};
// Base forms for negated verbs ("did not enjoy").
const Words kPosVerb0 = {"love", "enjoy", "adore", "like", "admire", "appreciate"};
const Words kNegVerb0 = {"hate", "dislike", "resent", "despise", "regret"};

const char* pick(std::mt19937_64& rng, const Words& w) { return w[uniform_below(rng, w.size())]; }

struct Review {
  std::mt19937_64& rng;
  std::string text;

  // Fills the template's placeholders. `polarity` (+1/-1) chooses opinion
  // words; verbs and adjectives share it.
  void emit(const std::string& tmpl, int polarity = 1) {
    std::string s;
    for (std::size_t i = 0; i < tmpl.size();) {
      if (tmpl[i] != '{') {
        s.push_back(tmpl[i++]);
        continue;
      }
      const std::size_t end = tmpl.find('}', i);
      const std::string key = tmpl.substr(i + 1, end - i - 1);
      i = end + 1;
      std::string word;
      if (key == "F") word = pick(rng, kFilm);
      else if (key == "W") word = pick(rng, kWhen);
      else if (key == "P") word = pick(rng, kPerson);
      else if (key == "PA")
        // One plot adjective in ten is a sentiment word unrelated to the
        // verdict ("a terrible accident"), so word counting misleads.
        word = chance(rng, 0.1) ? pick(rng, chance(rng, 0.5) ? kPosAdj : kNegAdj)
                                  : pick(rng, kPlotAdj);
      else if (key == "L") word = pick(rng, kPlace);
      else if (key == "T") word = pick(rng, kThing);
      else if (key == "V") word = pick(rng, kPlotVerb);
      else if (key == "R") word = pick(rng, kRelative);
      else if (key == "A") word = pick(rng, kAspect);
      else if (key == "I") word = chance(rng, 0.4) ? pick(rng, kIntens) : "";
      else if (key == "IV") word = chance(rng, 0.5) ? pick(rng, kIntensVerb) : "";
      else if (key == "ADJ") word = pick(rng, polarity > 0 ? kPosAdj : kNegAdj);
      else if (key == "VERB") word = pick(rng, polarity > 0 ? kPosVerb : kNegVerb);
      else if (key == "VERB0") word = pick(rng, polarity > 0 ? kPosVerb0 : kNegVerb0);
      else if (key == "NUM") word = pick(rng, kNumbers);
      else if (key == "SCORE") word = pick(rng, polarity > 0 ? kPosScore : kNegScore);
      if (word.empty()) {  // an empty optional slot: drop one of its spaces
        if (!s.empty() && s.back() == ' ') s.pop_back();
        continue;
      }
      // "a old house" -> "an old house"
      const bool vowel = std::string("aeiou").find(word[0]) != std::string::npos;
      const std::size_t n = s.size();
      if (vowel && n >= 2 && (s[n - 2] == 'a' || s[n - 2] == 'A') && s[n - 1] == ' ' &&
          (n == 2 || s[n - 3] == ' '))
        s.insert(n - 1, "n");
      s += word;
    }
    // Templates are in sentence case; after a connective ("But overall,")
    // the sentence continues, so its first word is lower-cased (except "I").
    const bool continues = !text.empty() && text.back() != '.' && text.back() != '!';
    if (continues && s.size() > 1 && s[0] >= 'A' && s[0] <= 'Z' && s[1] != ' ')
      s[0] = static_cast<char>(s[0] - 'A' + 'a');
    if (!continues && !s.empty() && s[0] >= 'a' && s[0] <= 'z')  // "{SCORE} out of ten."
      s[0] = static_cast<char>(s[0] - 'a' + 'A');
    if (!text.empty()) text.push_back(' ');
    text += s;
  }

  // One opinion sentence whose meaning has polarity `p` (+1/-1): either the
  // plain form with a word of polarity p, or a negated form with a word of -p.
  void opinion(int p) {
    const bool negated = chance(rng, 0.25);
    const bool verb = chance(rng, 0.25);
    const int word_polarity = negated ? -p : p;
    if (verb) emit(pick(rng, negated ? kOpinionVerbNeg : kOpinionVerb), word_polarity);
    else emit(pick(rng, negated ? kOpinionAdjNeg : kOpinionAdj), word_polarity);
  }

  void verdict(int p) { emit(pick(rng, p > 0 ? kVerdictPos : kVerdictNeg), p); }
};

// Tokens a BERT tokenizer makes of synthetic text whose words are all in its
// vocabulary (the corpus' own WordPiece vocabulary keeps every word whole):
// one per word and one per punctuation mark, without [CLS]/[SEP].
std::size_t token_units(const std::string& text) {
  std::size_t n = 0;
  bool in_word = false;
  for (const char ch : text) {
    const bool punct = ch == '.' || ch == ',' || ch == '!' || ch == '?' || ch == '\'' || ch == '-';
    const bool space = ch == ' ';
    if (punct) ++n;
    if (space || punct) in_word = false;
    else if (!in_word) in_word = true, ++n;
  }
  return n;
}

// IMDB's review length in tokens under bert-base-uncased, untruncated:
// log-normal with median 231 and sigma 0.72 (Box-Muller on 53-bit uniforms).
std::size_t imdb_length(std::mt19937_64& rng) {
  const double u1 = (static_cast<double>(rng() >> 11) + 1) * 0x1.0p-53;  // (0, 1]
  const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  return static_cast<std::size_t>(std::lround(231.0 * std::exp(0.72 * z)));
}

}  // namespace

std::vector<Example> synthetic_corpus(const SyntheticOptions& options) {
  const int lo = std::max(1, options.min_sentences);
  const int hi = std::max(lo, options.max_sentences);
  std::vector<Example> out;
  out.reserve(options.count);
  for (std::size_t i = 0; i < options.count; ++i) {
    // Labels come in pairs (one positive, one negative, order drawn per pair)
    // so every even-sized corpus is exactly balanced, noise included: noise
    // flips both labels of a pair.
    std::mt19937_64 pair_rng(splitmix64(options.seed ^ splitmix64(0x5EEDull + i / 2)));
    const int first = static_cast<int>(pair_rng() & 1);
    const bool noisy = chance(pair_rng, options.label_noise);
    const int label = (i % 2 == 0) ? first : 1 - first;
    const int p = label ? 1 : -1;

    std::mt19937_64 rng(splitmix64(options.seed ^ splitmix64(i)));
    Review r{rng, {}};
    r.emit(pick(rng, kOpening));
    const int n = lo + static_cast<int>(uniform_below(rng, hi - lo + 1));
    // Fewer opinions, more plot: keeps reviews at roughly 40-150 words.
    const int plots = (n <= 2 ? 2 : 1) + static_cast<int>(uniform_below(rng, 3));
    for (int k = 0; k < plots; ++k) r.emit(pick(rng, kPlot));
    const std::size_t after_plot = r.text.size();

    const bool mixed = n >= 2 && chance(rng, 0.25);
    // Mixed: the opposing minority comes first, then the turn and the rest.
    // Opposing sentences stay a minority once the verdict is counted.
    const int most_against = std::max(1, (n - 1) / 2);
    const int against = mixed ? 1 + static_cast<int>(uniform_below(rng, most_against)) : 0;
    for (int k = 0; k < n; ++k) {
      if (mixed && k == against) r.emit(pick(rng, kMixedTurn));
      r.opinion(k < against ? -p : p);
      if (chance(rng, 0.15)) r.emit(pick(rng, kAside));
    }
    // Mixed reviews always end on their verdict; others do three times in four.
    if (mixed || chance(rng, 0.75)) r.verdict(p);
    if (options.lengths == SyntheticLengths::imdb) {
      std::mt19937_64 len_rng(splitmix64(options.seed ^ splitmix64(0x1E46'0000ull + i)));
      const std::size_t target = imdb_length(len_rng), specials = 2;  // [CLS], [SEP]
      std::size_t have = token_units(r.text) + specials;
      if (have < target) {
        Review more{len_rng, {}};
        while (have + token_units(more.text) < target)
          more.emit(chance(len_rng, 0.2) ? pick(len_rng, kAside) : pick(len_rng, kPlot));
        r.text.insert(after_plot, " " + more.text);
      }
    }
    out.push_back({std::move(r.text), noisy ? 1 - label : label});
  }
  return out;
}

}  // namespace ftb
