#!/usr/bin/env bash
# Does bf16 keep accuracy? (issue 47), every figure from the real binary on
# the default preset (quick): baseline and amp_bf16 with seed_per_repeat=on
# (repeat i retrains with seed 123 + i on the same test split), at 3 seeds
# and at 10, then summary.md (tools/accuracy_summary.py): each seed's paired
# table (McNemar on the examples: the test sample's luck), the verdict over
# seeds (training luck) and what the single-seed verdict would have said.
#   tools/accuracy_example.sh OUT [FTBENCH]
set -euo pipefail
usage="usage: tools/accuracy_example.sh OUT [FTBENCH]"
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "$usage" >&2; exit 2; }
case "$1" in -*) echo "tools/accuracy_example.sh: $1: not an output folder ($usage)" >&2; exit 2 ;; esac
out=$1
ftbench=${2:-$(dirname "$0")/../build/ftbench}
[ -x "$ftbench" ] || { echo "tools/accuracy_example.sh: $ftbench: not an executable ftbench" >&2; exit 2; }
mkdir -p "$out"
for seeds in 3 10; do
  "$ftbench" run --scenarios baseline,amp_bf16 --repeats "$seeds" seed_per_repeat=on \
    --out "$out/seeds-$seeds" > "$out/seeds-$seeds.console.txt" 2> "$out/seeds-$seeds.log"
done
python3 "$(dirname "$0")/accuracy_summary.py" "$out/seeds-3/report.json" "$out/seeds-10/report.json" > "$out/summary.md"
cat "$out/summary.md"
