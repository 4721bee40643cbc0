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
# safetensors_edit IN OUT DROP_REGEX [NAME=D0xD1 ...]: a copy of a safetensors
# file without the tensors whose names match DROP_REGEX, plus F32 zero tensors
# (stdlib only: the `safetensors` package need not be installed).
safetensors_edit() {
  python3 - "$@" <<'PY'
import json, re, struct, sys
src, dst, drop, *add = sys.argv[1:]
raw = open(src, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header, data = json.loads(raw[8:8 + n]), raw[8 + n:]
meta = header.pop("__metadata__", {"format": "pt"})
tensors = [(k, v["dtype"], v["shape"], data[v["data_offsets"][0]:v["data_offsets"][1]])
           for k, v in header.items() if not re.match(drop, k)]
for spec in add:
    name, dims = spec.split("=")
    shape = [int(d) for d in dims.split("x")]
    count = 1
    for d in shape: count *= d
    tensors.append((name, "F32", shape, bytes(4 * count)))
out, blobs, offset = {"__metadata__": meta}, [], 0
for name, dtype, shape, blob in tensors:
    out[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(blob)]}
    blobs.append(blob); offset += len(blob)
h = json.dumps(out).encode()
open(dst, "wb").write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
PY
}
# Committed reports (results/ beside tests/), and report_edit IN OUT PYTHON: a
# copy of a report with one statement applied to it (as `r`).
results="$(cd "$fixtures/../../results" && pwd)"
report_edit() {
  python3 - "$@" <<'PY'
import json, sys
src, dst, statement = sys.argv[1:]
r = json.load(open(src))
exec(statement)
json.dump(r, open(dst, "w"))
PY
}
# threads=1: ctest runs two checks at once on 2 cores
tiny=(epochs=1 synthetic_count=200 max_steps=3 eval_max_batches=2 prefetch=1 threads=1)
# interrupt_*: a tiny model, 200 steps a row (about a second here when the
# machine is idle): long enough to be signalled mid-row, short for CI.
interrupt_cfg=(epochs=1 synthetic_count=3000 vocab_size=300 dim=32 n_layers=1 n_heads=2 hidden_dim=64 max_length=48
  batch_size=8 max_steps=200 eval_max_batches=1 prefetch=1 threads=1)
# fake_report OUT NIGHT FACTOR [EDIT...]: the committed smoke report as night
# NIGHT's (timestamp, commit), every repeat's throughput x FACTOR with 1 %
# seeded noise (times / FACTOR), then python EDITs on `r`, e.g.
# 'r["config"]["preset"] = "paper"'.
smoke_report="$fixtures/../../results/cpu-smoke-2026-11-30/report.json"
fake_report() {
  python3 - "$smoke_report" "$@" <<'PY'
import json, random, sys
src, out, night, factor, *edits = sys.argv[1:]
r = json.load(open(src))
rng = random.Random(int(night))
r["environment"]["timestamp"] = "2026-11-%02dT02:00:00Z" % (1 + int(night))
r["environment"]["git_commit"] = "c%03d" % int(night)
for res in r["results"]:
    for s in res.get("samples", []):
        f = float(factor) * rng.lognormvariate(0, 0.01)
        for k in ("train_samples_per_s", "steady_samples_per_s", "train_tokens_per_s"): s[k] *= f
        for k in ("wall_time_s", "step_ms_median"): s[k] /= f
for e in edits: exec(e)
json.dump(r, open(out, "w"), indent=1)
PY
}

# rss_of FILE cmd...: runs cmd, writes its peak resident memory (KiB) to
# FILE, returns its exit code (huge_* cases: bounded memory).
rss_of() {
  python3 - "$@" <<'PY'
import os, subprocess, sys
out, cmd = sys.argv[1], sys.argv[2:]
p = subprocess.Popen(cmd)
_, status, usage = os.wait4(p.pid, 0)
open(out, "w").write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
PY
}
# rss_within BASE_FILE FILE MIB: FILE's peak is at most MIB above BASE_FILE's.
rss_within() {
  local base got; base="$(cat "$1")"; got="$(cat "$2")"
  [ $((got - base)) -le $(($3 * 1024)) ] || fail "peak memory $((got / 1024)) MiB, $(((got - base) / 1024)) MiB above a normal input's (bound: $3 MiB)"
  echo "peak memory $((got / 1024)) MiB ($(((got - base) / 1024)) MiB above a normal input's)"
}
# interrupt_run SIGNAL CODE "FIRST,SECOND" [key=value...]: a run of two rows,
# SIGNAL sent once the first row is in report.json and the second has
# started; then exit code CODE, the report holds the first row (ok) and the
# second (failed, reason "interrupted") with table.md and index.html beside
# it, and no process of the run is left (ranks included).
interrupt_run() {
  local sig="$1" code="$2" rows="$3"; shift 3
  local second="${rows#*,}"
  "$ftbench" run --scenarios "$rows" --device cpu --world-size 2 --out "$tmp/o" "$@" >"$tmp/out" 2>"$tmp/err" &
  local pid=$!
  for _ in $(seq 3600); do  # 3 minutes at most: the machine may be busy
    grep -q "^\[$second\] 1 epochs x" "$tmp/err" 2>/dev/null && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.05
  done
  grep -q "^\[$second\] 1 epochs x" "$tmp/err" || { kill -9 $pid; fail "row $second never started: $(tail -3 "$tmp/err")"; }
  local kids; kids="$(pgrep -P $pid | tr '\n' ' ')"
  kill -s "$sig" $pid; local sent=$SECONDS
  wait $pid; local rc=$?
  echo "exit $rc $((SECONDS - sent)) s after $sig (children then: ${kids:-none})"
  [ "$rc" = "$code" ] || fail "exit $rc after $sig, want $code: $(tail -3 "$tmp/err")"
  [ $((SECONDS - sent)) -le 60 ] || fail "took $((SECONDS - sent)) s to stop after $sig"
  grep -q "interrupted by SIG$sig" "$tmp/err" || fail "stderr does not say it was interrupted: $(tail -3 "$tmp/err")"
  sleep 0.3
  for k in $kids; do kill -0 "$k" 2>/dev/null && { kill -9 "$k"; fail "process $k (a rank) left running"; }; done
  if pgrep -f -- "$tmp/o" >/dev/null; then pgrep -af -- "$tmp/o" >&2; fail "processes left behind"; fi
  for f in report.json table.md index.html; do [ -s "$tmp/o/$f" ] || fail "missing $f"; done
  python3 - "$tmp/o/report.json" "${rows%%,*}" "$second" <<'PY' || fail "the report does not keep what was measured: $(cat "$tmp/o/report.json" | head -c 300)"
import json, sys
r = json.load(open(sys.argv[1]))
rows = {x["scenario"]: x for x in r["results"]}
assert list(rows) == sys.argv[2:], list(rows)
first, second = rows[sys.argv[2]], rows[sys.argv[3]]
assert first["status"] == "ok" and first["throughput"]["train_samples_per_s"] > 0, first
assert second["status"] == "failed" and second["reason"] == "interrupted", second
PY
  grep -q "interrupted" "$tmp/o/table.md" || fail "table.md does not show the interrupted row"
}

