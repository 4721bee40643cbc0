// Hugging Face's fast-tokenizer file, tokenizer.json, for WordPiece models
// (BERT, DistilBERT, MiniLM, ...): the vocabulary (model.vocab), the
// BertNormalizer settings (clean_text, handle_chinese_chars, strip_accents
// with null = lowercase, lowercase), the special tokens (added_tokens, the
// post-processor's [CLS]/[SEP], padding's pad token, model.unk_token) and
// max_input_chars_per_word. Anything the WordPieceTokenizer cannot reproduce
// (another model type, normaliser or pre-tokenizer, a prefix other than
// "##") is an InputError naming the file and the key. No LibTorch.
#pragma once

#include <string>

#include "core/text/tokenizer.h"

namespace ftb {

WordPieceTokenizer read_tokenizer_json(const std::string& path);

// A tokenizer file by its name: *.json is a tokenizer.json, anything else a
// vocab.txt (one token per line).
WordPieceTokenizer load_tokenizer_file(const std::string& path);

// A model folder's tokenizer file: tokenizer.json when present (as
// AutoTokenizer prefers it: it carries the normaliser settings), else
// vocab.txt; InputError naming the folder when it has neither.
std::string model_tokenizer_file(const std::string& model_dir);

}  // namespace ftb
