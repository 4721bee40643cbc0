#!/usr/bin/env bash
# The quick GPU check: what a short, rare GPU window must find out first, in
# under 8 minutes from a cold machine (the lent H200: torch 2.11+cu130 in its
# python3, no internet, none of our Debian dev packages). Uses the prebuilt
# binaries of .gpu-carry/ (tools/gpu_pack.sh, on the Debian box) and runs:
#
#   tests  the CUDA tests of build/tests/ftb_tests (capture guard, graph replay
#          equals eager, per-bucket graphs, fp16 loss scaling on the device,
#          the attention backend under a graph row, the scaler);
#   run    ftbench run at the paper's shape (distilbert-base, batch 12 x 512
#          tokens; --preset synthetic-full: the paper preset needs the IMDB
#          archive) on a synthetic corpus, one repeat, one epoch of 200 steps:
#          baseline (what speed-ups are against), amp_bf16, cuda_graph,
#          cuda_graph_bf16, cuda_graph_fp16, fastest;
#   profile (in what the budget leaves) ftbench run --profile of baseline and cuda_graph on a smaller
#          corpus (issue 29): each row's 5 profiled steps under Kineto with
#          CUPTI, untimed; timings.txt gets each row's device idle share of
#          the profiled steps (what a CUDA graph removes: launch gaps).
#
# Each stage has its own time limit and a failing stage does not stop the next;
# all stages together stay within FTB_GPU_QUICK_BUDGET_S. The time of each stage
# (and of each run row) goes to OUT_DIR/timings.txt as it ends, so the next
# window can be planned from this one. At the end OUT_DIR holds three files, as
# the device tool brings back at most 8 files, 2 folders deep:
#   timings.txt  stage, seconds, status (then run.<row>: wall seconds, step ms)
#   gpu_quick.log  what was printed (stage results, test summary, the run's table)
#   gpu_quick.tar.gz  everything: logs/, the run's report folder (report.json,
#                  table.md, steps.csv, run.log ...), env.txt, nvidia-smi.txt
#
#   tools/gpu_quick.sh OUT_DIR [key=value ...]   (overrides go to ftbench run)
#
# Exit: 0 every stage passed, 1 a stage failed, 2 nothing run (usage, OUT_DIR
# not a writable folder, no prebuilt binaries, or no CUDA here: one line on
# stderr and nothing written).
# Environment: PYTHON (python3), FTB_GPU_CARRY (.gpu-carry),
#   FTB_GPU_QUICK_BUDGET_S (440), FTB_GPU_QUICK_TESTS_S (150), FTB_GPU_QUICK_RUN_S (300),
#   FTB_GPU_QUICK_PROFILE_S (80; 0 = no profile stage),
#   FTB_GPU_QUICK_TESTS (doctest -tc filter), FTB_GPU_QUICK_SCENARIOS,
#   FTB_GPU_QUICK_KEEP=1 (keep the unpacked folder beside the archive),
#   FTB_GPU_QUICK_FORCE_NO_CUDA=1 (behave as on a machine without CUDA: tests).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
t_start=$(date +%s.%N)
usage() { printf 'gpu_quick: %s\n' "$*" >&2; exit 2; }
# pack_fits PACK_TORCH MACHINE_TORCH DRIVER_CUDA: 0 when the pack can run here,
# else one line saying why and what to do (on stderr), 1. Unknown values
# (an old pack without TORCH, an nvidia-smi without "CUDA Version") pass.
pack_fits() {
  local pack="$1" here="$2" driver="$3" cu major
  if [ -n "$pack" ] && [ -n "$here" ] && [ "$pack" != "$here" ]; then
    printf 'gpu_quick: the pack was built against torch %s, this python has torch %s: make the pack against %s (tools/setup.sh with tools/requirements-torch.txt pinning it, then tools/gpu_pack.sh), or run with PYTHON naming a python that has %s\n' \
      "$pack" "$here" "$here" "$pack" >&2
    return 1
  fi
  cu="${pack##*+cu}"
  case "$pack" in *+cu[0-9]*) ;; *) return 0 ;; esac
  major=$((10#${cu} / 10))  # 130 -> 13, 126 -> 12, 128 -> 12
  if [ -n "$driver" ] && [ "${driver%%.*}" -lt "$major" ]; then
    printf 'gpu_quick: the pack is torch %s (CUDA %s.%s) but this driver supports CUDA %s: make the pack against a +cu%s%s torch wheel (docs/contributing.md, "A pack for another CUDA"), or use a machine whose driver supports CUDA %s\n' \
      "$pack" "$major" "${cu: -1}" "$driver" "${driver%%.*}" "x" "$major" >&2
    return 1
  fi
  return 0
}

# --- arguments and OUT_DIR: checked before anything is written ---
[ $# -ge 1 ] && [ -n "$1" ] || usage "usage: tools/gpu_quick.sh OUT_DIR [key=value ...] (OUT_DIR: the folder for reports, logs and timings.txt)"
case "$1" in
  -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) usage "unknown option $1 (usage: tools/gpu_quick.sh OUT_DIR [key=value ...])" ;;
esac
out="$1"; shift
if [ -e "$out" ] || [ -L "$out" ]; then
  [ -d "$out" ] || usage "OUT_DIR $out is not a folder"
  { [ -w "$out" ] && [ -x "$out" ]; } || usage "OUT_DIR $out is not writable"
else
  up="$(dirname "$out")"
  while [ ! -e "$up" ] && [ "$up" != "$(dirname "$up")" ]; do up="$(dirname "$up")"; done
  [ -d "$up" ] || usage "OUT_DIR $out cannot be made: $up is not a folder"
  { [ -w "$up" ] && [ -x "$up" ]; } || usage "OUT_DIR $out cannot be made: $up is not writable"
fi

# --- CUDA here? (no: one line, exit 2, nothing written) ---
python="${PYTHON:-python3}"
no_cuda() { usage "no CUDA on this machine ($1): nothing run"; }
[ "${FTB_GPU_QUICK_FORCE_NO_CUDA:-0}" = 1 ] && no_cuda "FTB_GPU_QUICK_FORCE_NO_CUDA=1"
command -v nvidia-smi >/dev/null 2>&1 || no_cuda "no nvidia-smi"
timeout 60 nvidia-smi -L >/dev/null 2>&1 || no_cuda "nvidia-smi -L fails"
machine_torch="$(PYTHONDONTWRITEBYTECODE=1 timeout 120 "$python" -c '
import sys
try:
    import torch
except Exception:
    sys.exit(3)
print(torch.__version__)
sys.exit(0 if torch.cuda.is_available() and torch.cuda.device_count() > 0 else 4)' 2>/dev/null)"
case $? in
  0) ;;
  3) no_cuda "$python cannot import torch" ;;
  124) no_cuda "$python -c 'import torch' took over 120 s" ;;
  *) no_cuda "torch.cuda.is_available() is false in $python" ;;
