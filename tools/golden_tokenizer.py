#!/usr/bin/env python3
"""Writes tests/fixtures/tokenizer_golden.jsonl: Hugging Face `tokenizers`
output for distilbert-base-uncased on hard cases and real IMDB reviews.

The C++ WordPieceTokenizer must reproduce every line exactly
(tests/test_tokenizer.cpp). Uses only local files (no model hub):

    .venv/bin/pip install -r tools/requirements-golden.txt
    .venv/bin/python tools/golden_tokenizer.py \
        [--vocab ../shared/data/bert-base-uncased-vocab.txt] \
        [--imdb ../shared/data/imdb-dev-aclImdb.tar.gz] \
        [--out tests/fixtures/tokenizer_golden.jsonl]

Each line: {"name": ..., "text": ..., "input_ids": [...]} with max_length 512
and truncation, exactly as `tokenizer(text, truncation=True, max_length=512)`.

The reference is the `tokenizers` (Rust) BertWordPieceTokenizer, which is what
transformers' BertTokenizer / DistilBertTokenizer(Fast) run. The old pure-Python
BertTokenizer differs on a few code points (see --compare-legacy); those
differences are printed, not written.
"""
import argparse
import json
import pathlib
import sys
import tarfile

from tokenizers import BertWordPieceTokenizer

MAX_LENGTH = 512
ROOT = pathlib.Path(__file__).resolve().parent.parent

# (name, text): each one exercises one rule of BertNormalizer / BertPreTokenizer /
# WordPiece. Escapes keep the invisible characters visible in this file.
HARD_CASES = [
    ("empty", ""),
    ("spaces_only", " \t\n\r  "),
    ("plain", "This movie was great!"),
    ("accents", "Café naïve résumé Åsa Ångström Pokémon São Paulo Zürich façade"),
    ("accents_upper", "ÉCOLE ÀÉÎÕÜ Ñandú İstanbul ǅemal"),
    ("combining_marks", "e\u0301cole n\u0303 a\u0300\u0301\u0302 \u0301leading"),
    ("greek_sigma", "ΟΔΥΣΣΕΥΣ ΣΟΦΟΣ οδυσσευς"),
    ("cyrillic", "Привет, мир! Фильм ОТЛИЧНЫЙ."),
    ("cjk", "我喜欢这部电影。日本語のテキスト、한국어 텍스트"),
    ("cjk_mixed", "abc中文def 漢字kanji 𠀀𪜀 豈"),
    ("cjk_ext_ranges", "\u3400\u4dbf\U0002a700\U0002b740\U0002b820\U0002b920\U0002ceaf\U0002f800"),
    ("br_tags", "Great film.<br /><br />The acting was superb.<br /><br />10/10"),
    ("punct_runs", "Wow!!!... What?!?! (really) [sic] {x} --- ~~~ ``quoted'' ***"),
    ("unicode_punct", "«Bonjour» — “quoted” ‘single’ … ¿Qué? ¡Sí! 【括弧】 ・ ‰ §"),
    ("ascii_symbols", "$100 + 50% = #1 @user ^_^ a|b a\\b a/b a&b <tag> `code`"),
    ("apostrophes", "don't can't won't it's the 90's rock'n'roll 'quoted' don’t"),
    ("numbers", "1 12 123 1234 12345 3.14159 1,000,000 1e10 0x1F 2nd 21st 007 -5 +7"),
    ("emoji", "I loved it 😀😂👍🏽 ❤️ 🎬🍿 👨‍👩‍👧 🇺🇸 ☺ ★★★★☆"),
    ("emoji_newer", "🥰 🤩 🫠 🪐"),
    ("control_chars", "a\x00b\x01c\x07d\x1be\x7ff\u0085g\u200bh\u200di\ufeffj\ufffdk"),
    # Unassigned code points (Cn) stay in their word, which becomes [UNK]: the
    # fast tokenizer the reference loads (AutoTokenizer) keeps them; the
    # legacy pure-Python BertTokenizer drops them as control characters
    # (--compare-legacy shows it).
    ("unassigned", "a\u0378b c\U000E0080d x\u0378 y hello\u0378world \u0378 \U000E0080"),
    ("tabs_newlines", "line one\tcol2\nline two\r\nline three\x0bvt\x0cff\x1cfs\u2028ls\u2029ps"),
    ("unicode_spaces", "a\u00a0b\u2002c\u2003d\u3000e\u202ff\u205fg\u1680h\u180ei"),
    ("long_word_150", "x" * 150 + " tail"),
    ("long_word_100", "y" * 100 + " " + "z" * 101),
    ("long_word_accents", "é" * 60),
    ("unknown_chars", "ᚠᛇᚻ ⌘ ⚙ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ﬁ ＡＢＣ １２３"),
    ("wordpiece_split", "unaffable tokenization hyperparameterization antidisestablishmentarianism"),
    ("specials_in_text", "a [SEP] b [CLS][MASK] [UNK] [PAD] [sep] [ SEP ]x[SEP]y"),
    ("hashes", "## #hashtag ##ing a##b"),
    ("html_entities", "&amp; &quot;Hi&quot; &#39;s <i>italic</i> <b>bold</b>"),
    ("urls", "http://www.imdb.com/title/tt0111161/ e-mail: someone@example.com"),
    ("mixed_scripts", "Ελληνικά עברית العربية हिन्दी ไทย ქართული"),
    ("arabic_marks", "مَرْحَبًا"),
    ("turkish_dotless", "ıI iİ"),
    ("german_sharp_s", "Straße STRASSE ß ẞ"),
    ("ligatures_compat", "Ǆ ǅ ǆ Ⅻ ⅻ ½ ² ™ ℃"),
]


