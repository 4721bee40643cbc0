// WordPiece tokenizer: one pass over the UTF-8 bytes does HF's whole
// BertNormalizer + BertPreTokenizer, then greedy longest-match per word.
//
// The reference is the `tokenizers` (Rust) library that transformers runs for
// BertTokenizer / DistilBertTokenizer; where it differs from the old
// pure-Python BertTokenizer we follow it (tests/fixtures/tokenizer_golden.jsonl
// is its output):
//   - unassigned code points (Cn) are kept, not dropped as control characters;
//     private-use (Co) and format (Cf, e.g. U+200B, U+FEFF) are dropped;
//   - U+2028 / U+2029 separate words like spaces (Rust's White_Space);
//   - capital sigma always becomes σ (no final-sigma ς rule: per-char lower);
//   - its CJK ranges start Extension E at U+2B920, not U+2B820 (a typo kept
//     for compatibility: U+2B820..U+2B91F are not split off);
//   - accents are stripped before lower-casing.
// Known residue: `tokenizers` takes Mn/P*/Cf from an old Unicode table and
// case mappings from Rust's newer one, utf8proc (2.8) uses Unicode 15. Run
// over every code point, "a" + c + "b" differs for 624 of 1.1 million, all in
// scripts or symbols added since about Unicode 9 (e.g. U+2E55 brackets, new
// Arabic marks). Matching them would need hand-written tables; not worth it.
// Invalid UTF-8 never throws: each byte that does not start a valid sequence
// is dropped, as if decoded to U+FFFD (which BERT's cleaning drops anyway), so
// "ab\xFFcd" is the one word "abcd".
#include "core/text/tokenizer.h"

#include <algorithm>
#include <cstring>
#include <fstream>

#include <utf8proc.h>

#include "core/base/errors.h"
#include "core/base/files.h"

namespace ftb {
namespace {

constexpr int kStackWordBytes = 4 * 100;  // WordPiece's prefix hashes live on the stack up to this

// What one ASCII byte does in the basic tokenizer.
enum AsciiClass : uint8_t { kWordByte, kSpace, kPunct, kDrop };

struct AsciiTable {
  AsciiClass cls[128];
  char lower[128];
  AsciiTable() {
    for (int c = 0; c < 128; ++c) {
      lower[c] = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') cls[c] = kSpace;
      else if (c < 32 || c == 127) cls[c] = kDrop;  // Cc, NUL included
      else if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
               (c >= 123 && c <= 126)) cls[c] = kPunct;  // HF's ASCII "punctuation"
      else cls[c] = kWordByte;
    }
  }
};
const AsciiTable kAscii;

// HF `tokenizers` is_chinese_char, ranges as written there (see top comment).
bool is_cjk(int32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

bool is_punct_category(utf8proc_category_t c) {
  return c == UTF8PROC_CATEGORY_PC || c == UTF8PROC_CATEGORY_PD || c == UTF8PROC_CATEGORY_PS ||
         c == UTF8PROC_CATEGORY_PE || c == UTF8PROC_CATEGORY_PI || c == UTF8PROC_CATEGORY_PF ||
         c == UTF8PROC_CATEGORY_PO;
}

bool is_punct(int32_t cp) {
  if (cp < 128) return kAscii.cls[cp] == kPunct;
  return is_punct_category(utf8proc_category(cp));
}

void append_utf8(std::string& out, int32_t cp) {
  utf8proc_uint8_t buf[4];
  const auto n = utf8proc_encode_char(cp, buf);
  out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(n));
}

// 32-bit FNV-1a: keys are short (a few bytes), so a simple byte loop wins.
uint32_t hash_bytes(std::string_view s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

// A key of up to 7 bytes as one integer: the bytes, then the length in the
// top byte, so equal keys and only equal keys pack equal.
constexpr std::size_t kMaxPackedBytes = 7;
constexpr uint64_t kLongKey = ~uint64_t{0};  // length byte 0xFF: never a packed key

uint64_t pack_key(std::string_view key) {
  if (key.size() > kMaxPackedBytes) return kLongKey;
  uint64_t v = static_cast<uint64_t>(key.size()) << 56;
  for (std::size_t i = 0; i < key.size(); ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(key[i])) << (8 * i);
  return v;
}

// Length of the UTF-8 character that ends at word[end - 1] (word is valid UTF-8).
std::size_t last_char_bytes(std::string_view word, std::size_t end) {
  std::size_t n = 1;
  while (n < end && (static_cast<unsigned char>(word[end - n]) & 0xC0) == 0x80) ++n;
  return n;
}

}  // namespace

// ---- vocabulary -----------------------------------------------------------

WordPieceTokenizer WordPieceTokenizer::from_file(const std::string& vocab_path) {
  std::ifstream in(vocab_path, std::ios::binary);
  if (!in) input_error(vocab_path, "cannot open the vocabulary file");
  std::vector<std::string> tokens;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF files
    tokens.push_back(std::move(line));
  }
  if (in.bad()) input_error(vocab_path, "read error");
  return from_tokens(std::move(tokens), vocab_path);
}