esac

carry="${FTB_GPU_CARRY:-$root/.gpu-carry}"
ftbench="$carry/build/ftbench" ftb_tests="$carry/build/tests/ftb_tests"
[ -x "$ftbench" ] && [ -x "$ftb_tests" ] ||
  usage "no prebuilt binaries in $carry (run tools/gpu_pack.sh on the Debian box and carry .gpu-carry)"

# --- does the pack fit this machine? (no: one line, exit 2, in seconds) ---
# The carried binaries load this machine's LibTorch (tools/gpu_env.sh): its
# version must be the pack's, and a +cuXXX wheel needs a driver that supports
# CUDA XX (a CUDA 12.x driver cannot run a cu130 pack; it fails minutes later).
pack_torch="$(cat "$carry/TORCH" 2>/dev/null)"
driver_cuda="$(timeout 30 nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | head -n 1)"
pack_fits "$pack_torch" "$machine_torch" "$driver_cuda" || exit 2

# --- from here on everything goes under OUT_DIR ---
mkdir -p "$out" 2>/dev/null || usage "OUT_DIR $out cannot be made"
out="$(cd "$out" && pwd)"
work="$out/gpu_quick"
rm -rf "$work" "$out/gpu_quick.tar.gz"* 2>/dev/null
mkdir -p "$work/logs" "$work/tmp" 2>/dev/null || usage "OUT_DIR $out is not writable"
timings="$out/timings.txt" log_file="$out/gpu_quick.log"
: >"$log_file"
log() { printf '[gpu_quick %s] %s\n' "$(date -u +%T)" "$*" | tee -a "$log_file" >&2; }
show() { tee -a "$log_file" >&2; }  # a command's lines, to the console and the log
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}'; }
record() { printf '%-24s %8s  %s\n' "$1" "$2" "$3" >>"$timings"; }
{
  echo "# tools/gpu_quick.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n), pack $(cat "$carry/COMMIT" 2>/dev/null || echo '?')"
  printf '%-24s %8s  %s\n' "# stage" "seconds" "status"
} >"$timings"
record probe "$(since "$t_start")" ok
log "CUDA here; results in $out"

