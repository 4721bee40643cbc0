#!/usr/bin/env bash
# `ftbench run` with ranks: a world of two, a rank killed, a busy port, ranks outside the launcher, torchrun.
#   tests/cli/run_ranks.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case "$case_name" in
  dist_world2_report)
    "$ftbench" run --scenarios baseline,ddp,zero2 --world-size 2 --device cpu --out "$tmp/o" "${tiny[@]}" >"$tmp/out" 2>"$tmp/err" ||
      fail "run failed: $(tail -3 "$tmp/err")"
    python3 - "$tmp/o/report.json" "$(hostname)" <<'PY' || fail "distributed rows are incomplete"
import json, sys
r = json.load(open(sys.argv[1]))
here = sys.argv[2]
rows = {x["scenario"]: x for x in r["results"]}
assert list(rows) == ["baseline", "ddp", "zero2"], list(rows)
assert rows["baseline"]["world_size"] == 1 and rows["baseline"]["distributed"] is None
for name in ("ddp", "zero2"):
    x = rows[name]
    assert x["status"] == "ok", x["reason"]
    assert x["world_size"] == 2 and x["threads"] >= 1
    d = x["distributed"]
    assert d["backend"] == "gloo" and d["strategy"] == name, d
    # Who started the ranks, on how many machines (fails on a report without
    # them, or one that calls ftbench's launcher a plain environment).
    assert d["launcher"] == "ftbench" and d["nodes"] == 1 and d["hosts"] == [here, here], d
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
  dist_accumulate)
    # accumulate=2 (issue 28): a single-process row and a row of ranks train
    # with it, the report's config and table say so, and a step is an
    # optimizer step of 2 micro-batches (samples = 2 x batch x ranks a step).
    # Fails on a build without the key (exit 2), rows that ignore it in the
    # loader (half the samples), or a table that calls the micro-batch the batch.
    "$ftbench" run --scenarios baseline,ddp,cuda_graph --world-size 2 --device cpu --out "$tmp/o" "${tiny[@]}" \
      batch_size=16 accumulate=2 >"$tmp/out" 2>"$tmp/err" || fail "run failed: $(tail -3 "$tmp/err")"
    python3 - "$tmp/o/report.json" <<'PY' || fail "the accumulate=2 report is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["config"]["accumulate"] == 2 and r["config"]["batch_size"] == 16, r["config"]
rows = {x["scenario"]: x for x in r["results"]}
train = r["config"]["workload"]["train_examples"]
for name, ranks in (("baseline", 1), ("ddp", 2)):
    x = rows[name]
    assert x["status"] == "ok", (name, x["reason"])
    step = 2 * 16 * ranks  # an optimizer step's samples over all ranks
    steps = min(3, train // step)  # max_steps=3; drop_last
    assert steps >= 2 and x["throughput"]["train_samples"] == steps * step, (name, train, x["throughput"])
# On a CPU the CUDA-graph row is skipped for want of CUDA (its accumulate
# reason is unit-tested: test_accumulate); skipped, never run or dropped.
assert rows["cuda_graph"]["status"] == "skipped" and rows["cuda_graph"]["reason"], rows["cuda_graph"]
PY
    grep -q "micro-batch 16 per rank, accumulate 2" "$tmp/o/table.md" || fail "table.md does not say accumulate" ;;
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
    python3 - "$tmp/o/report.json" "$(hostname)" <<'PY' || fail "rank 0's report is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
here = sys.argv[2]
rows = {x["scenario"]: x for x in r["results"]}
assert list(rows) == ["baseline", "ddp"], list(rows)   # the order asked for
assert rows["ddp"]["status"] == "ok" and rows["ddp"]["world_size"] == 2
# A job script's own RANK/WORLD_SIZE: "environment" (the old code said torchrun).
d = rows["ddp"]["distributed"]
assert d["launcher"] == "environment" and d["nodes"] == 1 and d["hosts"] == [here, here], d
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
    [ -x "$torchrun" ] || skip "no $torchrun (LibTorch not from the wheel)"
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
      skip "$torchrun is torch $theirs, this ftbench is built on LibTorch $ours (another store protocol; ftbench says so)"
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
# torchrun's agent told apart from a plain environment (TORCHELASTIC_RUN_ID).
d = rows["zero2"]["distributed"]
assert d["launcher"] == "torchrun" and d["nodes"] == 1 and len(d["hosts"]) == 2, d
PY
    ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
