#!/usr/bin/env bash
# A nightly gate that answers on a shared machine: tonight's build against
# the kept reference build, both at once on their own cores, pair by pair,
# within a time budget (ftbench duet, docs/nightly.md). The reference is
# promoted when the night passes, so tomorrow judges against tonight.
#   tools/jobs/nightly_duet.sh [OUT_ROOT]      (from cron; run tools/setup.sh first)
# FTB_REFERENCE: the reference ftbench (default ref/ftbench; the first night
# keeps build/ftbench there and judges nothing); FTB_HISTORY: the history
# file each night's duet.json and tonight's first report are added to
# (default OUT_ROOT/history.db: `ftbench history show` lists the ratio series against
# each night's reference beside the absolute levels); FTB_BUDGET_S: the budget
# (default 900); FTB_DUET_ARGS: the run flags both sides get (default the
# smoke preset's three single-process rows, one epoch, one repeat). Exit: 0 passed (same or better), 1 a row regressed or a
# side failed (the reference stays), 2 bad input. A night whose rows include
# a cannot tell exits 0 (no regression seen) but does not promote: the
# reference stays until a night settles every row.
set -uo pipefail
cd "$(dirname "$0")/../.."
ref=${FTB_REFERENCE:-ref/ftbench}
out=${1:-out}/$(date +%F)
promote() { mkdir -p "$(dirname "$ref")" && cp build/ftbench "$ref.new" && mv "$ref.new" "$ref"; }
if [ ! -x "$ref" ]; then
  promote && echo "first night: build/ftbench kept as the reference ($ref); nothing to judge"
  exit 0
fi
read -ra run <<<"${FTB_DUET_ARGS:---preset smoke --scenarios baseline,fused_adam,amp_bf16 --repeats 1 epochs=1}"
build/ftbench duet --a "$ref" --b build/ftbench --out "$out" --budget-s "${FTB_BUDGET_S:-900}" "${run[@]}"
rc=$?
history=${FTB_HISTORY:-${1:-out}/history.db}
# A judged night (no side failed) goes into the history: its rows' changes and tonight's first report.
if [ "$rc" -le 1 ] && [ -s "$out/pair-1/b/report.json" ] && ! grep -q '"failure": "[^"]' "$out/duet.json" &&
  ! build/ftbench history add "$history" "$out/duet.json" "$out/pair-1/b/report.json"; then
  echo "the night could not be added to the history $history: the reference stays"
  exit 1
fi
# The rows the budget left open (duet.json rows[].verdict "cannot tell").
open_rows() {
  python3 -c 'import json, sys; print(" ".join(r["scenario"] for r in json.load(open(sys.argv[1]))["rows"] if r.get("verdict") == "cannot tell"))' "$out/duet.json"
}
case $rc in
  0) open="$(open_rows)"
     if [ -n "$open" ]; then
       echo "no regression, but cannot tell for: $open; the reference stays ($out/duet.md says what each ruled out)"
     else
       promote && echo "passed: build/ftbench is the new reference ($out/duet.md)"
     fi ;;
  1) echo "regressed or a side failed: the reference stays; $out/duet.md names the rows and the change" ;;
  *) echo "bad input (exit $rc): nothing judged" ;;
esac
exit $rc