WordPieceTokenizer WordPieceTokenizer::from_tokens(std::vector<std::string> tokens,
                                                   const std::string& where, TokenizerOptions options) {
  if (tokens.size() >= static_cast<std::size_t>(INT32_MAX))
    input_error(where, "too many tokens");
  WordPieceTokenizer t;
  t.tokens_ = std::move(tokens);
  t.suffixes_.skip = 2;
  auto is_suffix = [](const std::string& token) {
    return token.size() > 2 && token.compare(0, 2, "##") == 0;
  };
  const std::size_t n_suffixes = std::count_if(t.tokens_.begin(), t.tokens_.end(), is_suffix);
  // Load factor <= 1/2 keeps probe runs short.
  for (auto [table, n] : {std::pair{&t.word_starts_, t.tokens_.size()},
                          std::pair{&t.suffixes_, n_suffixes}}) {
    std::size_t slots = 16;
    while (slots < 2 * n) slots *= 2;
    table->slots.assign(slots, PieceTable::Slot{0, -1, 0});
  }
  // In id order so a duplicated token maps to its last line, as HF's dict does.
  for (std::size_t i = 0; i < t.tokens_.size(); ++i) {
    const auto id = static_cast<int32_t>(i);
    table_insert(t.word_starts_, t.tokens_, id);
    if (is_suffix(t.tokens_[i])) table_insert(t.suffixes_, t.tokens_, id);
  }
  if (options.specials.empty())
    options.specials = {options.pad, options.unk, options.cls, options.sep, "[MASK]"};
  const std::pair<const std::string*, int32_t*> required[] = {
      {&options.pad, &t.pad_id_}, {&options.unk, &t.unk_id_}, {&options.cls, &t.cls_id_}, {&options.sep, &t.sep_id_}};
  for (const auto& [name, id] : required) {
    *id = t.token_id(*name);
    if (*id < 0) input_error(where, "vocabulary lacks " + *name);
  }
  for (const auto& special : options.specials) {
    const int32_t id = t.token_id(special);
    if (id < 0 || special.empty()) continue;
    if (static_cast<unsigned char>(special[0]) >= 128)
      input_error(where, "special token \"" + special + "\" does not start with an ASCII character");
    t.special_ids_.push_back(id);
    t.special_first_byte_[static_cast<unsigned char>(special[0])] = true;
  }
  if (options.max_input_chars_per_word < 1)
    input_error(where, "max_input_chars_per_word must be >= 1");
  t.options_ = std::move(options);
  return t;
}

void WordPieceTokenizer::save(const std::string& vocab_path) const {
  write_file_atomic(vocab_path, [&](std::ostream& out) {
    for (const auto& token : tokens_) out << token << '\n';
  });
}

void WordPieceTokenizer::table_insert(PieceTable& table, const std::vector<std::string>& tokens,
                                      int32_t id) {
  const std::string_view key = std::string_view(tokens[id]).substr(table.skip);
  const uint32_t h = hash_bytes(key);
  const std::size_t mask = table.slots.size() - 1;
  for (std::size_t i = h & mask;; i = (i + 1) & mask) {
    PieceTable::Slot& slot = table.slots[i];
    if (slot.id < 0 ||
        (slot.hash == h && std::string_view(tokens[slot.id]).substr(table.skip) == key)) {
      slot = {h, id, pack_key(key)};
      break;
    }
  }
  if (key.size() > table.max_key_bytes) table.max_key_bytes = key.size();
}

int32_t WordPieceTokenizer::table_find(const PieceTable& table, std::string_view key,
                                       uint32_t hash) const {
  const std::size_t mask = table.slots.size() - 1;
  const uint64_t packed = pack_key(key);
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const PieceTable::Slot& slot = table.slots[i];
    if (slot.id < 0) return -1;
    if (slot.hash != hash || slot.packed != packed) continue;
    if (packed != kLongKey) return slot.id;
    const std::string& token = tokens_[slot.id];
    if (token.size() == key.size() + table.skip &&
        std::memcmp(token.data() + table.skip, key.data(), key.size()) == 0)
      return slot.id;
  }
}

int32_t WordPieceTokenizer::token_id(std::string_view token) const {
  return table_find(word_starts_, token, hash_bytes(token));
}