case "$case_name" in
  unknown_scenario) expect_error 2 --scenarios "$ftbench" run --scenarios nope --out "$tmp/o" ;;
  unknown_preset) expect_error 2 --preset "$ftbench" run --preset nope --out "$tmp/o" ;;
  unknown_key) expect_error 2 frobnicate "$ftbench" run --out "$tmp/o" frobnicate=1 ;;
  bad_value) expect_error 2 epochs "$ftbench" run --out "$tmp/o" epochs=abc
    expect_error 2 world_size "$ftbench" run --out "$tmp/o" --world-size -2 ;;
  bad_flag) expect_error 2 --bogus "$ftbench" run --bogus ;;
  control_chars_in_message)
    # A newline in a key or a path must not break the one-line error.
    expect_error 2 'unknown\nkey' "$ftbench" run --out "$tmp/o" "$(printf 'unknown\nkey')=1"
    expect_error 2 'no\nsuch' "$ftbench" run --data "$tmp/$(printf 'no\nsuch')" --out "$tmp/o" ;;
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
  predict_without_head)
    # A checkpoint without our head would predict from random weights: refused, nothing printed.
    model_copy; echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    safetensors_edit "$fixtures/golden_model/model.safetensors" "$tmp/m/model.safetensors" 'classifier\.'
    expect_error 2 'model.safetensors: missing tensors classifier.weight, classifier.bias (' \
      "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl"
    [ ! -s "$tmp/out" ] || fail "printed logits: $(cat "$tmp/out")"
    safetensors_edit "$fixtures/golden_model/model.safetensors" "$tmp/m/model.safetensors" '(pre_)?classifier\.'
    expect_error 2 'missing tensors pre_classifier.weight, pre_classifier.bias, classifier.weight and 1 more' \
      "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" ;;
  model_type_unknown)
    model_copy; python3 -c "import json,sys; p=sys.argv[1]; c=json.load(open(p)); c['model_type']='gpt2'; json.dump(c,open(p,'w'))" "$tmp/m/config.json"
    echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    expect_error 2 'config.json: key "model_type" is "gpt2"; supported: distilbert, bert' \
      "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" ;;
  tokenizer_json_not_wordpiece)
    # A model folder with tokenizer.json and no vocab.txt: read; a BPE one: refused before any training.
    model_copy; python3 - "$fixtures/tokenizer_json/cased.json" "$tmp/m/tokenizer.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["model"]["type"] = "BPE"
json.dump(j, open(sys.argv[2], "w"))
PY
    expect_error 2 "tokenizer.json: key 'model.type' is \"BPE\"; only WordPiece tokenizers are supported" \
      "$ftbench" run --model "$tmp/m" --scenarios baseline --out "$tmp/o" threads=1 synthetic_count=50 ;;
  checkpoint_neither_layout)
    model_copy
    safetensors_edit "$fixtures/golden_model/model.safetensors" "$tmp/m/model.safetensors" 'distilbert\.' gpt.wte.weight=101x32
    echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    expect_error 2 'model.safetensors: tensors fit neither the distilbert task layout nor the bare body layout (no key "distilbert.embeddings.word_embeddings.weight"' \
      "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" ;;
  tokenizer_json_model_folder)
    # MiniLM's kind of folder: BERT, tokenizer.json, no vocab.txt, bare-body checkpoint.
    cp -r "$fixtures/layouts/bert-base" "$tmp/m"
    python3 - "$fixtures/tokenizer_json/uncased_template.json" "$tmp/m/tokenizer.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["model"]["vocab"] = {t: i for t, i in j["model"]["vocab"].items() if i < 40}  # the model's 40 ids
