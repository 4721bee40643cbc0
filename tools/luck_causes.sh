#!/usr/bin/env bash
# Which process-level causes move a whole process on this machine (issue
# 42's fifth part): A/A sets of one configuration, each process its own run,
# with the default and with one cause removed, interleaved (default,
# no-ASLR, THP always, default, ...) so the machine's drift falls on every
# set alike; then `ftbench calibrate --reports` over each set prints its
# run-to-run noise, and causes.md sets them side by side.
#   tools/luck_causes.sh OUT [FTBENCH] [RUNS]     (root for the THP setting)
# FTB_SETS: the sets to run, in their interleaved order (default
# "default aslr-off thp-always"); the first is the one the others are tested
# against (causes.md: each set's sd over the first's, and the two-sided
# p-value of the F test that their variances are equal).
# Sets: default (ASLR on, THP as the machine has it); aslr-off (setarch -R:
# the same addresses every process); thp-always (transparent huge pages for
# every mapping, not only madvised ones; restored after). Each run:
# --preset smoke --scenarios baseline,fused_adam,amp_bf16 --repeats 1 epochs=1.
set -euo pipefail
out=${1:?usage: tools/luck_causes.sh OUT [FTBENCH] [RUNS]}
ftbench=${2:-$(dirname "$0")/../build/ftbench}
runs=${3:-8}
read -ra sets <<<"${FTB_SETS:-default aslr-off thp-always}"
thp=/sys/kernel/mm/transparent_hugepage/enabled
was=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$thp")
trap 'echo "$was" > "$thp" 2>/dev/null || true' EXIT
mkdir -p "$out"
run=(--preset smoke --scenarios baseline,fused_adam,amp_bf16 --repeats 1 epochs=1)
for k in $(seq 1 "$runs"); do
  for set in "${sets[@]}"; do
    dir="$out/$set/run-$k"; mkdir -p "$out/$set"
    case $set in
      default) echo "$was" > "$thp"; "$ftbench" run --out "$dir" "${run[@]}" > "$dir.log" 2>&1 ;;
      aslr-off) echo "$was" > "$thp"; setarch "$(uname -m)" -R "$ftbench" run --out "$dir" "${run[@]}" > "$dir.log" 2>&1 ;;
      thp-always) echo always > "$thp"; "$ftbench" run --out "$dir" "${run[@]}" > "$dir.log" 2>&1 ;;
    esac
  done
done
echo "$was" > "$thp"
for set in "${sets[@]}"; do
  "$ftbench" calibrate --reports "$out/$set"/run-*/report.json --out "$out/$set" > "$out/$set/calibrate.md"
done
# Each set against the first: the sds' ratio and the F test of equal
# variances (two-sided; scipy from the project's venv).
"$(dirname "$0")/../.venv/bin/python" - "$out" "${sets[@]}" > "$out/causes.md" <<'PY'
import json, sys
from scipy.stats import f
out, sets = sys.argv[1], sys.argv[2:]
noise = {s: json.load(open(f"{out}/{s}/noise.json"))["scenarios"] for s in sets}
print(f"| set | row | runs | run-to-run sd of log throughput | sd / {sets[0]}'s | F test p (two-sided) |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for s in sets:
    for row, metrics in sorted(noise[s].items()):
        e, b = metrics["train_samples_per_s"], noise[sets[0]][row]["train_samples_per_s"]
        if s == sets[0]:
            ratio, p = "1", "-"
        else:
            F = (e["run_cv"] / b["run_cv"]) ** 2
            d1, d2 = e["runs"] - 1, b["runs"] - 1
            ratio = f"{e['run_cv'] / b['run_cv']:.2f}"
            p = f"{min(1.0, 2 * min(f.cdf(F, d1, d2), f.sf(F, d1, d2))):.3f}"
        print(f"| {s} | {row} | {e['runs']} | {100 * e['run_cv']:.2f} % | {ratio} | {p} |")
PY
cat "$out/causes.md"
