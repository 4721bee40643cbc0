#!/usr/bin/env bash
# `ftbench history` and `ftbench regress`: a series of nights, concurrent adds, a slowdown (and its --json form), an
# unchanged night, bad input, tonight from two runs with what changed beside the regression.
#   tests/cli/history.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# fake_report OUT NIGHT FACTOR [EDIT...]: the committed smoke report as night
# NIGHT's (timestamp, commit), every repeat's throughput x FACTOR with 1 %
# seeded noise (times / FACTOR), then python EDITs on `r`, e.g.
# 'r["config"]["preset"] = "paper"'.
fake_report() {
  python3 - "$smoke_report" "$@" <<'PY'
import json, random, sys
src, out, night, factor, *edits = sys.argv[1:]
r = json.load(open(src))
rng = random.Random(int(night))
r["environment"]["timestamp"] = "2026-11-%02dT02:00:00Z" % (1 + int(night))
r["environment"]["git_commit"] = "c%03d" % int(night)
for res in r["results"]:
    for s in res.get("samples", []):
        f = float(factor) * rng.lognormvariate(0, 0.01)
        for k in ("train_samples_per_s", "steady_samples_per_s", "train_tokens_per_s"): s[k] *= f
        for k in ("wall_time_s", "step_ms_median"): s[k] /= f
for e in edits: exec(e)
json.dump(r, open(out, "w"), indent=1)
PY
}

case "$case_name" in
  history_add_show)
    for n in 1 2 3 4; do fake_report "$tmp/r$n.json" $n 1.0; done
    "$ftbench" history add "$tmp/h.db" "$tmp"/r1.json "$tmp"/r2.json "$tmp"/r3.json >"$tmp/out" 2>"$tmp/err" || fail "add: $(cat "$tmp/err")"
    [ "$(grep -c '^added ' "$tmp/out")" = 3 ] || fail "want 3 added lines: $(cat "$tmp/out")"
    "$ftbench" history add "$tmp/h.db" "$tmp/r3.json" "$tmp/r4.json" >"$tmp/out" 2>"$tmp/err" || fail "add again: $(cat "$tmp/err")"
    grep -q 'r3.json is already in the history as run 3' "$tmp/out" || fail "re-adding r3 not idempotent: $(cat "$tmp/out")"
    grep -q ': 4 runs$' "$tmp/out" || fail "want 4 runs: $(cat "$tmp/out")"
    "$ftbench" history show "$tmp/h.db" --scenario baseline --out "$tmp/charts" >"$tmp/out" 2>"$tmp/err" || fail "show: $(cat "$tmp/err")"
    grep -q '^### baseline: train_samples_per_s' "$tmp/out" || fail "no baseline section: $(cat "$tmp/out")"
    [ "$(grep -c '^| 2026-11-0[2-5]T02:00:00Z | c00[1-4] ' "$tmp/out")" = 4 ] || fail "want 4 run rows: $(cat "$tmp/out")"
    grep -Eq '^\| 2026-11-05T02:00:00Z \| c004 +\| vm \\\| AMD EPYC +\| smoke +\| [0-9a-f]{16} +\| +3 \| +[0-9.]+ \[[0-9.]+, [0-9.]+; 75 %\] \| cannot tell ' "$tmp/out" ||
      fail "the 4th run (3 nights of 2 % noise before it) is not judged 'cannot tell' with a median and its interval's coverage: $(cat "$tmp/out")"
    grep -Eq "^- c004 \(2026-11-05T02:00:00Z\): the change's 95 % interval .* would settle it" "$tmp/out" ||
      fail "the 4th run's cannot tell does not say what would settle it: $(cat "$tmp/out")"
    python3 - "$tmp/charts/trend_baseline.vl.json" <<'PY' || fail "trend chart is not a Vega-Lite spec with 4 points"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["$schema"].endswith("vega-lite/v5.json")