j["model"]["vocab"].update({"[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4})
j["model"]["vocab"] = {t: i for t, i in j["model"]["vocab"].items() if t not in ("[unused0]", "[unused1]", "[unused2]", "[unused3]")}
j["added_tokens"] = [dict(t, id={"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4}[t["content"]]) for t in j["added_tokens"]]
j["post_processor"]["special_tokens"] = {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                                         "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}
json.dump(j, open(sys.argv[2], "w"))
PY
    "$ftbench" run --model "$tmp/m" --scenarios baseline --out "$tmp/o" epochs=1 max_steps=2 eval_max_batches=1 \
      synthetic_count=200 max_length=20 threads=1 prefetch=1 >"$tmp/out" 2>"$tmp/err" || fail "run failed: $(tail -3 "$tmp/err")"
    grep -qF "Some weights of BertForSequenceClassification were not initialized from the model checkpoint at $tmp/m/model.safetensors and are newly initialized: classifier.weight, classifier.bias" "$tmp/err" ||
      fail "no newly-initialized line: $(cat "$tmp/err")"
    python3 - "$tmp/o/report.json" "$tmp/m/tokenizer.json" <<'PY' || fail "report.json does not record the model and tokenizer"
import json, sys
r = json.load(open(sys.argv[1]))
w = r["config"]["workload"]
assert w["vocab_source"] == sys.argv[2], w["vocab_source"]
assert w["model"]["model_type"] == "bert", w["model"]
assert w["model_load"]["newly_initialized"] == ["classifier.weight", "classifier.bias"], w["model_load"]
assert r["results"][0]["status"] == "ok", r["results"][0]
PY
    ;;
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
  out_is_file)
    # Fails before the workload is built (no "data:" line), leaves the file alone.
    echo 'not a folder' >"$tmp/f"; cp "$tmp/f" "$tmp/before"
    start=$SECONDS
    expect_error 2 "--out: $tmp/f: exists and is not a directory" "$ftbench" run --scenarios baseline --out "$tmp/f"
    [ $((SECONDS - start)) -le 10 ] || fail "took $((SECONDS - start)) s to reject --out"
    ! grep -q '^data: ' "$tmp/err" || fail "the workload was built before --out was checked"
    cmp -s "$tmp/f" "$tmp/before" || fail "$tmp/f was modified" ;;
  out_unwritable)
    # Root writes into a read-only folder: then run ftbench as nobody (setpriv).
    mkdir "$tmp/ro"; chmod 555 "$tmp/ro"; chmod 755 "$tmp"
    as=()
    if [ "$(id -u)" = 0 ]; then
      command -v setpriv >/dev/null && as=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
      if [ ${#as[@]} = 0 ] || ! "${as[@]}" "$ftbench" --help >/dev/null 2>&1; then
        echo "skipped: running as root, and cannot run ftbench as nobody"; exit 0
      fi
    fi
    ! "${as[@]}" touch "$tmp/ro/probe" 2>/dev/null || { echo "skipped: $tmp/ro is writable despite mode 555"; exit 0; }
    expect_error 2 "--out: $tmp/ro/o: cannot create directory: Permission denied" \
      "${as[@]}" "$ftbench" run --scenarios baseline --out "$tmp/ro/o"
    expect_error 2 "--out: $tmp/ro: not writable: Permission denied" \
      "${as[@]}" "$ftbench" run --scenarios baseline --out "$tmp/ro"
    ! grep -q '^data: ' "$tmp/err" || fail "the workload was built before --out was checked" ;;
  zero_train_steps)
    # A row that would not train one step is bad input, not "ok" with loss 0.
    expect_error 2 'batch_size: 100000 is larger than the 4200 training examples (split 4200/600/1200); no training step would run' \
      "$ftbench" run --scenarios baseline --out "$tmp/o" threads=1 batch_size=100000
    expect_error 2 'batch_size: 32 is larger than the 7 training examples (split 7/1/2)' \
      "$ftbench" run --scenarios baseline --out "$tmp/o" threads=1 synthetic_count=10
    [ ! -e "$tmp/o/report.json" ] || fail "a report was written"
    # 35 training examples: one process trains a batch of 32, two ranks of 17 cannot.
    expect_error 2 'batch_size: 32 is larger than the 17 training examples each of 2 ranks gets (split 35/5/10)' \
      "$ftbench" run --scenarios baseline,ddp --world-size 2 --device cpu --out "$tmp/o" threads=1 synthetic_count=50
    "$ftbench" run --scenarios baseline --world-size 2 --out "$tmp/o" threads=1 synthetic_count=50 epochs=1 \
      eval_max_batches=1 >"$tmp/out" 2>"$tmp/err" || fail "a single-process row with world_size 2 did not run: $(tail -3 "$tmp/err")"
    grep -q '^| baseline .* 1.00x ' "$tmp/out" || fail "baseline did not train: $(cat "$tmp/out")" ;;
  model_load_report)
    # A masked-LM checkpoint (distilbert-base-uncased's layout: "distilbert."
    # names, vocab_* head, no classifier): the run says, as from_pretrained
    # does, which tensors are new and which unused, and records both.
    mkdir "$tmp/m"; cp "$fixtures/golden_model/config.json" "$tmp/m/"
    safetensors_edit "$fixtures/golden_model/model.safetensors" "$tmp/m/model.safetensors" '(pre_)?classifier\.' \
      vocab_transform.weight=32x32 vocab_projector.weight=101x32 vocab_projector.bias=101
    { printf '[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n'; for c in {a..z}; do printf '%s\n##%s\n' $c $c; done; } >"$tmp/m/vocab.txt"
    "$ftbench" run --model "$tmp/m" --scenarios baseline --out "$tmp/o" epochs=1 max_steps=2 eval_max_batches=1 \
      synthetic_count=200 max_length=40 threads=1 prefetch=1 >"$tmp/out" 2>"$tmp/err" || fail "run failed: $(tail -3 "$tmp/err")"
    grep -qF "newly initialized: pre_classifier.weight, pre_classifier.bias, classifier.weight, classifier.bias" "$tmp/err" ||
      fail "no newly-initialized line: $(cat "$tmp/err")"
    grep -qF "were not used when initializing DistilBertForSequenceClassification: vocab_projector.bias, vocab_projector.weight, vocab_transform.weight" "$tmp/err" ||
      fail "no unused line: $(cat "$tmp/err")"
    python3 - "$tmp/o/report.json" <<'PY' || fail "report.json does not record the load"
import json, sys
r = json.load(open(sys.argv[1]))
load = r["config"]["workload"]["model_load"]
assert load["newly_initialized"] == ["pre_classifier.weight", "pre_classifier.bias", "classifier.weight", "classifier.bias"], load
assert load["unused"] == ["vocab_projector.bias", "vocab_projector.weight", "vocab_transform.weight"], load
assert r["results"][0]["status"] == "ok", r["results"][0]
PY
    ;;
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
    for f in report.json table.md steps.csv index.html charts/speedup.vl.json charts/speedup.svg charts/speedup.png; do
      [ -s "$tmp/o/$f" ] || fail "missing $f"
    done
    python3 - "$tmp/o/report.json" <<'PY' || fail "report.json misses contract keys"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "ftbench.report/4"
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
  report_reproduces_table)
    # Re-rendering a committed report gives its table.md byte for byte, and
    # the charts as specs, SVG and PNG, and index.html.
    committed="$fixtures/../../results/cpu-smoke-2026-11-30"
    mkdir -p "$tmp/r"; cp "$committed/report.json" "$committed/steps.csv" "$tmp/r/"
    "$ftbench" report "$tmp/r" >"$tmp/out" 2>"$tmp/err" || fail "report failed: $(tail -3 "$tmp/err")"
    cmp "$tmp/r/table.md" "$committed/table.md" || fail "table.md differs from $committed/table.md: $(diff "$committed/table.md" "$tmp/r/table.md" | head -5)"
    [ "$(cat "$tmp/out")" = "$tmp/r/index.html" ] || fail "stdout is not the page's path: $(cat "$tmp/out")"
    ! grep -q "not rendered" "$tmp/err" || fail "the renderer did not run: $(cat "$tmp/err")"
    for c in speedup wall_time throughput test_accuracy epochs loss step_time; do
      for ext in vl.json svg png; do [ -s "$tmp/r/charts/$c.$ext" ] || fail "missing charts/$c.$ext"; done
    done
    [ "$(grep -c '<figure class="chart"' "$tmp/r/index.html")" = 7 ] || fail "index.html does not hold 7 charts"
    [ "$(grep -c '<svg' "$tmp/r/index.html")" -ge 7 ] || fail "index.html does not inline the SVGs" ;;
  report_bad_input)
    mkdir -p "$tmp/empty" "$tmp/o"
    expect_error 2 "$tmp/nope.json" "$ftbench" report "$tmp/nope.json" --out "$tmp/o"
    echo '{"schema": "something/else"}' >"$tmp/other.json"
    expect_error 2 "$tmp/other.json: schema: 'something/else' is not a report version" "$ftbench" report "$tmp/other.json" --out "$tmp/o"
    echo 'not json' >"$tmp/text.json"
    expect_error 2 "$tmp/text.json: not valid JSON" "$ftbench" report "$tmp/text.json" --out "$tmp/o"
    expect_error 2 "$tmp/empty/report.json: no report.json in this folder" "$ftbench" report "$tmp/empty" --out "$tmp/o"
    # A bad report among good ones: nothing is written.
    expect_error 2 "$tmp/text.json" "$ftbench" report "$fixtures/../../results/cpu-smoke-2026-11-30" "$tmp/text.json" --out "$tmp/o"
    [ -z "$(ls -A "$tmp/o")" ] || fail "wrote files after bad input: $(ls "$tmp/o")"
    expect_error 2 "reports is required" "$ftbench" report ;;
  report_without_renderer)
    # No renderer: specs, table and page are still written, exit 0, and the
    # reason is said once on stderr and once in index.html.
    cp "$fixtures/../../results/cpu-smoke-2026-11-30/report.json" "$tmp/report.json"
    FTB_PYTHON=/nonexistent "$ftbench" report "$tmp/report.json" --out "$tmp/o" >"$tmp/out" 2>"$tmp/err" ||
      fail "exit $? without a renderer: $(cat "$tmp/err")"
    [ "$(grep -c 'not rendered' "$tmp/err")" = 1 ] || fail "want one 'not rendered' line on stderr: $(cat "$tmp/err")"
    grep -q '/nonexistent' "$tmp/err" || fail "stderr does not say why: $(cat "$tmp/err")"
    for f in table.md index.html charts/speedup.vl.json charts/loss.vl.json; do [ -s "$tmp/o/$f" ] || fail "missing $f"; done
    [ ! -e "$tmp/o/charts/speedup.svg" ] || fail "an SVG without a renderer"
    [ "$(grep -c 'Charts not rendered to SVG/PNG: no python at /nonexistent' "$tmp/o/index.html")" = 1 ] ||
      fail "index.html does not say once why the charts are missing" ;;
  report_several)
    # Two reports: a set each, and the machine comparison above them.
    results="$fixtures/../../results"
    "$ftbench" report "$results/cpu-smoke-2026-11-30" "$results/gpu-2026-11-29/full/report.json" --out "$tmp/c" \
      >"$tmp/out" 2>"$tmp/err" || fail "report failed: $(tail -3 "$tmp/err")"
    for f in index.html charts/machines.vl.json charts/machines.svg charts/machines.png \
             1-cpu-smoke-2026-11-30/index.html 1-cpu-smoke-2026-11-30/table.md 2-full/index.html 2-full/charts/speedup.svg; do
      [ -s "$tmp/c/$f" ] || fail "missing $f"
    done
    python3 - "$tmp/c/charts/machines.vl.json" "$tmp/c/index.html" <<'PY' || fail "the comparison is wrong"