budget="${FTB_GPU_QUICK_BUDGET_S:-440}"
reserve=20  # the pack at the end
failed=() child=""
export TMPDIR="$work/tmp"

# limited DIR STDOUT STDERR CMD...: runs CMD in DIR with the carried binaries'
# loader path, under the stage's time limit, in the background so that a
# TERM to this script is handled at once (the trap below).
limited() {
  local dir="$1" o="$2" e="$3"
  shift 3
  if [ "$o" = "$e" ]; then
    (cd "$dir" && exec timeout -k 10 "$STAGE_LIMIT" env LD_LIBRARY_PATH="$ldpath" "$@") >"$o" 2>&1 &
  else
    (cd "$dir" && exec timeout -k 10 "$STAGE_LIMIT" env LD_LIBRARY_PATH="$ldpath" "$@") >"$o" 2>"$e" &
  fi
  child=$!
  wait "$child"
  local rc=$?
  child=""
  return "$rc"
}

stage() {  # stage NAME LIMIT_S: runs stage_NAME with the limit clamped to the budget left
  local name="$1" limit="$2" left t0 rc
  left=$(awk -v a="$t_start" -v b="$(date +%s.%N)" -v budget="$budget" -v r="$reserve" 'BEGIN {printf "%d", budget - r - (b - a)}')
  if [ "$left" -lt 10 ]; then
    log "stage $name: skipped, the ${budget} s budget is spent"
    record "$name" 0 "skipped (budget spent)"; failed+=("$name"); return
  fi
  [ "$limit" -le "$left" ] || limit="$left"
  log "stage $name (at most ${limit} s)"
  STAGE_LIMIT="$limit"
  t0=$(date +%s.%N) stage_t0=$t0
  "stage_$name"
  rc=$?
  local secs status=ok
  secs=$(since "$t0")
  case $rc in 0) ;; 124|137) status="timed out after ${limit} s" ;; *) status="failed (rc $rc)" ;; esac
  [ "$rc" = 0 ] || failed+=("$name")
  record "$name" "$secs" "$status"
  if [ -f "$work/rows.txt" ]; then cat "$work/rows.txt" >>"$timings"; rm -f "$work/rows.txt"; fi
  log "stage $name: $status, ${secs} s"
}

stage_setup() {
  . "$root/tools/gpu_env.sh"
  ftb_gpu_unpack_libs "$carry" || { log "cannot unpack $carry/lib/*.xz"; return 1; }
  ldpath="$(ftb_gpu_ld_path "$python" "$carry")" || { log "no torch/lib from $python"; return 1; }
  timeout 30 nvidia-smi >"$work/nvidia-smi.txt" 2>&1
  local torch_here
  torch_here="$(PYTHONDONTWRITEBYTECODE=1 timeout 60 "$python" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "|", torch.cuda.get_device_name(0), "x", torch.cuda.device_count())' 2>&1)"
  pack_torch="$(cat "$carry/TORCH" 2>/dev/null)"
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -n), $(nproc) cores, $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
    echo "pack: commit $(cat "$carry/COMMIT" 2>/dev/null), torch ${pack_torch:-?}"
    echo "torch here: $torch_here"
    echo "LD_LIBRARY_PATH for the binaries: $ldpath"
    echo "ldd ftbench:"; LD_LIBRARY_PATH="$ldpath" ldd "$ftbench"
  } >"$work/env.txt" 2>&1
  log "torch here: $torch_here; pack: torch ${pack_torch:-?}, commit $(cat "$carry/COMMIT" 2>/dev/null)"
  if grep -q "not found" "$work/env.txt"; then
    grep "not found" "$work/env.txt" | show
    return 1
  fi
}