assert len(s["data"]["values"]) == 4, s["data"]["values"]
PY
    expect_error 2 '--scenario' "$ftbench" history show "$tmp/h.db" --scenario nope
    expect_error 2 'nope.db' "$ftbench" history show "$tmp/nope.db"
    expect_error 2 '--metric' "$ftbench" history show "$tmp/h.db" --metric speed ;;
  history_concurrent_adds)
    # Two `history add` processes write 10 reports each into one fresh file at once.
    for n in $(seq 1 20); do fake_report "$tmp/r$n.json" $n 1.0; done
    ( for n in $(seq 1 10); do "$ftbench" history add "$tmp/h.db" "$tmp/r$n.json" || exit 1; done ) >"$tmp/a.out" 2>&1 & a=$!
    ( for n in $(seq 11 20); do "$ftbench" history add "$tmp/h.db" "$tmp/r$n.json" || exit 1; done ) >"$tmp/b.out" 2>&1 & b=$!
    wait $a || fail "writer a failed: $(cat "$tmp/a.out")"
    wait $b || fail "writer b failed: $(cat "$tmp/b.out")"
    python3 - "$tmp/h.db" <<'PY' || fail "rows were lost"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
runs = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
rows = db.execute("SELECT COUNT(*) FROM repeats").fetchone()[0]
ok = db.execute("SELECT COUNT(DISTINCT scenario) FROM repeats").fetchone()[0]
assert runs == 20, runs
assert rows == 20 * 3 * ok, (rows, ok)
assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
PY
    ;;
  regress_slowdown)
    for n in 1 2 3 4 5; do fake_report "$tmp/r$n.json" $n 1.0; done
    "$ftbench" history add "$tmp/h.db" "$tmp"/r?.json >/dev/null || fail "add failed"
    # 20 % slower: five nights of history give the rule few degrees of freedom (issue 26: a short
    # history is no longer hair-trigger), and 15 % left baseline at p 0.0017, just above Holm's step.
    fake_report "$tmp/slow.json" 9 0.80
    "$ftbench" regress --history "$tmp/h.db" --current "$tmp/slow.json" --out "$tmp/summary.md" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 1 ] || fail "exit $rc, want 1: $(cat "$tmp/out" "$tmp/err")"
    grep -Eq '^\| baseline +\| train_samples_per_s +\| .* \| \*\*REGRESSED\*\* +\|$' "$tmp/out" || fail "baseline not flagged: $(cat "$tmp/out")"
    grep -q '^\*\*Result: REGRESSED\*\*' "$tmp/out" || fail "no REGRESSED result line"
    cmp -s "$tmp/out" "$tmp/summary.md" || fail "--out differs from stdout"
    # --json FILE: the same verdicts machine-readable (fails on a regress without it, or one whose JSON
    # lost the row's verdict, p or interval).
    "$ftbench" regress --history "$tmp/h.db" --current "$tmp/slow.json" --json "$tmp/regress.json" >/dev/null 2>&1
    python3 - "$tmp/regress.json" <<'PY' || fail "regress --json: $(head -c 2000 "$tmp/regress.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["schema"] == "ftbench.regress/2" and j["regressed"] is True, j
