#!/usr/bin/env bash
# The comparisons quoted in docs/compare.md, made by this script and
# committed (never typed by hand), each a fenced transcript:
#   one-run-a-side.md  the committed A/A pair, one run a side (cannot tell)
#   three-vs-three.md  the six A/A processes of results/aa-cpu-2026-12-01,
#                      runs 1-3 against runs 4-6 (three-vs-three/: its
#                      compare.json and chart, compare.svg)
#   force-29-vs-30.md  two reports of different VMs and world sizes, --force
#   two-machines.md    two machines, six runs a side: the calibrations of
#                      results/aa-cpu-2026-12-01 (AMD EPYC) and -12-02 (Intel
#                      Xeon), --force (loader prefetch differs); two-machines/:
#                      its compare.json and chart, compare.svg
#
#   tools/compare_examples.sh OUT_DIR [FTBENCH]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/tools/args.sh"
ftb_out_ftbench tools/compare_examples.sh "$root" "$@"
out="$(cd "$out" && pwd)"
cd "$root"
transcript() {  # transcript FILE ARGS...: `ftbench ARGS` as a fenced block with its exit code
  local file="$1"; shift
  local rc=0
  { echo '```text'; echo "\$ ftbench $*"; "$ftbench" "$@" || rc=$?; echo "(exit code $rc)"; echo '```'; } > "$file"
}
r=results/peer-cpu-quiet-2026-12-01
transcript "$out/one-run-a-side.md" compare $r/smoke-c $r/smoke-b
a=results/aa-cpu-2026-12-01
transcript "$out/three-vs-three.md" compare --a $a/run-1 $a/run-2 $a/run-3 --b $a/run-4 $a/run-5 $a/run-6
# The same comparison's picture (compare.vl.json, rendered to SVG and PNG).
"$ftbench" compare --a $a/run-1 $a/run-2 $a/run-3 --b $a/run-4 $a/run-5 $a/run-6 --out "$out/three-vs-three" > /dev/null || true
"$root/.venv/bin/python" "$root/tools/render_charts.py" "$out/three-vs-three" > /dev/null
transcript "$out/force-29-vs-30.md" compare --force results/cpu-smoke-2026-11-29 results/cpu-smoke-2026-11-30
m=results/aa-cpu-2026-12-02
transcript "$out/two-machines.md" compare --force --a $a --b $m
"$ftbench" compare --force --a $a --b $m --out "$out/two-machines" > /dev/null || true
"$root/.venv/bin/python" "$root/tools/render_charts.py" "$out/two-machines" > /dev/null
echo "wrote $out/one-run-a-side.md, three-vs-three.md, force-29-vs-30.md, two-machines.md"