stage_tests() {
  local filter="${FTB_GPU_QUICK_TESTS:-*cuda*,*graph*,*capture*,*fp16*,*scaler*,*attention*}" rc
  limited "$work/tmp" "$work/logs/tests.log" "$work/logs/tests.log" "$ftb_tests" "--test-case=$filter" --duration=true
  rc=$?
  grep -E '^\[doctest\] (test cases|assertions|Status)' "$work/logs/tests.log" | show
  grep -E '^\[doctest\] test cases' "$work/logs/tests.log" >/dev/null || log "no doctest summary: see logs/tests.log"
  grep -E ': (ERROR|FATAL ERROR|WARNING): ' "$work/logs/tests.log" | head -20 | show
  # CUDA is here: a CUDA test that skips means the binaries' LibTorch does not see it.
  if grep -q "no CUDA device visible" "$work/logs/tests.log"; then
    log "CUDA tests skipped although $python sees a GPU: the carried binaries do not"
    [ "$rc" != 0 ] || rc=1
  fi
  return "$rc"
}

stage_profile() {
  local rc
  limited "$work/tmp" "$work/logs/profile.stdout" "$work/logs/profile.stderr" "$ftbench" run --preset synthetic-full \
    --device cuda --repeats 1 --scenarios baseline,cuda_graph --profile --out "$work/profile" epochs=1 \
    synthetic_count=600 "${run_args[@]}"
  rc=$?
  [ "$rc" = 0 ] || tail -3 "$work/logs/profile.stderr" | show
  if [ -f "$work/profile/report.json" ]; then
    # Each row's profiled steps: device busy and idle (the launch gaps a graph removes).
    PYTHONDONTWRITEBYTECODE=1 "$python" - "$work/profile/report.json" >"$work/rows.txt" 2>>"$work/logs/profile.stderr" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])).get("results", []):
    p = r.get("profile") or {}
    wall, idle, steps = p.get("wall_s") or 0, p.get("device_idle_s") or 0, p.get("steps") or 0
    if wall and p.get("device"):
        note = "device idle %.1f %% of %d profiled steps (%.1f ms a step)" % (100 * idle / wall, steps, 1e3 * wall / max(1, steps))
    else:
        note = (p.get("note") or "no profile")[:120]
    print("%-24s %8s  %s" % ("profile." + str(r.get("scenario", "?")), "-", note))
PY
    show <"$work/rows.txt"
  else
    log "no report.json from the profile run"
    [ "$rc" != 0 ] || rc=1
  fi
  return "$rc"
}