import json, sys
spec = json.load(open(sys.argv[1]))
machines = {v["machine"] for v in spec["data"]["values"]}
assert machines == {"AMD EPYC, 2 cores (2026-11-30)", "NVIDIA H200 (2026-11-29)"}, machines
page = open(sys.argv[2]).read()
assert 'href="1-cpu-smoke-2026-11-30/index.html"' in page and 'href="2-full/index.html"' in page
PY
    ;;
  report_page_opens_offline)
    # index.html in headless Chromium: no console message at all (a blocked
    # fetch, a CSP violation or a script error would log one), and every
    # chart drawn as an SVG of non-zero size. Needs chromium (tools/setup.sh).
    chromium="$(command -v chromium || command -v chromium-browser)" || fail "no chromium: run tools/setup.sh"
    cp "$fixtures/../../results/cpu-smoke-2026-11-30/report.json" "$fixtures/../../results/cpu-smoke-2026-11-30/steps.csv" "$tmp/"
    "$ftbench" report "$tmp/report.json" --out "$tmp/o" >"$tmp/out" 2>"$tmp/err" || fail "report failed: $(cat "$tmp/err")"
    browse() {  # browse PAGE: the DOM after load on stdout, Chromium's log in $tmp/console
      timeout 120 "$chromium" --headless --disable-gpu --no-sandbox --no-first-run --user-data-dir="$tmp/profile" \
        --enable-logging=stderr --v=0 --virtual-time-budget=5000 --dump-dom "file://$1" 2>"$tmp/console"
    }
    browse "$tmp/o/index.html" >"$tmp/dom.html" || fail "chromium failed: $(tail -3 "$tmp/console")"
    grep -q 'data-chart="speedup"' "$tmp/dom.html" || fail "chromium did not load the page: $(tail -3 "$tmp/console")"
    ! grep -E ':CONSOLE[:(]' "$tmp/console" || fail "console messages on the page"
    # The same page plus a probe (allowed by the page's CSP in this copy only):
    # each chart's drawn size, and any resource the page fetched.
    python3 - "$tmp/o/index.html" "$tmp/o/probe.html" <<'PY'
import sys
page = open(sys.argv[1]).read()
probe = """<script>window.addEventListener('load', () => {
  const sizes = [...document.querySelectorAll('figure.chart')].map(f => {
    const svg = f.querySelector('svg'); if (!svg) return f.dataset.chart + '=none';
    const b = svg.getBoundingClientRect(); return f.dataset.chart + '=' + Math.round(b.width) + 'x' + Math.round(b.height); });
  document.body.setAttribute('data-probe-sizes', sizes.join(' '));
  document.body.setAttribute('data-probe-fetched', performance.getEntriesByType('resource').map(e => e.name).join(' '));
});</script>"""
assert "default-src 'none';" in page
page = page.replace("default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';")
open(sys.argv[2], "w").write(page.replace("</body>", probe + "</body>"))
PY
    browse "$tmp/o/probe.html" >"$tmp/probe-dom.html" || fail "chromium failed on the probe: $(tail -3 "$tmp/console")"
    ! grep -E ':CONSOLE[:(]' "$tmp/console" || fail "console messages on the probed page"
    python3 - "$tmp/probe-dom.html" <<'PY' || fail "a chart is not drawn, or the page fetched something"
import re, sys
dom = open(sys.argv[1]).read()
sizes = re.search(r'data-probe-sizes="([^"]*)"', dom).group(1).split()
fetched = re.search(r'data-probe-fetched="([^"]*)"', dom).group(1)
print("charts:", " ".join(sizes))
assert len(sizes) == 7, sizes
for s in sizes:
    name, wh = s.split("=")
    assert wh != "none", name
    w, h = map(int, wh.split("x"))
    assert w > 100 and h > 100, s
assert fetched == "", fetched
PY
    ;;
  dist_world2_report)
    "$ftbench" run --scenarios baseline,ddp,zero2 --world-size 2 --device cpu --out "$tmp/o" "${tiny[@]}" >"$tmp/out" 2>"$tmp/err" ||
      fail "run failed: $(tail -3 "$tmp/err")"
    python3 - "$tmp/o/report.json" <<'PY' || fail "distributed rows are incomplete"
import json, sys
r = json.load(open(sys.argv[1]))
rows = {x["scenario"]: x for x in r["results"]}
assert list(rows) == ["baseline", "ddp", "zero2"], list(rows)
assert rows["baseline"]["world_size"] == 1 and rows["baseline"]["distributed"] is None
for name in ("ddp", "zero2"):
    x = rows[name]
    assert x["status"] == "ok", x["reason"]
    assert x["world_size"] == 2 and x["threads"] >= 1
    d = x["distributed"]
    assert d["backend"] == "gloo" and d["strategy"] == name, d
    assert d["bucket_cap_bytes"] == 25 * 1024 * 1024 and d["buckets"] >= 1
    assert d["optimizer_state_bytes_per_rank"] > 0 and d["grad_bytes_per_rank"] > 0
    assert d["collective_wait_s"] >= 0 and d["per_rank_samples_per_s"] > 0
    # global samples/s is the sum over ranks, not one rank's figure
    assert x["throughput"]["train_samples_per_s"] > 1.5 * d["per_rank_samples_per_s"]
assert rows["zero2"]["distributed"]["grad_bytes_per_rank"] < rows["ddp"]["distributed"]["grad_bytes_per_rank"]
# Gloo has no reduce-scatter: zero2 reports the emulation it used, ddp used none
assert rows["zero2"]["distributed"]["comm_fallback"].startswith("reduce_scatter = all_reduce"), rows["zero2"]["distributed"]
assert rows["ddp"]["distributed"]["comm_fallback"] == "", rows["ddp"]["distributed"]
PY
    grep -q "| ddp " "$tmp/out" || fail "no ddp row in the printed table" ;;
  dist_kill_rank)
    # One rank SIGKILLed mid-epoch: the run ends non-zero within 60 s, names
    # the rank and the signal, leaves no process, and the report is whole.
    "$ftbench" run --scenarios ddp --world-size 2 --device cpu --out "$tmp/o" epochs=3 synthetic_count=20000 prefetch=1 threads=2 \
      >"$tmp/out" 2>"$tmp/err" &
    parent=$!
    for _ in $(seq 300); do grep -q "\[ddp\] epoch 1/3 step" "$tmp/err" 2>/dev/null && break; sleep 0.2; done
    grep -q "\[ddp\] epoch 1/3 step" "$tmp/err" || { kill -9 $parent; fail "training never started: $(tail -3 "$tmp/err")"; }
    victim="$(pgrep -P $parent | tail -n 1)"
    [ -n "$victim" ] || fail "no rank processes under the launcher"
    kill -9 "$victim"; killed_at=$SECONDS
    wait $parent; rc=$?; took=$((SECONDS - killed_at))
    [ "$rc" != 0 ] || fail "exit 0 after a rank was killed"
    [ "$took" -le 60 ] || fail "took ${took}s to stop"
    echo "stopped ${took}s after the kill"
    grep -q "rank 1 .*signal 9" "$tmp/err" || fail "stderr does not name the rank and signal: $(tail -3 "$tmp/err")"
    sleep 0.5
    if pgrep -f -- "$tmp/o" >/dev/null; then pgrep -af -- "$tmp/o" >&2; pkill -9 -f -- "$tmp/o"; fail "processes left behind"; fi
    python3 - "$tmp/o/report.json" <<'PY' || fail "report after the failure is not whole"
