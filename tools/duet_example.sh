#!/usr/bin/env bash
# The duet's proof on this machine (issue 42), every figure from the real
# binary: an A/A duet (the same build both sides, both at once, 12 pairs),
# the same A/A in the sequential mode (one side after the other on the same
# core), and a duet against a real 5 % slowdown (FTB_TEST_SLOWDOWN=0.05 on
# side B) at the default looks; then noise.md, the sds of both modes in one
# table (tools/duet_noise_table.py), calibrate-both.md (both designs'
# minimum detectable slowdown: `calibrate --duet-file` over the sequential
# job's 24 processes), and charts/pairs.svg (tools/duet_chart.py).
#   tools/duet_example.sh OUT [FTBENCH]
# FTB_DUET_ARGS: the rows and their settings (default below); FTB_AA_BUDGET_S: the
# A/A jobs' budget (default 900 s, the nightly's; longer rows need more for 12 pairs).
set -euo pipefail
out=${1:?usage: tools/duet_example.sh OUT [FTBENCH]}
ftbench=${2:-$(dirname "$0")/../build/ftbench}
mkdir -p "$out"
read -ra run <<<"${FTB_DUET_ARGS:---preset smoke --scenarios baseline,fused_adam,amp_bf16 --repeats 1 epochs=1}"
# Each job's exit code is a result (1: a row regressed), kept in DIR.exit.
job() {  # name, budget, then duet's flags
  local name="$1" budget="$2"; shift 2
  local rc=0
  "$ftbench" duet --out "$out/$name" --budget-s "$budget" "$@" "${run[@]}" > "$out/$name.md" 2> "$out/$name.log" || rc=$?
  echo "$rc" > "$out/$name.exit"
  [ "$rc" -le 1 ] || { echo "duet $name: exit $rc (see $out/$name.log)" >&2; exit "$rc"; }
}
job slowdown-5pct 900 --b-env FTB_TEST_SLOWDOWN=0.05
job aa-duet "${FTB_AA_BUDGET_S:-900}" --looks 12
job aa-sequential "${FTB_AA_BUDGET_S:-900}" --sequential --looks 12
python3 "$(dirname "$0")/duet_noise_table.py" "$out/aa-duet/duet.json" "$out/aa-sequential/duet.json" > "$out/noise.md"
# Both designs side by side: the nightly rule at the sequential job's
# processes' noise (the same build both sides: an A/A set), the duet at each A/A job's pair sd.
{
  echo '```text'
  echo "\$ ftbench calibrate --reports $out/aa-sequential/pair-*/{a,b}/report.json --out $out/calibrate-both --duet-file $out/aa-duet/duet.json --duet-file $out/aa-sequential/duet.json"
  "$ftbench" calibrate --reports "$out"/aa-sequential/pair-*/{a,b}/report.json --out "$out/calibrate-both" \
    --duet-file "$out/aa-duet/duet.json" --duet-file "$out/aa-sequential/duet.json"
  echo '```'
} > "$out/calibrate-both.md"
# The picture: each side's luck pair by pair and the pair's ratio (SVG, PNG).
mkdir -p "$out/charts"
python3 "$(dirname "$0")/duet_chart.py" --out "$out/charts/pairs.vl.json" "$out/aa-duet/duet.json" "$out/aa-sequential/duet.json"
"$(dirname "$0")/../.venv/bin/python" "$(dirname "$0")/render_charts.py" "$out"
cat "$out/noise.md"