stage_run() {
  local scenarios="${FTB_GPU_QUICK_SCENARIOS:-baseline,amp_bf16,cuda_graph,cuda_graph_bf16,cuda_graph_fp16,fastest}" rc
  limited "$work/tmp" "$work/logs/run.stdout" "$work/logs/run.stderr" "$ftbench" run --preset synthetic-full \
    --device cuda --repeats 1 --scenarios "$scenarios" --out "$work/run" epochs=1 synthetic_count=3000 "${run_args[@]}"
  rc=$?
  grep -E '^\|' "$work/logs/run.stdout" | head -14 | show
  grep -E 'FAILED|failed|error|skipped' "$work/logs/run.stderr" | tail -10 | show
  [ "$rc" = 0 ] || tail -3 "$work/logs/run.stderr" | show
  # Each row's time, for planning the next window; every row must have run.
  if [ -f "$work/run/report.json" ]; then
    PYTHONDONTWRITEBYTECODE=1 "$python" - "$work/run/report.json" "$scenarios" >"$work/rows.txt" 2>>"$work/logs/run.stderr" <<'PY'
import json, sys
results = json.load(open(sys.argv[1])).get("results", [])
for r in results:
    step = (r.get("efficiency") or {}).get("step_ms_median")
    note = r.get("status", "?") + ("" if step is None else "  step_ms_median=%.2f" % step)
    if r.get("status") != "ok" and r.get("reason"):
        note += "  " + " ".join(str(r["reason"]).split())[:160]
    print("%-24s %8.1f  %s" % ("run." + str(r.get("scenario", "?")), r.get("wall_time_s") or 0, note))
ran = {r.get("scenario") for r in results if r.get("status") == "ok"}
missing = [s for s in sys.argv[2].split(",") if s not in ran]
if missing:
    print("%-24s %8s  %s" % ("run.not_ok", "-", ",".join(missing)))
sys.exit(1 if missing else 0)
PY
    [ $? = 0 ] || { log "rows that did not run ok: $(sed -n 's/^run.not_ok *- *//p' "$work/rows.txt")"; [ "$rc" != 0 ] || rc=1; }
  else
    log "no report.json from the run"
    [ "$rc" != 0 ] || rc=1
  fi
  return "$rc"
}

# Everything under OUT_DIR into as few files as the device tool brings back.
pack() {
  local t0 secs
  t0=$(date +%s.%N)
  rm -rf "$work/tmp"
  cp "$timings" "$log_file" "$work/" 2>/dev/null
  if tar -C "$out" -czf "$out/gpu_quick.tar.gz" gpu_quick; then
    if [ "$(stat -c %s "$out/gpu_quick.tar.gz")" -gt $((15 * 1048576)) ]; then  # 16 MiB a file comes back
      split -b 15m -d "$out/gpu_quick.tar.gz" "$out/gpu_quick.tar.gz." && rm "$out/gpu_quick.tar.gz"
      log "archive over 15 MiB: split into $(ls "$out"/gpu_quick.tar.gz.* | wc -l) parts (cat gpu_quick.tar.gz.* | tar -xz)"
    fi
    [ "${FTB_GPU_QUICK_KEEP:-0}" = 1 ] || rm -rf "$work"
  else
    log "could not write $out/gpu_quick.tar.gz: the folder gpu_quick/ stays"
  fi
  secs=$(since "$t0")
  record pack "$secs" ok
}

on_signal() {
  trap - TERM INT HUP
  log "interrupted: packing what there is"
  if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null; wait "$child" 2>/dev/null; fi
  record "${current:-?}" "$(since "${stage_t0:-$t_start}")" "interrupted"
  pack
  record total "$(since "$t_start")" "interrupted"
  exit 130
}
trap on_signal TERM INT HUP

run_args=("$@")
ldpath=""
for current in setup tests run profile; do
  case $current in
    setup) stage setup 60 ;;
    tests) stage tests "${FTB_GPU_QUICK_TESTS_S:-150}" ;;
    run) stage run "${FTB_GPU_QUICK_RUN_S:-300}" ;;
    profile)
      # Optional: only in what the budget leaves (under 40 s: recorded as not run, not as a failure).
      left=$(awk -v a="$t_start" -v b="$(date +%s.%N)" -v budget="$budget" -v r="$reserve" 'BEGIN {printf "%d", budget - r - (b - a)}')
      if [ "${FTB_GPU_QUICK_PROFILE_S:-80}" = 0 ]; then :
      elif [ "$left" -lt 40 ]; then record profile 0 "not run (${left} s of the budget left)"; log "stage profile: not run, ${left} s left"
      else stage profile "${FTB_GPU_QUICK_PROFILE_S:-80}"; fi ;;
  esac
done
current=pack
if [ ${#failed[@]} -eq 0 ]; then verdict="all stages passed"; else verdict="failed: ${failed[*]}"; fi
log "done in $(since "$t_start") s: $verdict"
pack
record total "$(since "$t_start")" "$verdict"
cat "$timings" >&2
[ ${#failed[@]} -eq 0 ]