import json, sys
r = json.load(open(sys.argv[1]))
x = r["results"][0]
assert x["scenario"] == "ddp" and x["status"] == "failed" and "rank 1" in x["reason"], x
PY
    ;;
  dist_busy_port)
    python3 -c 'import socket,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(120)' >"$tmp/port" &
    holder=$!; trap 'kill $holder 2>/dev/null; rm -rf "$tmp"' EXIT
    for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
    MASTER_PORT="$(cat "$tmp/port")" expect_error 2 MASTER_PORT \
      "$ftbench" run --scenarios ddp --world-size 2 --device cpu --out "$tmp/o" "${tiny[@]}" ;;
  dist_outside_launcher)
    # As one rank of torchrun (or SLURM/mpirun): rank 0 reports, rank 1 writes nothing.
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
    common=(MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=2 LOCAL_WORLD_SIZE=2)
    env "${common[@]}" RANK=1 LOCAL_RANK=1 "$ftbench" run --scenarios baseline,ddp --device cpu --out "$tmp/o1" "${tiny[@]}" \
      >"$tmp/out1" 2>"$tmp/err1" &
    r1=$!
    env "${common[@]}" RANK=0 LOCAL_RANK=0 "$ftbench" run --scenarios baseline,ddp --device cpu --out "$tmp/o" "${tiny[@]}" \
      >"$tmp/out" 2>"$tmp/err" || fail "rank 0 failed: $(tail -3 "$tmp/err")"
    wait $r1 || fail "rank 1 failed: $(tail -3 "$tmp/err1")"
    [ ! -e "$tmp/o1" ] || fail "rank 1 wrote a report"
    python3 - "$tmp/o/report.json" <<'PY' || fail "rank 0's report is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
rows = {x["scenario"]: x for x in r["results"]}
assert list(rows) == ["baseline", "ddp"], list(rows)   # the order asked for
assert rows["ddp"]["status"] == "ok" and rows["ddp"]["world_size"] == 2
assert rows["baseline"]["status"] == "ok" and rows["baseline"]["world_size"] == 1
PY
    ;;
  dist_torchrun)
    # The real torchrun (from the torch wheel in .venv) as the outside launcher:
    # its agent serves the store, ftbench's ranks join as clients. That takes
    # a torchrun of ftbench's own LibTorch (FTB_LIBTORCH_VERSION, from CMake):
    # another version's store may speak another protocol (Debian's 1.13 build
    # next to a 2.x .venv), and then ftbench must fail soon, naming the cause.
    torchrun="$fixtures/../../.venv/bin/torchrun"
    if [ ! -x "$torchrun" ]; then echo "skipped: no $torchrun (LibTorch not from the wheel)"; exit 0; fi
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
    theirs="$("$(dirname "$torchrun")/python" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null)" ||
      fail "cannot read the torch version of $torchrun"
    ours="${FTB_LIBTORCH_VERSION:?FTB_LIBTORCH_VERSION is set by tests/CMakeLists.txt}"
    if [ "$(echo "$theirs" | cut -d. -f1-2)" != "$(echo "$ours" | cut -d. -f1-2)" ]; then
      timeout 120 "$torchrun" --nnodes 1 --nproc-per-node 2 --master-addr 127.0.0.1 --master-port "$port" --no-python \
        "$ftbench" run --scenarios zero2 --device cpu --out "$tmp/o" "${tiny[@]}" >"$tmp/out" 2>"$tmp/err"
      rc=$?
      [ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "ftbench on LibTorch $ours under torch $theirs's torchrun: exit $rc"
      grep -q "torchrun's store does not answer" "$tmp/err" ||
        fail "the error does not name the store: $(grep -v ' step ' "$tmp/err" | tail -5)"
      echo "skipped: $torchrun is torch $theirs, this ftbench is built on LibTorch $ours (another store protocol; ftbench says so)"
      exit 0
    fi
    timeout 300 "$torchrun" --nnodes 1 --nproc-per-node 2 --master-addr 127.0.0.1 --master-port "$port" --no-python \
      "$ftbench" run --scenarios baseline,zero2 --device cpu --out "$tmp/o" "${tiny[@]}" >"$tmp/out" 2>"$tmp/err" ||
      fail "torchrun run failed: $(grep -v ' step ' "$tmp/err" | tail -5)"
    python3 - "$tmp/o/report.json" <<'PY' || fail "the report under torchrun is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
rows = {x["scenario"]: x for x in r["results"]}
assert list(rows) == ["baseline", "zero2"], list(rows)
assert rows["zero2"]["status"] == "ok" and rows["zero2"]["world_size"] == 2, rows["zero2"]
assert rows["zero2"]["distributed"]["backend"] == "gloo"
PY
    ;;
  compare_same_preset)
    # Two committed reports of one preset (synthetic-full on an H200: loop Adam, then foreach Adam).
    "$ftbench" compare "$results/gpu-2026-11-29/full-loop-adam/report.json" "$results/gpu-2026-11-29/full/report.json" \
      >"$tmp/out" 2>"$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
    grep -q '^| baseline ' "$tmp/out" || fail "no table row for baseline: $(head -20 "$tmp/out")"
    grep -q 'cannot tell' "$tmp/out" || fail "one run a side must be 'cannot tell'"
    grep -q '^Geometric mean of B/A samples/s over 9 scenario' "$tmp/out" || fail "no geometric mean over the 9 rows"
    grep -q 'adam (B: ' "$tmp/out" || fail "the key only B records (adam) is not listed" ;;
  compare_different_presets)
    expect_error 2 "preset ('smoke' vs 'mfu')" \
      "$ftbench" compare "$results/cpu-smoke-2026-11-30/report.json" "$results/cpu-mfu-2026-11-29/report.json"
    grep -q 'cpu-mfu-2026-11-29/report.json: config differs' "$tmp/err" || fail "the refused file is not named first"
    [ ! -s "$tmp/out" ] || fail "printed a comparison it refused" ;;
  compare_force)
    "$ftbench" compare --force "$results/cpu-smoke-2026-11-30/report.json" "$results/cpu-mfu-2026-11-29/report.json" \
      >"$tmp/out" 2>"$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
    grep -q "Configs differ (compared anyway: --force):.*preset ('smoke' vs 'mfu')" "$tmp/out" ||
      fail "the forced difference is not printed: $(head -12 "$tmp/out")"
    grep -q '^| baseline ' "$tmp/out" || fail "no baseline row" ;;
  compare_out)
    # Three reports; the folders hold compare.md (the printed text), compare.json and the chart spec.
    a="$results/cpu-smoke-2026-11-30/report.json"
    "$ftbench" compare "$a" "$a" "$a" --out "$tmp/c" >"$tmp/out" 2>"$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
    cmp -s "$tmp/out" "$tmp/c/compare.md" || fail "compare.md differs from stdout"
    python3 - "$tmp/c" <<'PY' || fail "compare.json or compare.vl.json is wrong"
