#!/usr/bin/env bash
# Contract checks on the real ftbench binary: exit codes, one-line errors that
# name the file or flag, reports never half-written, predict/tokenize output.
#   tests/cli_checks.sh FTBENCH FIXTURES CASE
set -uo pipefail
ftbench="$1"; fixtures="$2"; case_name="$3"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }

# expect_error CODE NEEDLE cmd...: exit code CODE, exactly one error line
# (starting with "ftbench:") that contains NEEDLE; progress lines may precede it.
expect_error() {
  local code="$1" needle="$2"; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  [ "$rc" = "$code" ] || fail "exit $rc, want $code; stderr: $(cat "$tmp/err")"
  [ "$(grep -c '^ftbench: ' "$tmp/err")" = 1 ] || fail "want one 'ftbench:' error line, got: $(cat "$tmp/err")"
  [ "$(tail -n 1 "$tmp/err" | cut -c1-9)" = "ftbench: " ] || fail "the error is not the last line: $(cat "$tmp/err")"
  grep '^ftbench: ' "$tmp/err" | grep -qF -- "$needle" || fail "message does not name '$needle': $(cat "$tmp/err")"
}
model_copy() { cp -r "$fixtures/golden_model" "$tmp/m"; }
# threads=1: ctest runs two checks at once on 2 cores
tiny=(epochs=1 synthetic_count=200 max_steps=3 eval_max_batches=2 prefetch=1 threads=1)

case "$case_name" in
  unknown_scenario) expect_error 2 --scenarios "$ftbench" run --scenarios nope --out "$tmp/o" ;;
  unknown_preset) expect_error 2 --preset "$ftbench" run --preset nope --out "$tmp/o" ;;
  unknown_key) expect_error 2 frobnicate "$ftbench" run --out "$tmp/o" frobnicate=1 ;;
  bad_value) expect_error 2 epochs "$ftbench" run --out "$tmp/o" epochs=abc ;;
  bad_flag) expect_error 2 --bogus "$ftbench" run --bogus ;;
  missing_safetensors)
    model_copy; rm "$tmp/m/model.safetensors"
    echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    expect_error 2 model.safetensors "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" ;;
  truncated_safetensors)
    model_copy; truncate -s 50000 "$tmp/m/model.safetensors"
    echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    expect_error 2 model.safetensors "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" ;;
  config_missing_key)
    model_copy; python3 -c "import json,sys; p=sys.argv[1]; c=json.load(open(p)); del c['dim']; json.dump(c,open(p,'w'))" "$tmp/m/config.json"
    echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    expect_error 2 '"dim"' "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" ;;
  shape_mismatch)
    model_copy; python3 -c "import json,sys; p=sys.argv[1]; c=json.load(open(p)); c['hidden_dim']=64; json.dump(c,open(p,'w'))" "$tmp/m/config.json"
    echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    expect_error 2 'shape' "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" ;;
  vocab_without_cls)
    printf '[PAD]\n[UNK]\n[SEP]\nhello\n' >"$tmp/vocab.txt"; echo '{"text":"hello"}' >"$tmp/in.jsonl"
    expect_error 2 vocab.txt "$ftbench" tokenize --vocab "$tmp/vocab.txt" --input "$tmp/in.jsonl" ;;
  bad_jsonl)
    printf '{"text":"ok"}\n{"text": oops}\n' >"$tmp/in.jsonl"
    expect_error 2 in.jsonl:2 "$ftbench" tokenize --vocab "$fixtures/bert-base-uncased-vocab.txt" --input "$tmp/in.jsonl" ;;
  csv_bad_label)
    printf 'text,label\n"fine movie",1\n"bad movie",2\n' >"$tmp/d.csv"
    expect_error 2 d.csv "$ftbench" run --data "$tmp/d.csv" --out "$tmp/o" ;;
  csv_unclosed_quote)
    printf 'text,label\n"fine movie,1\n' >"$tmp/d.csv"
    expect_error 2 d.csv "$ftbench" run --data "$tmp/d.csv" --out "$tmp/o" ;;
  empty_dataset)
    printf 'text,label\n' >"$tmp/d.csv"
    expect_error 2 d.csv "$ftbench" run --data "$tmp/d.csv" --out "$tmp/o" ;;
  truncated_targz)
    mkdir -p "$tmp/a/aclImdb/train/pos" "$tmp/a/aclImdb/train/neg"
    for i in $(seq 1 200); do head -c 3000 /dev/urandom | base64 >"$tmp/a/aclImdb/train/pos/${i}_9.txt"; done
    tar -czf "$tmp/full.tar.gz" -C "$tmp/a" aclImdb
    head -c $(( $(stat -c %s "$tmp/full.tar.gz") / 2 )) "$tmp/full.tar.gz" >"$tmp/trunc.tar.gz"
    expect_error 2 trunc.tar.gz "$ftbench" run --data "$tmp/trunc.tar.gz" --out "$tmp/o" ;;
  report_survives_bad_input)
    mkdir -p "$tmp/o"; echo '{"schema":"ftbench.report/1","keep":"me"}' >"$tmp/o/report.json"
    cp "$tmp/o/report.json" "$tmp/before.json"
    expect_error 2 --scenarios "$ftbench" run --scenarios nope --out "$tmp/o"
    printf 'text,label\n"x",7\n' >"$tmp/d.csv"
    expect_error 2 d.csv "$ftbench" run --data "$tmp/d.csv" --out "$tmp/o"
    cmp -s "$tmp/o/report.json" "$tmp/before.json" || fail "report.json was modified" ;;
  predict_matches_golden)
    python3 - "$fixtures/golden_model/golden.json" >"$tmp/in.jsonl" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
for ids, mask in zip(g["input_ids"], g["attention_mask"]):
    print(json.dumps({"input_ids": ids, "attention_mask": mask}))
PY
    "$ftbench" predict --model "$fixtures/golden_model" --input "$tmp/in.jsonl" >"$tmp/out" || fail "predict failed"
    python3 - "$fixtures/golden_model/golden.json" "$tmp/out" <<'PY' || fail "logits differ from Hugging Face"
import json, sys
g = json.load(open(sys.argv[1]))
rows = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == len(g["eval_logits"]), len(rows)
for want, got in zip(g["eval_logits"], rows):
    d = max(abs(a - b) for a, b in zip(want, got["logits"]))
    assert d <= 1e-5, d
    assert got["label"] == max(range(len(want)), key=lambda i: want[i])
PY
    ;;
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
  run_writes_report)
    "$ftbench" run --scenarios baseline --out "$tmp/o" "${tiny[@]}" >"$tmp/out" 2>"$tmp/err" || fail "run failed: $(tail -3 "$tmp/err")"
    for f in report.json table.md steps.csv; do [ -s "$tmp/o/$f" ] || fail "missing $f"; done
    python3 - "$tmp/o/report.json" <<'PY' || fail "report.json misses contract keys"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "ftbench.report/1"
for k in ("environment", "config", "results"): assert k in r, k
res = r["results"][0]
for k in ("scenario", "status", "reason", "world_size", "device", "precision", "wall_time_s", "epochs", "repeats"):
    assert k in res, k
assert res["status"] == "ok", res
assert res["throughput"]["train_samples_per_s"] > 0
assert "train_tokens_per_s" in res["throughput"]
assert "val" in res["accuracy"] and "test" in res["accuracy"]
assert res["memory"]["peak_bytes"] > 0
assert r["environment"]["threads"]["intra_op"] >= 1
PY
    ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