// ---- basic tokenizer ------------------------------------------------------

// The word being built while scanning, and the sink finished words go to.
template <class Sink>
struct WordPieceTokenizer::WordBuilder {
  Sink& sink;
  std::string word;  // the current word, normalised (lower-case, no accents)
  int chars = 0;
  // Emits the pending word; false when the sink wants no more.
  bool flush() {
    if (word.empty()) return true;
    const bool more = sink.word(std::string_view(word), chars);
    word.clear();
    chars = 0;
    return more;
  }
  // A punctuation or CJK character: a word of its own.
  bool lone(int32_t cp) {
    if (!flush()) return false;
    append_utf8(word, cp);
    chars = 1;
    return flush();
  }
  void add(int32_t cp) {
    append_utf8(word, cp);
    ++chars;
  }
};

template <class Sink>
void WordPieceTokenizer::scan(std::string_view text, Sink& sink) const {
  WordBuilder<Sink> out{sink, {}, 0};
  out.word.reserve(128);
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    if (p[i] < 128) {  // ASCII fast path: most of English review text
      if (!scan_ascii(text, i, out)) return;
      continue;
    }
    utf8proc_int32_t cp = -1;
    const auto len = utf8proc_iterate(p + i, static_cast<utf8proc_ssize_t>(n - i), &cp);
    if (len <= 0) {  // invalid UTF-8: drop one byte (see top comment)
      ++i;
      continue;
    }
    i += static_cast<std::size_t>(len);
    if (!scan_code_point(cp, out)) return;
  }
  out.flush();
}

template <class Sink>
bool WordPieceTokenizer::scan_ascii(std::string_view text, std::size_t& i, WordBuilder<Sink>& out) const {
  const auto b = static_cast<unsigned char>(text[i]);
  if (special_first_byte_[b]) {  // a special token written in the text?
    for (int32_t id : special_ids_) {
      const std::string& s = tokens_[id];
      if (text.compare(i, s.size(), s) == 0) {
        if (!out.flush() || !out.sink.special(id)) return false;
        i += s.size();
        return true;
      }
    }
  }
  ++i;
  AsciiClass cls = kAscii.cls[b];
  // Without clean_text, control bytes stay in the word, except the two
  // that Unicode counts as White_Space (the pre-tokenizer splits on them).
  if (cls == kDrop && !options_.clean_text) cls = (b == 0x0B || b == 0x0C) ? kSpace : kWordByte;
  switch (cls) {
    case kWordByte:
      out.word.push_back(options_.lowercase ? kAscii.lower[b] : static_cast<char>(b));
      ++out.chars;
      return true;
    case kSpace:
      return out.flush();
    case kDrop:
      return true;
    case kPunct:
      return out.lone(b);
  }
  return true;
}

template <class Sink>
bool WordPieceTokenizer::scan_code_point(int32_t cp, WordBuilder<Sink>& out) const {
  if (cp == 0xFFFD && options_.clean_text) return true;
  const auto cat = static_cast<utf8proc_category_t>(utf8proc_get_property(cp)->category);
  switch (cat) {
    case UTF8PROC_CATEGORY_CC: case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CO: case UTF8PROC_CATEGORY_CS:
      if (options_.clean_text) return true;  // control characters are dropped (Cn is kept, as HF does)
      if (cp == 0x85) return out.flush();  // NEL: kept without clean_text, and White_Space for the pre-tokenizer
      break;
    case UTF8PROC_CATEGORY_ZS: case UTF8PROC_CATEGORY_ZL: case UTF8PROC_CATEGORY_ZP:
      return out.flush();
    default:
      break;
  }
  // With strip_accents: NFD, drop nonspacing marks; then lower-case. CJK
  // ideographs only decompose (compatibility ideographs are canonical
  // singletons) and stand alone.
  utf8proc_int32_t parts[8];
  utf8proc_ssize_t n_parts = 1;
  parts[0] = cp;
  if (options_.strip_accents) {
    int last_boundclass = 0;
    n_parts = utf8proc_decompose_char(cp, parts, 8, UTF8PROC_DECOMPOSE, &last_boundclass);
    if (n_parts < 0 || n_parts > 8) {  // cannot happen for valid code points
      parts[0] = cp;
      n_parts = 1;
    }
  } else if (options_.lowercase && cp == 0x130) {
    // Rust's full to_lowercase of U+0130 is "i" + U+0307 (with NFD first,
    // the decomposition gives the same pair).
    parts[0] = 'I', parts[1] = 0x307;
    n_parts = 2;
  }
  const bool cjk = options_.handle_chinese_chars && is_cjk(cp);
  for (utf8proc_ssize_t k = 0; k < n_parts; ++k) {
    if (options_.strip_accents && utf8proc_category(parts[k]) == UTF8PROC_CATEGORY_MN) continue;
    // Simple per-code-point lower-case equals Rust's full to_lowercase for
    // every character that survives NFD (only U+0130 differs, handled above).
    const int32_t c = options_.lowercase ? utf8proc_tolower(parts[k]) : parts[k];
    if (cjk || is_punct(c)) {
      if (!out.lone(c)) return false;
    } else {
      out.add(c);
    }
  }
  return true;
}

