#!/usr/bin/env bash
# `ftbench tokenize`: vocabularies, JSONL input and the golden token ids.
#   tests/cli/tokenize.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case "$case_name" in
  vocab_without_cls)
    printf '[PAD]\n[UNK]\n[SEP]\nhello\n' >"$tmp/vocab.txt"; echo '{"text":"hello"}' >"$tmp/in.jsonl"
    expect_error 2 vocab.txt "$ftbench" tokenize --vocab "$tmp/vocab.txt" --input "$tmp/in.jsonl" ;;
  bad_jsonl)
    printf '{"text":"ok"}\n{"text": oops}\n' >"$tmp/in.jsonl"
    expect_error 2 in.jsonl:2 "$ftbench" tokenize --vocab "$fixtures/bert-base-uncased-vocab.txt" --input "$tmp/in.jsonl" ;;
  tokenize_matches_golden)
    head -n 20 "$fixtures/tokenizer_golden.jsonl" >"$tmp/in.jsonl"
    "$ftbench" tokenize --vocab "$fixtures/bert-base-uncased-vocab.txt" --input "$tmp/in.jsonl" >"$tmp/out" || fail "tokenize failed"
    python3 - "$tmp/in.jsonl" "$tmp/out" <<'PY' || fail "ids differ from the tokenizers package"
import json, sys
want = [json.loads(l)["input_ids"] for l in open(sys.argv[1])]
got = [json.loads(l)["input_ids"] for l in open(sys.argv[2])]
assert want == got
PY
    ;;
  huge_jsonl_line)
    # A 1 GB line (a sparse file: no disk, no time to build it) ends at the
    # 16 MiB line limit within seconds, in bounded memory.
    printf '{"text": "' >"$tmp/big.jsonl"; truncate -s 1G "$tmp/big.jsonl"
    echo '{"text": "a fine movie"}' >"$tmp/small.jsonl"
    vocab="$fixtures/bert-base-uncased-vocab.txt"
    rss_of "$tmp/rss0" "$ftbench" tokenize --vocab "$vocab" --input "$tmp/small.jsonl" >/dev/null || fail "tokenize failed"
    start=$SECONDS
    expect_error 2 'big.jsonl:1: line longer than the 16 MiB limit' rss_of "$tmp/rss1" "$ftbench" tokenize --vocab "$vocab" --input "$tmp/big.jsonl"
    [ $((SECONDS - start)) -le 10 ] || fail "took $((SECONDS - start)) s"
    rss_within "$tmp/rss0" "$tmp/rss1" 96 ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
