#!/usr/bin/env bash
# What `regress` names beside a real regression (issue 29), made by this
# script and committed (never typed by hand): three reference runs of the
# quick preset's baseline row, then "tonight" with ATen's kernels held to
# AVX2 (ATEN_CPU_CAPABILITY=avx2 on an AVX-512 machine: the same machine,
# build and config, as if tonight's runner were an older processor), every
# run with --profile. Run it on a quiet machine: neighbours' load moves a
# run's level more than the ISA does. Then
#   ftbench regress --baseline ref1 ref2 ref3 --current tonight
# which should find the slowdown, name the recorded facts that changed
# (ATen's dispatch ISA, the watched variable) and the operators that grew.
#   tools/suspects_example.sh OUT_DIR [FTBENCH]
set -uo pipefail
out="${1:?usage: tools/suspects_example.sh OUT_DIR [FTBENCH]}"
root="$(cd "$(dirname "$0")/.." && pwd)"
ftbench="${2:-$root/build/ftbench}"
mkdir -p "$out" && out="$(cd "$out" && pwd)"
run() {  # name, then environment assignments for env(1)
  local name="$1"; shift
  env "$@" "$ftbench" run --preset quick --scenarios baseline --profile --out "$out/$name" \
    >"$out/$name.log" 2>&1 || { echo "run $name failed: $(tail -3 "$out/$name.log")" >&2; exit 2; }
}
for k in 1 2 3; do run "ref$k"; done
run tonight ATEN_CPU_CAPABILITY=avx2
cd "$out"
"$ftbench" regress --baseline ref1/report.json ref2/report.json ref3/report.json --current tonight/report.json \
  --out regress.md >/dev/null 2>"regress.err"
rc=$?
{ echo '```text'
  echo '$ ftbench regress --baseline ref1/report.json ref2/report.json ref3/report.json --current tonight/report.json'
  cat regress.md
  echo "(exit code $rc)"
  echo '```'; } >regress-shown.md
echo "regress exit $rc; $out/regress-shown.md"
