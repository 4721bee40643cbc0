#!/usr/bin/env python3
"""Writes tests/fixtures/tokenizer_json/*.json (tokenizer.json files made by the
`tokenizers` package) and tests/fixtures/tokenizer_json_golden.jsonl: what
each of them encodes the hard cases of tools/golden_tokenizer.py to.

The C++ tokenizer.json reader (core/text/tokenizer_json.h) must reproduce every
line (tests/test_tokenizer_json.cpp). The variants differ in what tokenizer.json
states: BertNormalizer's lowercase / strip_accents / handle_chinese_chars /
clean_text, and the post-processor (BertProcessing or TemplateProcessing, as
all-MiniLM-L6-v2's file has). The vocabulary is the first 3,000 entries of
bert-base-uncased's (specials, characters, ~1,000 common words) to keep the
fixtures small.

    .venv/bin/python tools/golden_tokenizer_json.py \
        [--vocab ../shared/data/bert-base-uncased-vocab.txt] [--out-dir tests/fixtures]
"""
import argparse
import json
import pathlib
import sys

from tokenizers import BertWordPieceTokenizer
from tokenizers.processors import TemplateProcessing

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from golden_tokenizer import HARD_CASES, MAX_LENGTH, ROOT, long_text  # noqa: E402

VOCAB_ENTRIES = 3000
# name -> BertWordPieceTokenizer settings, and whether to use TemplateProcessing.
VARIANTS = {
    "uncased_template": (dict(lowercase=True, strip_accents=None, clean_text=True, handle_chinese_chars=True), True),
    "cased": (dict(lowercase=False, strip_accents=None, clean_text=True, handle_chinese_chars=True), False),
    "lower_keep_accents": (dict(lowercase=True, strip_accents=False, clean_text=True, handle_chinese_chars=True), False),
    "raw_text_no_cjk": (dict(lowercase=True, strip_accents=True, clean_text=False, handle_chinese_chars=False), False),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab", default=str(ROOT.parent / "shared/data/bert-base-uncased-vocab.txt"))
    ap.add_argument("--out-dir", default=str(ROOT / "tests/fixtures"))
    args = ap.parse_args()
    out = pathlib.Path(args.out_dir)
    (out / "tokenizer_json").mkdir(parents=True, exist_ok=True)
    lines = pathlib.Path(args.vocab).read_text(encoding="utf-8").split("\n")[:VOCAB_ENTRIES]
    vocab = {token: i for i, token in enumerate(lines)}
    # A few cased words and accented words so the variants have something to find.
    for extra in ["This", "Great", "The", "café", "naïve", "ÉCOLE", "Привет"]:
        vocab.setdefault(extra, len(vocab))
    cases = list(HARD_CASES) + [("long_text", long_text())]
    with open(out / "tokenizer_json_golden.jsonl", "w", encoding="utf-8") as f:
        for variant, (settings, template) in VARIANTS.items():
            tok = BertWordPieceTokenizer(vocab, wordpieces_prefix="##", **settings)
            if template:
                tok.post_processor = TemplateProcessing(
                    single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                    special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
            tok.enable_truncation(max_length=MAX_LENGTH)
            tok.save(str(out / "tokenizer_json" / f"{variant}.json"))
            for name, text in cases:
                f.write(json.dumps({"variant": variant, "name": name, "text": text,
                                    "input_ids": tok.encode(text).ids}, ensure_ascii=True) + "\n")
    print(f"wrote {len(VARIANTS)} tokenizer.json files and {len(VARIANTS) * len(cases)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
