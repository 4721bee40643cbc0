#!/usr/bin/env bash
# `ftbench power`: the nightly rule by simulation (reports/analysis/power.h).
#   tests/cli/power.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

case "$case_name" in
  power_noise_file)
    # Every scenario of a calibration at its own noise: one row each, and the
    # whole report's false alarms with their upper bound; deterministic for a seed.
    noise="$root/results/aa-cpu-sync-2026-12-01/noise.json"
    "$ftbench" power --noise "$noise" --trials 200 --slowdowns 0,0.15 >"$tmp/out" 2>"$tmp/err" || fail "power: $(cat "$tmp/err")"
    for s in baseline bucketed fused_adam peer; do
      grep -Eq "^\| +$s \| +[0-9.]+ % \| +[0-9.]+ % \| +[0-9.]+ % \|$" "$tmp/out" || fail "no row for $s: $(cat "$tmp/out")"
    done
    grep -Eq '^Whole-report false alarms \(nothing slowed\): [0-9]+ of 200 nights, [0-9.]+ % \(one-sided 95 % upper bound [0-9.]+ %\)\.$' "$tmp/out" \
      || fail "no false-alarm line: $(cat "$tmp/out")"
    grep -q '^4 scenario(s) a report, 8 nights of history, 3 repeats a night' "$tmp/out" || fail "the calibration's repeats not used"
    "$ftbench" power --noise "$noise" --trials 200 --slowdowns 0,0.15 >"$tmp/again" 2>/dev/null
    cmp -s "$tmp/out" "$tmp/again" || fail "not deterministic for a seed" ;;
  power_bad_input)
    # One line naming the file or flag, exit 2.
    "$ftbench" power --noise "$tmp/missing.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 2 ] || fail "missing noise file: exit $rc, want 2"
    [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "missing.json" "$tmp/err" || fail "error does not name the file: $(cat "$tmp/err")"
    "$ftbench" power --shared 1.5 >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 2 ] && grep -q -- "--shared" "$tmp/err" || fail "--shared 1.5: exit $rc, $(cat "$tmp/err")"
    "$ftbench" power --outlier -1 >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 2 ] && grep -q -- "--outlier" "$tmp/err" || fail "--outlier -1: exit $rc, $(cat "$tmp/err")" ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
