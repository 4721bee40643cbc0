#!/usr/bin/env bash
# `ftbench calibrate`: A/A runs of a tiny preset and the noise file.
#   tests/cli/calibrate.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case "$case_name" in
  calibrate_smoke)
    "$ftbench" calibrate --scenarios baseline --runs 2 --out "$tmp/cal" "${tiny[@]}" repeats=2 >"$tmp/out" 2>"$tmp/err" ||
      fail "calibrate failed: $(tail -3 "$tmp/err")"
    for f in run-1/report.json run-2/report.json noise.json; do [ -s "$tmp/cal/$f" ] || fail "missing $f"; done
    grep -Eq '^\| baseline +\| train_samples_per_s +\| +2 \| +4 \|' "$tmp/out" || fail "no noise table row: $(cat "$tmp/out")"
    python3 - "$tmp/cal/noise.json" <<'PY' || fail "noise.json lacks the estimates"
import json, sys
n = json.load(open(sys.argv[1]))
assert n["schema"] == "ftbench.noise/2" and n["runs"] == 2 and n["preset"] == "quick"
e = n["scenarios"]["baseline"]["train_samples_per_s"]
assert len(e["run_medians"]) == 2 and e["repeats"] == 4 and e["run_df"] == 1
for k in ("run_cv", "within_cv", "between_cv", "between_share", "min_detectable_change"): assert e[k] >= 0, k
assert e["min_detectable_change"] >= 0.03
aa = n["aa_check"]
assert aa["regress_nights"] == 0 and aa["compare_pairs"] == 0, aa  # 2 runs: too few to judge either rule
PY
    # The calibration is used: --noise with a run of the same config.
    "$ftbench" regress --baseline "$tmp/cal/run-1/report.json" --current "$tmp/cal/run-2/report.json" \
      --noise "$tmp/cal/noise.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" != 2 ] || fail "regress --noise refused its own calibration: $(cat "$tmp/err")"
    grep -q "Calibrated run-to-run noise from $tmp/cal/noise.json" "$tmp/out" || fail "--noise not used: $(cat "$tmp/out")"
    # Analysing runs made before: the same estimates, no new run.
    "$ftbench" calibrate --reports "$tmp/cal/run-1/report.json" "$tmp/cal/run-2/report.json" --out "$tmp/again" >"$tmp/out" 2>"$tmp/err" ||
      fail "calibrate --reports: $(cat "$tmp/err")"
    [ ! -e "$tmp/again/run-1" ] || fail "calibrate --reports ran again"
    python3 - "$tmp/cal/noise.json" "$tmp/again/noise.json" <<'PY' || fail "calibrate --reports estimates differ"
import json, sys
a, b = (json.load(open(p))["scenarios"] for p in sys.argv[1:])
assert a == b
PY
    expect_error 2 '--runs' "$ftbench" calibrate --runs 1 --out "$tmp/c1" ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
