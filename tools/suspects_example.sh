#!/usr/bin/env bash
# What `regress` names beside a real regression (issue 29), made by this
# script and committed (never typed by hand): five reference runs of the
# quick preset's baseline row, then "tonight" pinned to one of the two
# cores (taskset -c 0: the same machine, build and config, as a CI runner
# given fewer cores than it reports), every run with --profile. Then
#   ftbench regress --baseline ref1 ... ref5 --current tonight
# which should find the slowdown, name the recorded fact that changed (the
# cores this process may use) and the operators that grew. Run it on a
# quiet machine: a neighbour's load moves a run's level too. (Tried first and
# left: ATEN_CPU_CAPABILITY=avx2 on this AVX-512 VM changed nothing, -0.3 %,
# on this small model; OMP_NUM_THREADS=1 is overridden by ftbench's threads.)
#   tools/suspects_example.sh OUT_DIR [FTBENCH]
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/tools/args.sh"
ftb_out_ftbench tools/suspects_example.sh "$root" "$@"
out="$(cd "$out" && pwd)"
run() {  # name, then what env(1) puts before ftbench (assignments, a wrapper such as taskset)
  local name="$1"; shift
  env "$@" "$ftbench" run --preset quick --scenarios baseline --profile --out "$out/$name" \
    >"$out/$name.log" 2>&1 || { echo "run $name failed: $(tail -3 "$out/$name.log")" >&2; exit 2; }
}
for k in 1 2 3 4 5; do run "ref$k"; done
run tonight taskset -c 0
cd "$out"
refs="ref1/report.json ref2/report.json ref3/report.json ref4/report.json ref5/report.json"
# shellcheck disable=SC2086
"$ftbench" regress --baseline $refs --current tonight/report.json \
  --out regress.md >/dev/null 2>"regress.err"
rc=$?
{ echo '```text'
  echo "\$ ftbench regress --baseline $refs --current tonight/report.json"
  cat regress.md
  echo "(exit code $rc)"
  echo '```'; } >regress-shown.md
echo "regress exit $rc; $out/regress-shown.md"
