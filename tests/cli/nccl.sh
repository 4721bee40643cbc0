#!/usr/bin/env bash
# NCCL's error handling as ftbench sets it (docs/distributed.md, back ends):
# TORCH_NCCL_ASYNC_ERROR_HANDLING=3 (SkipCleanUp), the process group's
# timeout = dist_timeout_s and TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC=1000 (the
# watchdog waits 4 x that for its flight-recorder dump before it aborts), so a
# hung peer's partner is ended by PyTorch's watchdog after dist_timeout_s +
# 4 x the dump wait, and ftbench's launcher, seeing that rank's
# process die, ends the row as failed naming it; the report records each
# variable, its value and who set it. Expected, and not yet run on NCCL: no
# session so far had two GPUs (docs/distributed.md says so).
#   tests/cli/nccl.sh FTBENCH FIXTURES CASE
# Needs two CUDA devices (one per rank) and an ftbench whose ddp row can use
# them (CUDA and NCCL built in); elsewhere it skips (77).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The variables the report records: the user's, if any, would win over ftbench's.
no_user_modes=(env -u TORCH_NCCL_ASYNC_ERROR_HANDLING -u NCCL_ASYNC_ERROR_HANDLING -u TORCH_NCCL_BLOCKING_WAIT
               -u NCCL_BLOCKING_WAIT -u TORCH_NCCL_ENABLE_MONITORING -u TORCH_NCCL_DUMP_ON_TIMEOUT
               -u TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC)
timeout_s=20
# The bound follows the dump wait the first run's report records: timeout +
# 4 x dump wait + 30 s (the watchdog's poll, SIGABRT, the launcher's stop of
# the other rank).
abort_bound_s() { echo $(( $1 + (4 * $2 + 999) / 1000 + 30 )); }

case "$case_name" in
  nccl_hung_peer)
    # How it fails: with ASYNC_ERROR_HANDLING=2 (the old default here) rank 0
    # stays alive with aborted communicators and the run waits past the
    # bound; with BLOCKING_WAIT=1 set by ftbench (the old default) or a report
    # without distributed.error_handling's setters, the first part fails.
    gpus="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')"
    [ "${gpus:-0}" -ge 2 ] || skip "needs two CUDA devices, found ${gpus:-0}"
    "${no_user_modes[@]}" "$ftbench" run --scenarios ddp --world-size 2 --device cuda --out "$tmp/ok" "${tiny[@]}" \
      >"$tmp/out" 2>"$tmp/err"
    rc=$?
    # An ftbench without CUDA refuses --device cuda (exit 2); one without NCCL skips the row.
    [ "$rc" = 2 ] && grep -q '^ftbench: --device' "$tmp/err" && skip "this ftbench cannot use CUDA: $(tail -1 "$tmp/err")"
    [ "$rc" = 0 ] || fail "a 2-GPU ddp run failed: $(tail -3 "$tmp/err")"
    python3 - "$tmp/ok/report.json" <<'PY'
import json, sys
x = json.load(open(sys.argv[1]))["results"][0]
if x["status"] == "skipped":
    print("skipped [nccl_hung_peer]: the ddp row cannot run on CUDA here:", x["reason"])
    sys.exit(77)
assert x["status"] == "ok", (x["status"], x["reason"])
d = x["distributed"]
assert d["backend"] == "nccl", d["backend"]
e = d["error_handling"]
assert e["TORCH_NCCL_ASYNC_ERROR_HANDLING"] == {"value": "3", "set_by": "ftbench"}, e
assert e["TORCH_NCCL_BLOCKING_WAIT"] == {"value": "", "set_by": "unset"}, e  # never set by ftbench
assert e["TORCH_NCCL_ENABLE_MONITORING"]["set_by"] == "unset", e
assert e["TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC"] == {"value": "1000", "set_by": "ftbench"}, e
PY
    rc=$?
    [ "$rc" = 77 ] && exit 77
    [ "$rc" = 0 ] || fail "the NCCL row's report lacks its error-handling modes"
    dump_ms=$(python3 -c 'import json,sys; x=json.load(open(sys.argv[1]))["results"][0]
print(x["distributed"]["error_handling"]["TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC"]["value"])' "$tmp/ok/report.json")
    bound_s=$(abort_bound_s "$timeout_s" "$dump_ms")
    # Rank 1 stopped (SIGSTOP: alive, silent) mid-epoch: rank 0's next
    # collective passes dist_timeout_s; the watchdog ends rank 0's process.
    "${no_user_modes[@]}" "$ftbench" run --scenarios ddp --world-size 2 --device cuda --out "$tmp/o" epochs=50 \
      synthetic_count=20000 prefetch=1 dist_timeout_s=$timeout_s >"$tmp/out" 2>"$tmp/err" &
    parent=$!
    for _ in $(seq 600); do grep -q "\[ddp\] epoch 1/50 step" "$tmp/err" 2>/dev/null && break; sleep 0.2; done
    grep -q "\[ddp\] epoch 1/50 step" "$tmp/err" || { kill -9 $parent; fail "training never started: $(tail -3 "$tmp/err")"; }
    # The launcher's children are the ranks; rank 1 is the one whose RANK is 1.
    victim=""
    for pid in $(pgrep -P $parent); do
      tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx 'RANK=1' && victim=$pid
    done
    [ -n "$victim" ] || { kill -9 $parent; fail "no rank 1 among the launcher's children: $(pgrep -P $parent | tr '\n' ' ')"; }
    kill -STOP "$victim"; stopped_at=$SECONDS
    wait $parent; rc=$?; took=$((SECONDS - stopped_at))
    [ "$rc" != 0 ] || fail "exit 0 after a rank hung"
    [ "$took" -le "$bound_s" ] || fail "took ${took}s to stop (dist_timeout_s=$timeout_s, bound ${bound_s}s)"
    echo "stopped ${took}s after rank 1 hung (bound ${bound_s}s)"
    python3 - "$tmp/o/report.json" <<'PY' || fail "the row did not fail naming rank 0: $(grep -v ' step ' "$tmp/err" | tail -5)"
import json, sys
x = json.load(open(sys.argv[1]))["results"][0]
assert x["status"] == "failed", x["status"]
assert "rank 0" in x["reason"], x["reason"]  # the rank whose collective timed out, ended by the watchdog
PY
    ;;
  nccl_abort_bound)
    # Runs anywhere: the bound the hung-peer case holds a run to, from the
    # dump wait ftbench sets (PyTorch's default 15000 ms would need 20+60+30).
    [ "$(abort_bound_s 20 1000)" = 54 ] || fail "bound for 1000 ms: $(abort_bound_s 20 1000)"
    [ "$(abort_bound_s 20 15000)" = 110 ] || fail "bound for 15000 ms: $(abort_bound_s 20 15000)"
    grep -q 'TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC", nullptr, kNcclDumpWaitMs' "$fixtures/../../scenarios/parallel/rank_env.cpp" ||
      fail "rank_env.cpp no longer sets the dump wait this bound assumes"
    ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