row = next(r for r in j["rows"] if r["scenario"] == "baseline" and r["metric"] == "train_samples_per_s")
assert row["verdict"] == "regressed" and row["gating"] is True, row
ci = row["interval"]  # of current / reference, as compare.json's ratios
assert row["p_one_sided_worse"] < 0.005 and ci["low"] < 1 + row["change"] < ci["high"] < 1, row
assert abs(ci["median"] - (1 + row["change"])) < 1e-9 and ci["method"] == "t over runs", row
assert isinstance(row["what_changed"]["environment"], list), row
PY
    # Against one baseline run: no verdict is claimed (one run a side says nothing of the run-to-run noise).
    "$ftbench" regress --baseline "$tmp/r1.json" --current "$tmp/slow.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 0 ] || fail "one baseline run: exit $rc, want 0: $(cat "$tmp/out" "$tmp/err")"
    grep -q 'cannot tell from one run a side' "$tmp/out" || fail "the baseline run does not say why it cannot judge: $(cat "$tmp/out")"
    # Against five baseline runs: the run-to-run noise is estimated, the slowdown is a regression.
    "$ftbench" regress --baseline "$tmp"/r?.json --current "$tmp/slow.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 1 ] || fail "five baseline runs: exit $rc, want 1: $(cat "$tmp/out" "$tmp/err")"
    grep -q 'baseline runs .*r1.json, .*r5.json' "$tmp/out" || fail "the baseline runs are not named: $(cat "$tmp/out")" ;;
  regress_unchanged)
    for n in 1 2 3 4 5; do fake_report "$tmp/r$n.json" $n 1.0; done
    "$ftbench" history add "$tmp/h.db" "$tmp"/r?.json >/dev/null || fail "add failed"
    fake_report "$tmp/same.json" 9 1.0
    "$ftbench" regress --history "$tmp/h.db" --current "$tmp/same.json" --fail-on throughput,accuracy,memory >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 0 ] || fail "exit $rc, want 0: $(cat "$tmp/out" "$tmp/err")"
    grep -q '^\*\*Result: no regression.\*\*' "$tmp/out" || fail "no 'no regression' line: $(cat "$tmp/out")"
    # A scenario with no history is insufficient history, not an error.
    fake_report "$tmp/new.json" 9 1.0 'r["results"][0]["scenario"] = "brand_new"'
    "$ftbench" regress --history "$tmp/h.db" --current "$tmp/new.json" >"$tmp/out" 2>"$tmp/err" || fail "new scenario: $(cat "$tmp/err")"
    grep -Eq '^\| brand_new +\| train_samples_per_s +\| .* \| insufficient history +\|$' "$tmp/out" || fail "brand_new: $(cat "$tmp/out")" ;;
  regress_bad_input)
    for n in 1 2 3; do fake_report "$tmp/r$n.json" $n 1.0; done
    "$ftbench" history add "$tmp/h.db" "$tmp"/r?.json >/dev/null || fail "add failed"
    fake_report "$tmp/paper.json" 9 1.0 'r["config"]["preset"] = "paper"'
    expect_error 2 "$tmp/paper.json: preset 'paper' differs from the history's (smoke)" \
      "$ftbench" regress --history "$tmp/h.db" --current "$tmp/paper.json"
    fake_report "$tmp/lr.json" 9 1.0 'r["config"]["lr"] = 0.5'
    expect_error 2 "$tmp/lr.json: config differs" "$ftbench" regress --history "$tmp/h.db" --current "$tmp/lr.json"
    grep -q 'lr: 0.001 -> 0.5' "$tmp/err" || fail "the differing key is not named: $(cat "$tmp/err")"
    expect_error 2 "$tmp/lr.json: config differs from the baseline's" \
      "$ftbench" regress --baseline "$tmp/r1.json" --current "$tmp/lr.json"
    fake_report "$tmp/missing.json" 9 1.0 'del r["results"][0]["wall_time_s"]'
    expect_error 2 "$tmp/missing.json: missing key 'results[0].wall_time_s'" \
      "$ftbench" regress --history "$tmp/h.db" --current "$tmp/missing.json"
    fake_report "$tmp/nan.json" 9 1.0 'r["results"][0]["samples"][1]["wall_time_s"] = None'
    expect_error 2 "$tmp/nan.json: results[0].samples[1].wall_time_s: is NaN" \
      "$ftbench" regress --history "$tmp/h.db" --current "$tmp/nan.json"
    fake_report "$tmp/neg.json" 9 1.0 'r["results"][2]["samples"][0]["step_ms_median"] = -1'
    expect_error 2 "$tmp/neg.json: results[2].samples[0].step_ms_median: is -1" \
      "$ftbench" history add "$tmp/h.db" "$tmp/neg.json"
    expect_error 2 "$tmp/nope.db: no such history file" "$ftbench" regress --history "$tmp/nope.db" --current "$tmp/r1.json"
    cp "$tmp/r1.json" "$tmp/keep.json"
    expect_error 2 "$tmp/r1.json: not a history file" "$ftbench" regress --history "$tmp/r1.json" --current "$tmp/r2.json"
    expect_error 2 "$tmp/r1.json: not a history file" "$ftbench" history add "$tmp/r1.json" "$tmp/r2.json"
    cmp -s "$tmp/r1.json" "$tmp/keep.json" || fail "a report given as the history was changed"
    expect_error 2 '--history' "$ftbench" regress --current "$tmp/r1.json"
    expect_error 2 '--fail-on' "$ftbench" regress --history "$tmp/h.db" --current "$tmp/r1.json" --fail-on speed
    python3 - "$tmp/h.db" <<'PY' || fail "a refused report changed the history"