import json, sys
d = sys.argv[1]
j = json.load(open(d + "/compare.json"))
assert j["schema"] == "ftbench.compare/2" and len(j["comparisons"]) == 2
rows = {s["scenario"]: s for s in j["comparisons"][0]["scenarios"]}
# One run a side (3 repeats each): ratio 1, but nothing estimates the run-to-run noise
m = rows["baseline"]["metrics"]["train_samples_per_s"]
assert m["verdict"] == "cannot tell" and m["ratio"]["median"] == 1.0, m
assert m["test"]["basis"] == "none" and m["ratio"]["coverage"] is None, m
assert rows["amp"]["compared"] is False and rows["amp"]["reference"]["status"] == "skipped"
g = j["comparisons"][0]["geometric_mean"]["steady_samples_per_s"]
assert g["ratio"]["median"] == 1.0 and len(g["scenarios"]) == 8, g
assert j["comparisons"][0]["environment"]["differences"] == []
spec = json.load(open(d + "/compare.vl.json"))
assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
assert len(spec["data"]["values"]) == 2 * 2 * 8
PY
    ;;
  compare_folder)
    "$ftbench" compare "$results/cpu-smoke-2026-11-30" "$results/cpu-smoke-2026-11-30/report.json" >"$tmp/out" 2>"$tmp/err" ||
      fail "a run folder is not read as its report.json: $(cat "$tmp/err")" ;;
  compare_missing_key)
    report_edit "$results/cpu-smoke-2026-11-30/report.json" "$tmp/r.json" 'del r["results"][3]["wall_time_s"]'
    expect_error 2 "$tmp/r.json: missing key 'results[3].wall_time_s'" \
      "$ftbench" compare "$results/cpu-smoke-2026-11-30/report.json" "$tmp/r.json" ;;
  compare_wrong_schema)
    report_edit "$results/cpu-smoke-2026-11-30/report.json" "$tmp/r.json" 'r["schema"] = "ftbench.report/7"'
    expect_error 2 "$tmp/r.json: schema: 'ftbench.report/7' is not a report version" \
      "$ftbench" compare "$tmp/r.json" "$results/cpu-smoke-2026-11-30/report.json" ;;
  compare_nan_time)
    report_edit "$results/cpu-smoke-2026-11-30/report.json" "$tmp/r.json" 'r["results"][3]["wall_time_s"] = None'
    expect_error 2 "$tmp/r.json: results[3].wall_time_s: is NaN" \
      "$ftbench" compare "$results/cpu-smoke-2026-11-30/report.json" "$tmp/r.json" ;;
  compare_negative_throughput)
    report_edit "$results/cpu-smoke-2026-11-30/report.json" "$tmp/r.json" 'r["results"][0]["samples"][2]["train_samples_per_s"] = -5'
    expect_error 2 "$tmp/r.json: results[0].samples[2].train_samples_per_s: is -5" \
      "$ftbench" compare "$results/cpu-smoke-2026-11-30/report.json" "$tmp/r.json" ;;
  compare_not_object)
    echo '[1, 2]' >"$tmp/r.json"
    expect_error 2 "$tmp/r.json: expected an object" "$ftbench" compare "$tmp/r.json" "$tmp/r.json"
    report_edit "$results/cpu-smoke-2026-11-30/report.json" "$tmp/s.json" 'r["results"][1] = "baseline"'
    expect_error 2 "$tmp/s.json: results[1]: expected an object, got string" \
      "$ftbench" compare "$results/cpu-smoke-2026-11-30/report.json" "$tmp/s.json" ;;
  compare_one_report)
    expect_error 2 "reports" "$ftbench" compare "$results/cpu-smoke-2026-11-30/report.json" ;;
  history_add_show)
    for n in 1 2 3 4; do fake_report "$tmp/r$n.json" $n 1.0; done
    "$ftbench" history add "$tmp/h.db" "$tmp"/r1.json "$tmp"/r2.json "$tmp"/r3.json >"$tmp/out" 2>"$tmp/err" || fail "add: $(cat "$tmp/err")"
    [ "$(grep -c '^added ' "$tmp/out")" = 3 ] || fail "want 3 added lines: $(cat "$tmp/out")"
    "$ftbench" history add "$tmp/h.db" "$tmp/r3.json" "$tmp/r4.json" >"$tmp/out" 2>"$tmp/err" || fail "add again: $(cat "$tmp/err")"
    grep -q 'r3.json is already in the history as run 3' "$tmp/out" || fail "re-adding r3 not idempotent: $(cat "$tmp/out")"
    grep -q ': 4 runs$' "$tmp/out" || fail "want 4 runs: $(cat "$tmp/out")"
    "$ftbench" history show "$tmp/h.db" --scenario baseline --out "$tmp/charts" >"$tmp/out" 2>"$tmp/err" || fail "show: $(cat "$tmp/err")"
    grep -q '^### baseline: train_samples_per_s' "$tmp/out" || fail "no baseline section: $(cat "$tmp/out")"
    [ "$(grep -c '^| 2026-11-0[2-5]T02:00:00Z | c00[1-4] ' "$tmp/out")" = 4 ] || fail "want 4 run rows: $(cat "$tmp/out")"
    grep -Eq '^\| 2026-11-05T02:00:00Z \| c004 +\| vm \\\| AMD EPYC +\| smoke +\| [0-9a-f]{16} +\| +3 \| +[0-9.]+ \[[0-9.]+, [0-9.]+; 75 %\] \| same ' "$tmp/out" ||
      fail "the 4th run is not judged 'same' with a median and its interval's coverage: $(cat "$tmp/out")"
    python3 - "$tmp/charts/trend_baseline.vl.json" <<'PY' || fail "trend chart is not a Vega-Lite spec with 4 points"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["$schema"].endswith("vega-lite/v5.json")
assert len(s["data"]["values"]) == 4, s["data"]["values"]
PY
    expect_error 2 '--scenario' "$ftbench" history show "$tmp/h.db" --scenario nope
    expect_error 2 'nope.db' "$ftbench" history show "$tmp/nope.db"
    expect_error 2 '--metric' "$ftbench" history show "$tmp/h.db" --metric speed ;;
  history_concurrent_adds)
    # Two `history add` processes write 10 reports each into one fresh file at once.
    for n in $(seq 1 20); do fake_report "$tmp/r$n.json" $n 1.0; done
    ( for n in $(seq 1 10); do "$ftbench" history add "$tmp/h.db" "$tmp/r$n.json" || exit 1; done ) >"$tmp/a.out" 2>&1 & a=$!
    ( for n in $(seq 11 20); do "$ftbench" history add "$tmp/h.db" "$tmp/r$n.json" || exit 1; done ) >"$tmp/b.out" 2>&1 & b=$!
    wait $a || fail "writer a failed: $(cat "$tmp/a.out")"
    wait $b || fail "writer b failed: $(cat "$tmp/b.out")"
    python3 - "$tmp/h.db" <<'PY' || fail "rows were lost"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
