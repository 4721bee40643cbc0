#!/usr/bin/env bash
# Reports against reports/record/report.schema.json (JSON Schema 2020-12, Debian's
# python3-jsonschema): what a tiny `ftbench run` writes, and every committed
# report as the reader upgrades it; compare.json and regress.json against
# reports/record/compare.schema.json and regress.schema.json. Each check also shows the schema rejects
# a broken copy, so it cannot pass by accepting anything.
#   tests/schema_checks.sh FTBENCH UPGRADE_TOOL SOURCE_DIR CASE
set -uo pipefail
ftbench="$1"; upgrade="$2"; src="$3"; case_name="$4"
schema="$src/reports/record/report.schema.json"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
# Debian's interpreter first: CI validates with Debian's python3-jsonschema.
py=python3; [ -x /usr/bin/python3 ] && py=/usr/bin/python3
"$py" -c 'import jsonschema' 2>/dev/null || fail "python3-jsonschema is not installed (tools/setup.sh --tests installs it)"

# validate SCHEMA FILE...: each file valid; then a copy with a negative
# wall time and one without results[0].status must both be rejected.
validate() {
  "$py" - "$schema" "$@" <<'PY'
import copy, json, sys
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
v = Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    report = json.load(open(path))
    errors = sorted(v.iter_errors(report), key=lambda e: list(e.absolute_path))
    for e in errors[:5]:
        print(f"{path}: {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}", file=sys.stderr)
    bad += bool(errors)
    if report["results"]:
        broken = copy.deepcopy(report); broken["results"][0]["wall_time_s"] = -1.0
        assert not v.is_valid(broken), f"{path}: a negative wall time passed the schema"
        broken = copy.deepcopy(report); del broken["results"][0]["status"]
        assert not v.is_valid(broken), f"{path}: a row without status passed the schema"
    broken = copy.deepcopy(report); broken["schema"] = "ftbench.report/1"
    assert not v.is_valid(broken), f"{path}: schema version 1 passed as 2"
print(f"{len(sys.argv) - 2 - bad} of {len(sys.argv) - 2} reports valid")
sys.exit(1 if bad else 0)
PY
}

case "$case_name" in
  run_report)
    "$ftbench" run --scenarios baseline,amp --out "$tmp/o" epochs=1 synthetic_count=200 max_steps=3 \
      eval_max_batches=2 prefetch=1 threads=1 repeats=2 >"$tmp/out" 2>"$tmp/err" || fail "run failed: $(tail -3 "$tmp/err")"
    validate "$tmp/o/report.json" || fail "the report ftbench writes does not validate" ;;
  committed_reports)
    n=0
    for f in "$src"/results/*/report.json "$src"/results/*/*/report.json; do
      [ -f "$f" ] || continue
      n=$((n + 1))
      "$upgrade" "$f" >"$tmp/$n.json" || fail "cannot upgrade $f"
    done
    [ "$n" -ge 1 ] || fail "no committed reports under $src/results"
    validate "$tmp"/*.json || fail "a committed report, upgraded, does not validate" ;;
  compare_json|regress_json)
    # compare.json and regress.json against their schemas
    # (reports/record/{compare,regress}.schema.json) on the committed A/A runs,
    # every verdict the third answer gives: one run a side (no noise
    # estimate), 3 runs a side (interval too wide), --noise; regress against
    # baseline runs, one baseline run, and the history of runs 1-5 with run 6
    # as tonight. Broken copies (a cannot tell without its plan, a verdict out
    # of the list, a regressed flag the rows contradict) must be rejected.
    aa="$src/results/aa-cpu-2026-12-01"
    outs=()
    if [ "$case_name" = compare_json ]; then
      schema="$src/reports/record/compare.schema.json"
      "$ftbench" compare "$aa/run-1" "$aa/run-2" --out "$tmp/one" >/dev/null 2>&1 || fail "compare, one run a side"
      "$ftbench" compare --a "$aa/run-1" "$aa/run-2" "$aa/run-3" --b "$aa/run-4" "$aa/run-5" "$aa/run-6" \
        --out "$tmp/three" >/dev/null 2>&1 || fail "compare, three runs a side"
      "$ftbench" compare --a "$aa/run-1" --b "$aa/run-2" --noise "$aa/noise.json" --out "$tmp/noise" >/dev/null 2>&1 ||
        fail "compare --noise"
      outs=("$tmp/one/compare.json" "$tmp/three/compare.json" "$tmp/noise/compare.json")
    else
      schema="$src/reports/record/regress.schema.json"
      "$ftbench" regress --baseline "$aa/run-1/report.json" "$aa/run-2/report.json" "$aa/run-3/report.json" \
        --current "$aa/run-4/report.json" --json "$tmp/base.json" >/dev/null 2>&1
      [ $? -le 1 ] || fail "regress --baseline"
      "$ftbench" regress --baseline "$aa/run-1/report.json" --current "$aa/run-2/report.json" --json "$tmp/one.json" \
        >/dev/null 2>&1
      [ $? -le 1 ] || fail "regress, one baseline run"
      for k in 1 2 3 4 5; do "$ftbench" history add "$tmp/h.db" "$aa/run-$k/report.json" >/dev/null 2>&1 || fail "history add"; done
      "$ftbench" regress --history "$tmp/h.db" --current "$aa/run-6/report.json" --json "$tmp/hist.json" >/dev/null 2>&1
      [ $? -le 1 ] || fail "regress --history"
      outs=("$tmp/base.json" "$tmp/one.json" "$tmp/hist.json")
    fi
    "$py" - "$schema" "${outs[@]}" <<'PY' || fail "an output does not validate, or a broken copy passed"
import copy, json, sys
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
v = Draft202012Validator(schema)
seen = set()
def verdicts(j):
    if "rows" in j:
        return [(r, r["verdict"], r["cannot_tell_reason"]) for r in j["rows"]]
    out = []
    for c in j["comparisons"]:
        for s in c["scenarios"]:
            out += [(m, m["verdict"], m["cannot_tell_reason"]) for m in s["metrics"].values()]
        out += [(g, g["verdict"], g["cannot_tell_reason"]) for g in c["geometric_mean"].values()]
    return out
for path in sys.argv[2:]:
    j = json.load(open(path))
    errors = list(v.iter_errors(j))
    for e in errors[:5]:
        print(f"{path}: {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}", file=sys.stderr)
    assert not errors, path
    for obj, verdict, reason in verdicts(j):
        seen.add((verdict, reason))
        if verdict == "cannot tell" and reason == "interval too wide":
            broken = copy.deepcopy(j)
            for o, *_ in verdicts(broken):
                if o == obj: o["settle"] = None
            assert not v.is_valid(broken), f"{path}: a cannot tell without its plan passed"
        broken = copy.deepcopy(j)
        for o, *_ in verdicts(broken):
            if o == obj: o["verdict"] = "probably fine"
        assert not v.is_valid(broken), f"{path}: an unknown verdict passed"
    broken = copy.deepcopy(j); broken["schema"] = "ftbench.x/0"
    assert not v.is_valid(broken), f"{path}: another schema version passed"
    if "regressed" in j:
        broken = copy.deepcopy(j); broken["regressed"] = not j["regressed"]
        assert not v.is_valid(broken), f"{path}: a regressed flag the rows contradict passed"
print("valid; verdicts seen:", sorted(seen, key=str))
# Each file must have shown the third answer somewhere, or the checks above tested nothing of it.
assert any(r == "interval too wide" for _, r in seen), "no 'interval too wide' cannot tell in the outputs"
assert any(r == "no noise estimate" for _, r in seen), "no 'no noise estimate' in the outputs"
PY
    ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