import sqlite3, sys
assert sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 3
PY
    ;;
  regress_what_changed)
    # Five nights on a CPU of family 23, tonight two runs 20 % slower on family 25 under the same
    # model name ("AMD EPYC"): the regression names the family first (issue 29), the commit last.
    # Night 5 and night 6 (after the change point below) carry a profile of baseline (`run --profile`):
    # aten::addmm 40 ms a profiled step, then 70 ms.
    profile() {
      echo 'next(x for x in r["results"] if x["scenario"] == "baseline")["profile"] = {"steps": 1, "wall_s": '"$1"',
        "host_ops_s": '"$2"', "device": False, "trace": "", "note": "synthetic",
        "host": [{"name": "aten::addmm", "phase": "forward", "calls": 1, "self_s": '"$2"'}]}'
    }
    for n in 1 2 3 4; do fake_report "$tmp/r$n.json" $n 1.0 'r["environment"]["cpu"]["family"] = 23'; done
    fake_report "$tmp/r5.json" 5 1.0 'r["environment"]["cpu"]["family"] = 23' "$(profile 0.1 0.04)"
    "$ftbench" history add "$tmp/h.db" "$tmp"/r?.json >/dev/null || fail "add failed"
    fake_report "$tmp/t1.json" 9 0.80 'r["environment"]["cpu"]["family"] = 25'
    fake_report "$tmp/t2.json" 10 0.80 'r["environment"]["cpu"]["family"] = 25'
    "$ftbench" regress --history "$tmp/h.db" --current "$tmp/t1.json" "$tmp/t2.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 1 ] || fail "exit $rc, want 1: $(cat "$tmp/out" "$tmp/err")"
    grep -q 't2.json (2 runs of tonight, judged together)' "$tmp/out" || fail "tonight's two runs not named: $(cat "$tmp/out")"
    grep -A3 '^### What changed' "$tmp/out" | grep -q '^- cpu.family (processor): 23 -> 25$' ||
      fail "the CPU family is not the first suspect: $(cat "$tmp/out")"
    grep -q '^- git_commit (ftbench): c001 | ... | c005 (5 values) -> c009 | c010$' "$tmp/out" || fail "no commit line: $(cat "$tmp/out")"
    # A rerun of another config is refused, naming it.
    fake_report "$tmp/lr.json" 10 0.80 'r["config"]["lr"] = 0.5'
    expect_error 2 "$tmp/lr.json: preset or config differs" \
      "$ftbench" regress --history "$tmp/h.db" --current "$tmp/t1.json" "$tmp/lr.json"
    # history show: the change point where the nights moved names the family too.
    fake_report "$tmp/s6.json" 6 0.80 'r["environment"]["cpu"]["family"] = 25' "$(profile 0.13 0.07)"
    for n in 7 8; do fake_report "$tmp/s$n.json" $n 0.80 'r["environment"]["cpu"]["family"] = 25'; done
    "$ftbench" history add "$tmp/h.db" "$tmp"/s?.json >/dev/null || fail "add slow nights failed"
    "$ftbench" history show "$tmp/h.db" --scenario baseline >"$tmp/out" 2>"$tmp/err" || fail "show: $(cat "$tmp/err")"
    grep -A1 '^- -[0-9.]* % between c005' "$tmp/out" | grep -q '^  - cpu.family (processor): 23 -> 25$' ||
      fail "the change point does not name the family first: $(cat "$tmp/out")"
    # ... and, with a profile on each side, the operator that grew (fails on a history show without it).
    grep -q '^    - operator aten::addmm (matmul): 40.0 -> 70.0 ms a profiled step (+30.0 ms, 100 % of the step.s change)$' \
      "$tmp/out" || fail "the change point does not name aten::addmm: $(cat "$tmp/out")" ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