runs = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
rows = db.execute("SELECT COUNT(*) FROM repeats").fetchone()[0]
ok = db.execute("SELECT COUNT(DISTINCT scenario) FROM repeats").fetchone()[0]
assert runs == 20, runs
assert rows == 20 * 3 * ok, (rows, ok)
assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
PY
    ;;
  regress_slowdown)
    for n in 1 2 3 4 5; do fake_report "$tmp/r$n.json" $n 1.0; done
    "$ftbench" history add "$tmp/h.db" "$tmp"/r?.json >/dev/null || fail "add failed"
    fake_report "$tmp/slow.json" 9 0.85
    "$ftbench" regress --history "$tmp/h.db" --current "$tmp/slow.json" --out "$tmp/summary.md" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 1 ] || fail "exit $rc, want 1: $(cat "$tmp/out" "$tmp/err")"
    grep -Eq '^\| baseline +\| train_samples_per_s +\| .* \| \*\*REGRESSED\*\* +\|$' "$tmp/out" || fail "baseline not flagged: $(cat "$tmp/out")"
    grep -q '^\*\*Result: REGRESSED\*\*' "$tmp/out" || fail "no REGRESSED result line"
    cmp -s "$tmp/out" "$tmp/summary.md" || fail "--out differs from stdout"
    # Against one baseline run: no verdict is claimed (one run a side says nothing of the run-to-run noise).
    "$ftbench" regress --baseline "$tmp/r1.json" --current "$tmp/slow.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 0 ] || fail "one baseline run: exit $rc, want 0: $(cat "$tmp/out" "$tmp/err")"
    grep -q 'cannot tell from one run a side' "$tmp/out" || fail "the baseline run does not say why it cannot judge: $(cat "$tmp/out")"
    # Against five baseline runs: the run-to-run noise is estimated, the slowdown is a regression.
    "$ftbench" regress --baseline "$tmp"/r?.json --current "$tmp/slow.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 1 ] || fail "five baseline runs: exit $rc, want 1: $(cat "$tmp/out" "$tmp/err")"
    grep -q 'baseline runs .*r1.json, .*r5.json' "$tmp/out" || fail "the baseline runs are not named: $(cat "$tmp/out")" ;;
  regress_unchanged)
    for n in 1 2 3 4 5; do fake_report "$tmp/r$n.json" $n 1.0; done
    "$ftbench" history add "$tmp/h.db" "$tmp"/r?.json >/dev/null || fail "add failed"
    fake_report "$tmp/same.json" 9 1.0
    "$ftbench" regress --history "$tmp/h.db" --current "$tmp/same.json" --fail-on throughput,accuracy,memory >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 0 ] || fail "exit $rc, want 0: $(cat "$tmp/out" "$tmp/err")"
    grep -q '^\*\*Result: no regression.\*\*' "$tmp/out" || fail "no 'no regression' line: $(cat "$tmp/out")"
    # A scenario with no history is insufficient history, not an error.
    fake_report "$tmp/new.json" 9 1.0 'r["results"][0]["scenario"] = "brand_new"'
    "$ftbench" regress --history "$tmp/h.db" --current "$tmp/new.json" >"$tmp/out" 2>"$tmp/err" || fail "new scenario: $(cat "$tmp/err")"
    grep -Eq '^\| brand_new +\| train_samples_per_s +\| .* \| insufficient history +\|$' "$tmp/out" || fail "brand_new: $(cat "$tmp/out")" ;;
  regress_bad_input)
    for n in 1 2 3; do fake_report "$tmp/r$n.json" $n 1.0; done
    "$ftbench" history add "$tmp/h.db" "$tmp"/r?.json >/dev/null || fail "add failed"
    fake_report "$tmp/paper.json" 9 1.0 'r["config"]["preset"] = "paper"'
    expect_error 2 "$tmp/paper.json: preset 'paper' differs from the history's (smoke)" \
      "$ftbench" regress --history "$tmp/h.db" --current "$tmp/paper.json"
    fake_report "$tmp/lr.json" 9 1.0 'r["config"]["lr"] = 0.5'
    expect_error 2 "$tmp/lr.json: config differs" "$ftbench" regress --history "$tmp/h.db" --current "$tmp/lr.json"
    grep -q 'lr: 0.001 -> 0.5' "$tmp/err" || fail "the differing key is not named: $(cat "$tmp/err")"
    expect_error 2 "$tmp/lr.json: config differs from the baseline's" \
      "$ftbench" regress --baseline "$tmp/r1.json" --current "$tmp/lr.json"
    fake_report "$tmp/missing.json" 9 1.0 'del r["results"][0]["wall_time_s"]'
    expect_error 2 "$tmp/missing.json: missing key 'results[0].wall_time_s'" \
      "$ftbench" regress --history "$tmp/h.db" --current "$tmp/missing.json"
    fake_report "$tmp/nan.json" 9 1.0 'r["results"][0]["samples"][1]["wall_time_s"] = None'
    expect_error 2 "$tmp/nan.json: results[0].samples[1].wall_time_s: is NaN" \
      "$ftbench" regress --history "$tmp/h.db" --current "$tmp/nan.json"
    fake_report "$tmp/neg.json" 9 1.0 'r["results"][2]["samples"][0]["step_ms_median"] = -1'
    expect_error 2 "$tmp/neg.json: results[2].samples[0].step_ms_median: is -1" \
      "$ftbench" history add "$tmp/h.db" "$tmp/neg.json"
    expect_error 2 "$tmp/nope.db: no such history file" "$ftbench" regress --history "$tmp/nope.db" --current "$tmp/r1.json"
    cp "$tmp/r1.json" "$tmp/keep.json"
    expect_error 2 "$tmp/r1.json: not a history file" "$ftbench" regress --history "$tmp/r1.json" --current "$tmp/r2.json"
    expect_error 2 "$tmp/r1.json: not a history file" "$ftbench" history add "$tmp/r1.json" "$tmp/r2.json"
    cmp -s "$tmp/r1.json" "$tmp/keep.json" || fail "a report given as the history was changed"
    expect_error 2 '--history' "$ftbench" regress --current "$tmp/r1.json"
    expect_error 2 '--fail-on' "$ftbench" regress --history "$tmp/h.db" --current "$tmp/r1.json" --fail-on speed
    python3 - "$tmp/h.db" <<'PY' || fail "a refused report changed the history"
import sqlite3, sys
assert sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 3
PY
    ;;
  export_formats)
    for f in customBiggerIsBetter customSmallerIsBetter bmf; do
      "$ftbench" export --format $f "$smoke_report" >"$tmp/$f.json" 2>"$tmp/err" || fail "export $f: $(cat "$tmp/err")"
    done
    "$ftbench" export --format bmf "$smoke_report" --out "$tmp/bmf-out.json" || fail "export --out failed"
    cmp -s "$tmp/bmf.json" "$tmp/bmf-out.json" || fail "--out differs from stdout"
    python3 - "$tmp" <<'PY' || fail "exports do not parse as the formats"
import json, sys
d = sys.argv[1]
for name in ("customBiggerIsBetter", "customSmallerIsBetter"):
    a = json.load(open(f"{d}/{name}.json"))
    assert isinstance(a, list) and len(a) >= 2, a
    for e in a:
        assert set(e) == {"name", "unit", "value", "range", "extra"}, e
        assert isinstance(e["value"], (int, float)) and e["range"].startswith("± "), e
units = {e["unit"] for e in json.load(open(f"{d}/customSmallerIsBetter.json"))}
assert units == {"s", "ms"}, units
b = json.load(open(f"{d}/bmf.json"))
m = b["smoke/baseline"]["throughput"]
assert m["lower_value"] <= m["value"] <= m["upper_value"], m
PY
    expect_error 2 '--format' "$ftbench" export --format csv "$smoke_report" ;;
  calibrate_smoke)
    "$ftbench" calibrate --scenarios baseline --runs 2 --repeats 2 --out "$tmp/cal" "${tiny[@]}" >"$tmp/out" 2>"$tmp/err" ||
      fail "calibrate failed: $(tail -3 "$tmp/err")"
    for f in run-1/report.json run-2/report.json noise.json; do [ -s "$tmp/cal/$f" ] || fail "missing $f"; done
    grep -Eq '^\| baseline +\| train_samples_per_s +\| +2 \| +4 \|' "$tmp/out" || fail "no noise table row: $(cat "$tmp/out")"
    python3 - "$tmp/cal/noise.json" <<'PY' || fail "noise.json lacks the estimates"
import json, sys
n = json.load(open(sys.argv[1]))
assert n["schema"] == "ftbench.noise/2" and n["runs"] == 2 and n["preset"] == "smoke"
e = n["scenarios"]["baseline"]["train_samples_per_s"]
assert len(e["run_medians"]) == 2 and e["repeats"] == 4 and e["run_df"] == 1
for k in ("run_cv", "within_cv", "between_cv", "between_share", "min_detectable_change"): assert e[k] >= 0, k
assert e["min_detectable_change"] >= 0.03
aa = n["aa_check"]
assert aa["regress_nights"] == 0 and aa["compare_pairs"] == 0, aa  # 2 runs: too few to judge either rule
PY
    # The calibration is used: --noise with a run of the same config.
    "$ftbench" regress --baseline "$tmp/cal/run-1/report.json" --current "$tmp/cal/run-2/report.json" \
      --noise "$tmp/cal/noise.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" != 2 ] || fail "regress --noise refused its own calibration: $(cat "$tmp/err")"
    grep -q "Calibrated run-to-run noise from $tmp/cal/noise.json" "$tmp/out" || fail "--noise not used: $(cat "$tmp/out")"
    # Analysing runs made before: the same estimates, no new run.
    "$ftbench" calibrate --reports "$tmp/cal/run-1/report.json" "$tmp/cal/run-2/report.json" --out "$tmp/again" >"$tmp/out" 2>"$tmp/err" ||
      fail "calibrate --reports: $(cat "$tmp/err")"
    [ ! -e "$tmp/again/run-1" ] || fail "calibrate --reports ran again"
    python3 - "$tmp/cal/noise.json" "$tmp/again/noise.json" <<'PY' || fail "calibrate --reports estimates differ"