std::vector<std::string> WordPieceTokenizer::basic_tokenize(std::string_view text) const {
  struct Sink {
    const WordPieceTokenizer& tok;
    std::vector<std::string> words;
    bool word(std::string_view w, int) { words.emplace_back(w); return true; }
    bool special(int32_t id) { words.push_back(tok.tokens_[id]); return true; }
  } sink{*this, {}};
  scan(text, sink);
  return std::move(sink.words);
}

// ---- WordPiece ------------------------------------------------------------

void WordPieceTokenizer::wordpiece(std::string_view word, int n_chars,
                                   std::vector<int32_t>& out) const {
  if (n_chars > options_.max_input_chars_per_word) {
    out.push_back(unk_id_);
    return;
  }
  // FNV-1a is a left fold, so one pass gives the hash of every prefix of
  // word[start..]: prefix_hash[k] = hash of its first k bytes. A word within
  // the usual limit (100 characters of at most 4 bytes) needs no allocation.
  uint32_t stack_hash[kStackWordBytes + 1];
  std::vector<uint32_t> heap_hash;
  uint32_t* prefix_hash = stack_hash;
  if (word.size() > kStackWordBytes) {
    heap_hash.resize(word.size() + 1);
    prefix_hash = heap_hash.data();
  }
  const std::size_t first = out.size();
  std::size_t start = 0;
  while (start < word.size()) {
    const PieceTable& table = start == 0 ? word_starts_ : suffixes_;
    // Longest candidate first; no key is longer than max_key_bytes, so start
    // there (moved back to a character boundary) instead of at the word end.
    std::size_t end = word.size();
    if (end - start > table.max_key_bytes) {
      end = start + table.max_key_bytes;
      while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80) --end;
    }
    uint32_t h = 2166136261u;
    for (std::size_t k = start; k < end; ++k)
      prefix_hash[k - start + 1] = h = (h ^ static_cast<unsigned char>(word[k])) * 16777619u;
    int32_t id = -1;
    while (end > start) {
      id = table_find(table, word.substr(start, end - start), prefix_hash[end - start]);
      if (id >= 0) break;
      end -= last_char_bytes(word, end);
    }
    if (id < 0) {  // some piece is not in the vocabulary: the whole word is unknown
      out.resize(first);
      out.push_back(unk_id_);
      return;
    }
    out.push_back(id);
    start = end;
  }
}

std::vector<int32_t> WordPieceTokenizer::encode_words(std::string_view text) const {
  struct Sink {
    const WordPieceTokenizer& tok;
    std::vector<int32_t> ids;
    bool word(std::string_view w, int n_chars) { tok.wordpiece(w, n_chars, ids); return true; }
    bool special(int32_t id) { ids.push_back(id); return true; }
  } sink{*this, {}};
  sink.ids.reserve(text.size() / 4 + 8);
  scan(text, sink);
  return std::move(sink.ids);
}

std::vector<int32_t> WordPieceTokenizer::encode(std::string_view text, int max_length) const {
  if (max_length < 2)
    input_error("max_length", "must be at least 2 (room for [CLS] and [SEP]), got " +
                                  std::to_string(max_length));
  // Stops scanning once the content budget is full: a 10 KB review costs no
  // more than its first 510 tokens.
  struct Sink {
    const WordPieceTokenizer& tok;
    std::vector<int32_t> ids;
    std::size_t limit;  // [CLS] + content, before [SEP]
    bool word(std::string_view w, int n_chars) {
      tok.wordpiece(w, n_chars, ids);
      return ids.size() < limit;
    }
    bool special(int32_t id) {
      ids.push_back(id);
      return ids.size() < limit;
    }
  } sink{*this, {}, static_cast<std::size_t>(max_length) - 1};
  sink.ids.reserve(std::min<std::size_t>(sink.limit + 1, text.size() / 3 + 8));
  sink.ids.push_back(cls_id_);
  scan(text, sink);
  if (sink.ids.size() > sink.limit) sink.ids.resize(sink.limit);
  sink.ids.push_back(sep_id_);
  return std::move(sink.ids);
}

}  // namespace ftb
