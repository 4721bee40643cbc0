#!/usr/bin/env bash
# `ftbench run`: flags, keys, data and model inputs, output folders, the report it writes, interruption.
#   tests/cli/run.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# interrupt_*: a tiny model, 200 steps a row (about a second here when the
# machine is idle): long enough to be signalled mid-row, short for CI.
interrupt_cfg=(epochs=1 synthetic_count=3000 vocab_size=300 dim=32 n_layers=1 n_heads=2 hidden_dim=64 max_length=48
  batch_size=8 max_steps=200 eval_max_batches=1 prefetch=1 threads=1)
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
    "$ftbench" run --model "$tmp/m" --scenarios baseline --out "$tmp/o" epochs=1 max_steps=2 eval_max_batches=1 repeats=1 \
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
        skip "running as root, and cannot run ftbench as nobody"
      fi
    fi
    ! "${as[@]}" touch "$tmp/ro/probe" 2>/dev/null || skip "$tmp/ro is writable despite mode 555"
    expect_error 2 "--out: $tmp/ro/o: cannot create directory: Permission denied" \
      "${as[@]}" "$ftbench" run --scenarios baseline --out "$tmp/ro/o"
    expect_error 2 "--out: $tmp/ro: not writable: Permission denied" \
      "${as[@]}" "$ftbench" run --scenarios baseline --out "$tmp/ro"
    ! grep -q '^data: ' "$tmp/err" || fail "the workload was built before --out was checked" ;;
  zero_train_steps)
    # A row that would not train one step is bad input, not "ok" with loss 0.
    expect_error 2 'batch_size: 100000 is larger than the 2100 training examples (split 2100/300/600); no training step would run' \
      "$ftbench" run --scenarios baseline --out "$tmp/o" threads=1 batch_size=100000
    expect_error 2 'batch_size: 32 is larger than the 7 training examples (split 7/1/2)' \
      "$ftbench" run --scenarios baseline --out "$tmp/o" threads=1 synthetic_count=10
    [ ! -e "$tmp/o/report.json" ] || fail "a report was written"
    # 35 training examples: one process trains a batch of 32, two ranks of 17 cannot.
    expect_error 2 'batch_size: 32 is larger than the 17 training examples each of 2 ranks gets (split 35/5/10)' \
      "$ftbench" run --scenarios baseline,ddp --world-size 2 --device cpu --out "$tmp/o" threads=1 synthetic_count=50
    "$ftbench" run --scenarios baseline --world-size 2 --out "$tmp/o" threads=1 synthetic_count=50 epochs=1 \
      eval_max_batches=1 repeats=1 >"$tmp/out" 2>"$tmp/err" || fail "a single-process row with world_size 2 did not run: $(tail -3 "$tmp/err")"
    grep -q '^| baseline .* 1.00x ' "$tmp/out" || fail "baseline did not train: $(cat "$tmp/out")" ;;
  model_load_report)
    # A masked-LM checkpoint (distilbert-base-uncased's layout: "distilbert."
    # names, vocab_* head, no classifier): the run says, as from_pretrained
    # does, which tensors are new and which unused, and records both.
    mkdir "$tmp/m"; cp "$fixtures/golden_model/config.json" "$tmp/m/"
    safetensors_edit "$fixtures/golden_model/model.safetensors" "$tmp/m/model.safetensors" '(pre_)?classifier\.' \
      vocab_transform.weight=32x32 vocab_projector.weight=101x32 vocab_projector.bias=101
    { printf '[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n'; for c in {a..z}; do printf '%s\n##%s\n' $c $c; done; } >"$tmp/m/vocab.txt"
    "$ftbench" run --model "$tmp/m" --scenarios baseline --out "$tmp/o" epochs=1 max_steps=2 eval_max_batches=1 repeats=1 \
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
  run_writes_report)
    "$ftbench" run --scenarios baseline --out "$tmp/o" "${tiny[@]}" >"$tmp/out" 2>"$tmp/err" || fail "run failed: $(tail -3 "$tmp/err")"
    # The suite's progress after each row (issue 27): every repeat done, nothing left.
    grep -Eq '^\[suite\] 1 of 1 row repeats done in [0-9]+:[0-9]{2}$' "$tmp/err" || fail "no suite progress line: $(grep suite "$tmp/err")"
    for f in report.json table.md steps.csv index.html charts/speedup.vl.json charts/speedup.svg charts/speedup.png; do
      [ -s "$tmp/o/$f" ] || fail "missing $f"
    done
    python3 - "$tmp/o/report.json" <<'PY' || fail "report.json misses contract keys"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "ftbench.report/5"
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
  interrupt_sigint)
    # Ctrl-C during the second row of a single-process run (core/base/interrupt.h).
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