import json, sys
a, b = (json.load(open(p))["scenarios"] for p in sys.argv[1:])
assert a == b
PY
    expect_error 2 '--runs' "$ftbench" calibrate --runs 1 --out "$tmp/c1" ;;
  interrupt_sigint)
    # Ctrl-C during the second row of a single-process run (core/text/interrupt.h).
    interrupt_run INT 130 baseline,amp_bf16 "${interrupt_cfg[@]}" ;;
  interrupt_sigterm_ranks)
    # SIGTERM while the launcher runs a row on 2 ranks: they are stopped too.
    interrupt_run TERM 143 baseline,ddp "${interrupt_cfg[@]}" ;;
  storage_file_limit)
    # A file-size limit (ulimit -f, as a full disk) while writing a report,
    # a chart, a checkpoint or the history: one line naming the file, a
    # non-zero exit, the previous files intact and no temporary file left.
    "$ftbench" run --scenarios baseline --out "$tmp/o" "${tiny[@]}" >/dev/null 2>"$tmp/err" || fail "run failed: $(tail -3 "$tmp/err")"
    cp -a "$tmp/o" "$tmp/before"
    unchanged() {  # every file of the first run as it was, no temporary file anywhere
      (cd "$tmp/before" && find . -type f) | while read -r f; do
        cmp -s "$tmp/before/$f" "$tmp/o/$f" || fail "$1 changed $f"
      done || exit 1
      [ -z "$(find "$tmp/o" -name '*.tmp.*')" ] || fail "$1 left $(find "$tmp/o" -name '*.tmp.*')"
    }
    # Report, table, chart specs (ftbench report re-renders them): 4 KiB.
    (ulimit -f 4; expect_error 2 'write failed: File too large' "$ftbench" report "$tmp/o") || exit 1
    grep '^ftbench: ' "$tmp/err" | grep -qF "$tmp/o/" || fail "the error does not name the file: $(cat "$tmp/err")"
    unchanged "ftbench report under ulimit -f"
    # A checkpoint (the trainer row's best-val-acc model.safetensors): 64 KiB.
    (ulimit -f 64; expect_error 2 'write failed: File too large' "$ftbench" run --scenarios trainer --out "$tmp/o" "${tiny[@]}") || exit 1
    grep '^ftbench: ' "$tmp/err" | grep -q 'model.safetensors\|\.csv' || fail "the error does not name the checkpoint: $(cat "$tmp/err")"
    unchanged "a failed checkpoint"
    # The history (SQLite): the add is refused whole, the history stays readable.
    "$ftbench" history add "$tmp/h.db" "$smoke_report" >/dev/null 2>"$tmp/err" || fail "history add failed: $(cat "$tmp/err")"
    cp "$tmp/h.db" "$tmp/h.before"
    (ulimit -f 1; "$ftbench" history add "$tmp/h.db" "$tmp/o/report.json" >/dev/null 2>"$tmp/err"); rc=$?
    [ "$rc" != 0 ] || fail "history add succeeded under ulimit -f 1"
    [ "$(grep -c '^ftbench: ' "$tmp/err")" = 1 ] && grep '^ftbench: ' "$tmp/err" | grep -qF "$tmp/h.db" ||
      fail "want one error line naming $tmp/h.db, got: $(cat "$tmp/err")"
    "$ftbench" history show "$tmp/h.db" >"$tmp/out" 2>"$tmp/err" || fail "history unreadable after the failed add: $(cat "$tmp/err")"
    [ -z "$(find "$tmp" -name '*.tmp.*')" ] || fail "a temporary file was left: $(find "$tmp" -name '*.tmp.*')" ;;
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
  huge_safetensors_header)
    # A header claiming 10 GB in an 11 GB (sparse) file: refused before reading.
    model_copy; echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    rss_of "$tmp/rss0" "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" >/dev/null || fail "predict failed"
    python3 -c 'import struct,sys; open(sys.argv[1],"wb").write(struct.pack("<Q", 10 << 30))' "$tmp/m/model.safetensors"
    truncate -s 11G "$tmp/m/model.safetensors"
    start=$SECONDS
    expect_error 2 'model.safetensors: header length 10737418240 is out of bounds (1 byte to the 100 MiB limit)' \
      rss_of "$tmp/rss1" "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl"
    [ $((SECONDS - start)) -le 10 ] || fail "took $((SECONDS - start)) s"
    rss_within "$tmp/rss0" "$tmp/rss1" 64 ;;
  huge_csv_field)
    # A 100 MB field (sparse: NUL bytes) and a 20 MB quoted field of 1 MB lines.
    printf 'text,label\n"fine",1\n' >"$tmp/ok.csv"
    printf 'text,label\n"' >"$tmp/d.csv"; truncate -s 100M "$tmp/d.csv"
    python3 -c 'import sys; sys.stdout.write("text,label\n\"" + ("a" * 1048575 + "\n") * 20 + "\",1\n")' >"$tmp/lines.csv"
    expect_error 2 'ok.csv' rss_of "$tmp/rss0" "$ftbench" run --data "$tmp/ok.csv" --out "$tmp/o"
    start=$SECONDS
    expect_error 2 'd.csv: line 2: a line or field longer than the 16 MiB limit' rss_of "$tmp/rss1" "$ftbench" run --data "$tmp/d.csv" --out "$tmp/o"
    rss_within "$tmp/rss0" "$tmp/rss1" 96
    expect_error 2 'lines.csv: line 18: a line or field longer than the 16 MiB limit' "$ftbench" run --data "$tmp/lines.csv" --out "$tmp/o"
    [ $((SECONDS - start)) -le 20 ] || fail "took $((SECONDS - start)) s" ;;
  huge_archive)
    # Archive bombs, built on the fly: 251,000 members (128 MB of tar
    # headers, gzip'ed to a few hundred KB), members declaring 1 GiB each (a
    # sparse tar), and a review declaring 3 MiB. Each ends from the headers.
    python3 - "$tmp" <<'PY'
import sys, tarfile, zlib
d = sys.argv[1]
def header(name, size):
    t = tarfile.TarInfo(name); t.size = size
    return t.tobuf(tarfile.GNU_FORMAT)
c = zlib.compressobj(1, zlib.DEFLATED, 31)
with open(d + "/members.tar.gz", "wb") as f:
    chunk = header("aclImdb/train/unsup/0_0.txt", 0) * 1000
    for _ in range(251): f.write(c.compress(chunk))
    f.write(c.compress(b"\0" * 1024) + c.flush())
with open(d + "/size.tar", "wb") as f:
    for i in range(3):
        f.write(header("aclImdb/train/unsup/%d_0.txt" % i, 1 << 30)); f.seek(1 << 30, 1)
    f.write(b"\0" * 1024)
with open(d + "/review.tar", "wb") as f:
    f.write(header("aclImdb/train/pos/0_9.txt", 3 << 20) + b"\0" * 1024)
PY
    start=$SECONDS
    expect_error 2 'members.tar.gz: more than 250000 members' "$ftbench" run --data "$tmp/members.tar.gz" --out "$tmp/o"
    expect_error 2 'size.tar: expands to more than the 2 GiB limit (at member aclImdb/train/unsup/2_0.txt)' \
      "$ftbench" run --data "$tmp/size.tar" --out "$tmp/o"
    expect_error 2 'review.tar: member aclImdb/train/pos/0_9.txt is larger than the 1 MiB a review may hold' \
      "$ftbench" run --data "$tmp/review.tar" --out "$tmp/o"
    [ $((SECONDS - start)) -le 30 ] || fail "took $((SECONDS - start)) s" ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
