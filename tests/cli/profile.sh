#!/usr/bin/env bash
# `ftbench run --profile` end to end (issue 29): the untimed profiling pass of
# a single-process row and of a row of ranks, their traces, the views that
# `report` re-renders, and compare's profile diff.
#   tests/cli/profile.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case "$case_name" in
  dist_profile_run_report_compare)
    # Fails when a row of ranks is not profiled (rank 0 through the rank
    # protocol), a trace is not gzip'ed Chrome-trace JSON with the steps, the
    # views lack the profile table or chart, `report` renders them otherwise,
    # or compare of two profiled runs says nothing of the operators.
    "$ftbench" run --scenarios baseline,ddp --out "$tmp/a" epochs=1 synthetic_count=1000 max_steps=3 \
      eval_max_batches=2 repeats=1 threads=2 profile=2 >"$tmp/out" 2>"$tmp/err" || fail "run failed: $(tail -3 "$tmp/err")"
    python3 - "$tmp/a" <<'PY' || fail "profiles: see above"
import gzip, json, sys
d = sys.argv[1]
report = json.load(open(d + "/report.json"))
for r in report["results"]:
    p = r.get("profile")
    assert p and p["steps"] == 2, (r["scenario"], p and p["note"])
    assert "not part of any timed figure" in p["note"], p["note"]
    assert p["trace"] == "profiles/%s.trace.json.gz" % r["scenario"], p["trace"]
    events = json.load(gzip.open(d + "/" + p["trace"]))["traceEvents"]
    steps = [e for e in events if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#")]
    assert len(steps) == 2, (r["scenario"], len(steps))
    assert "categories" in p and p["categories"]["host"], r["scenario"]
PY
    grep -q "^| ddp " "$tmp/a/table.md" && grep -q "top operators (share of the step)" "$tmp/a/table.md" \
      || fail "table.md has no profile table"
    [ -s "$tmp/a/charts/profile.vl.json" ] || fail "no charts/profile.vl.json"
    grep -q "^profiled (untimed pass" "$tmp/out" || fail "the console shows no profile lines"
    "$ftbench" report "$tmp/a" --out "$tmp/r" >/dev/null 2>"$tmp/err" || fail "report failed: $(tail -3 "$tmp/err")"
    cmp -s "$tmp/a/table.md" "$tmp/r/table.md" || fail "report re-renders table.md differently"
    cmp -s "$tmp/a/charts/profile.vl.json" "$tmp/r/charts/profile.vl.json" || fail "report re-renders the profile chart differently"
    "$ftbench" compare "$tmp/a" "$tmp/a" --out "$tmp/c" >"$tmp/cmp" 2>"$tmp/err" || fail "compare failed: $(tail -3 "$tmp/err")"
    grep -q "^Operator profiles (untimed profiling passes" "$tmp/cmp" && grep -q "^- ddp: step " "$tmp/cmp" \
      || fail "compare lists no profile diff: $(cat "$tmp/cmp")" ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
