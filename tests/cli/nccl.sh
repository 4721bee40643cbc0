#!/usr/bin/env bash
# NCCL's error handling as ftbench sets it (docs/distributed.md, back ends):
# a hung peer ends the row as failed within dist_timeout_s, the process is not
# torn down by the watchdog, and the report records the modes.
#   tests/cli/nccl.sh FTBENCH FIXTURES CASE
# Needs two CUDA devices (one per rank); elsewhere it skips (77).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case "$case_name" in
  nccl_hung_peer)
    # How it fails: without TORCH_NCCL_BLOCKING_WAIT / ASYNC_ERROR_HANDLING=2
    # rank 0's watchdog aborts it (SIGABRT, no rank-0 reason, "signal 6" in
    # the reason) or it waits past the bound; a report without
    # distributed.error_handling fails the first part.
    gpus="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')"
    [ "${gpus:-0}" -ge 2 ] || skip "needs two CUDA devices, found ${gpus:-0}"
    "$ftbench" run --scenarios ddp --world-size 2 --device cuda --out "$tmp/ok" "${tiny[@]}" >"$tmp/out" 2>"$tmp/err" ||
      fail "a 2-GPU ddp run failed: $(tail -3 "$tmp/err")"
    python3 - "$tmp/ok/report.json" <<'PY' || fail "the NCCL row's report lacks its error-handling modes"
import json, sys
d = json.load(open(sys.argv[1]))["results"][0]["distributed"]
assert d["backend"] == "nccl", d["backend"]
e = d["error_handling"]
assert e["TORCH_NCCL_BLOCKING_WAIT"] == "1" and e["TORCH_NCCL_ASYNC_ERROR_HANDLING"] == "2", e
assert e["TORCH_NCCL_ENABLE_MONITORING"] == "0", e
PY
    # Rank 1 stopped (SIGSTOP: alive, silent) mid-epoch: rank 0's next
    # collective times out after dist_timeout_s=20.
    "$ftbench" run --scenarios ddp --world-size 2 --device cuda --out "$tmp/o" epochs=50 synthetic_count=20000 \
      prefetch=1 dist_timeout_s=20 >"$tmp/out" 2>"$tmp/err" &
    parent=$!
    for _ in $(seq 600); do grep -q "\[ddp\] epoch 1/50 step" "$tmp/err" 2>/dev/null && break; sleep 0.2; done
    grep -q "\[ddp\] epoch 1/50 step" "$tmp/err" || { kill -9 $parent; fail "training never started: $(tail -3 "$tmp/err")"; }
    victim="$(pgrep -P $parent | tail -n 1)"
    [ -n "$victim" ] || { kill -9 $parent; fail "no rank processes under the launcher"; }
    kill -STOP "$victim"; stopped_at=$SECONDS
    wait $parent; rc=$?; took=$((SECONDS - stopped_at))
    [ "$rc" != 0 ] || fail "exit 0 after a rank hung"
    [ "$took" -le 50 ] || fail "took ${took}s to stop (dist_timeout_s=20)"
    echo "stopped ${took}s after rank 1 hung"
    python3 - "$tmp/o/report.json" <<'PY' || fail "the row did not fail as a timeout of rank 0: $(grep -v ' step ' "$tmp/err" | tail -5)"
import json, sys
x = json.load(open(sys.argv[1]))["results"][0]
assert x["status"] == "failed", x["status"]
assert "rank 0" in x["reason"] and "signal 6" not in x["reason"], x["reason"]
PY
    ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
