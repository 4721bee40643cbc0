#!/usr/bin/env bash
# Which process-level causes move a whole process on this machine (issue
# 42's fifth part): A/A sets of one configuration, each process its own run,
# with the default and with one cause removed, interleaved (default,
# no-ASLR, THP always, default, ...) so the machine's drift falls on every
# set alike; then `ftbench calibrate --reports` over each set prints its
# run-to-run noise, and causes.md sets them side by side.
#   tools/luck_causes.sh OUT [FTBENCH] [RUNS]     (root for the THP setting)
# Sets: default (ASLR on, THP as the machine has it); aslr-off (setarch -R:
# the same addresses every process); thp-always (transparent huge pages for
# every mapping, not only madvised ones; restored after). Each run:
# --preset smoke --scenarios baseline,fused_adam,amp_bf16 --repeats 1 epochs=1.
set -euo pipefail
out=${1:?usage: tools/luck_causes.sh OUT [FTBENCH] [RUNS]}
ftbench=${2:-$(dirname "$0")/../build/ftbench}
runs=${3:-8}
thp=/sys/kernel/mm/transparent_hugepage/enabled
was=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$thp")
trap 'echo "$was" > "$thp" 2>/dev/null || true' EXIT
mkdir -p "$out"
run=(--preset smoke --scenarios baseline,fused_adam,amp_bf16 --repeats 1 epochs=1)
for k in $(seq 1 "$runs"); do
  for set in default aslr-off thp-always; do
    dir="$out/$set/run-$k"; mkdir -p "$out/$set"
    case $set in
      default) echo "$was" > "$thp"; "$ftbench" run --out "$dir" "${run[@]}" > "$dir.log" 2>&1 ;;
      aslr-off) echo "$was" > "$thp"; setarch "$(uname -m)" -R "$ftbench" run --out "$dir" "${run[@]}" > "$dir.log" 2>&1 ;;
      thp-always) echo always > "$thp"; "$ftbench" run --out "$dir" "${run[@]}" > "$dir.log" 2>&1 ;;
    esac
  done
done
echo "$was" > "$thp"
{
  echo "| set | row | runs | run-to-run sd of log throughput |"
  echo "| --- | --- | ---: | ---: |"
  for set in default aslr-off thp-always; do
    "$ftbench" calibrate --reports "$out/$set"/run-*/report.json --out "$out/$set" > "$out/$set/calibrate.md"
    python3 - "$out/$set/noise.json" "$set" <<'PY'
import json, sys
n = json.load(open(sys.argv[1]))
for row, metrics in sorted(n["scenarios"].items()):
    e = metrics["train_samples_per_s"]
    print(f"| {sys.argv[2]} | {row} | {e['runs']} | {100 * e['run_cv']:.2f} % |")
PY
  done
} > "$out/causes.md"
cat "$out/causes.md"