def long_text():
    # ~700 words, so > 512 tokens: truncation must keep [SEP] last.
    words = ("the film is a masterpiece of quiet tension and unexpected humour , "
             "and its director's choices reward a second viewing . ").split()
    return " ".join(words[i % len(words)] for i in range(700))


def imdb_reviews(archive, count):
    """`count` real reviews: every n-th one plus the first short ones with
    non-ASCII text, deterministic (sorted by member name). The archive is read
    once in order: gzip has no random access."""
    texts = {}
    with tarfile.open(archive, "r:gz") as tar:
        for m in tar:
            if m.isfile() and m.name.endswith(".txt") and ("/pos/" in m.name or "/neg/" in m.name):
                texts[m.name] = tar.extractfile(m).read().decode("utf-8", errors="replace")
    names = sorted(texts)
    n_stride = count * 2 // 3
    stride = max(1, len(names) // n_stride)
    picked = names[::stride][:n_stride]
    non_ascii = [n for n in names if n not in picked and not texts[n].isascii()
                 and len(texts[n]) < 2500][:count - n_stride]
    return [(n, texts[n]) for n in picked + non_ascii]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab", default=str(ROOT.parent / "shared/data/bert-base-uncased-vocab.txt"))
    ap.add_argument("--imdb", default=str(ROOT.parent / "shared/data/imdb-dev-aclImdb.tar.gz"))
    ap.add_argument("--reviews", type=int, default=30)
    ap.add_argument("--out", default=str(ROOT / "tests/fixtures/tokenizer_golden.jsonl"))
    ap.add_argument("--compare-legacy", action="store_true",
                    help="also run transformers' pure-Python BertTokenizer and print differences")
    args = ap.parse_args()

    # distilbert-base-uncased: lowercase, strip accents (follows lowercase),
    # clean text, split CJK, WordPiece with "##" and 100 chars per word.
    tok = BertWordPieceTokenizer(args.vocab, lowercase=True, strip_accents=None,
                                 clean_text=True, handle_chinese_chars=True,
                                 wordpieces_prefix="##")
    tok.enable_truncation(max_length=MAX_LENGTH)

    cases = list(HARD_CASES) + [("long_text", long_text())]
    if pathlib.Path(args.imdb).exists():
        cases += [("imdb:" + name, text) for name, text in imdb_reviews(args.imdb, args.reviews)]
    else:
        print(f"{args.imdb}: absent, writing hard cases only", file=sys.stderr)

    legacy = None
    if args.compare_legacy:
        from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy
        legacy = BertTokenizerLegacy(args.vocab, do_lower_case=True)

    with open(args.out, "w", encoding="utf-8") as f:
        for name, text in cases:
            ids = tok.encode(text).ids
            if legacy is not None:
                ref = legacy(text, truncation=True, max_length=MAX_LENGTH)["input_ids"]
                if ref != ids:
                    print(f"legacy differs on {name}: {text!r}\n  tokenizers: {ids}\n  legacy:     {ref}",
                          file=sys.stderr)
            f.write(json.dumps({"name": name, "text": text, "input_ids": ids},
                               ensure_ascii=True) + "\n")
    print(f"wrote {len(cases)} cases to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
