#!/usr/bin/env bash
# Reports against reports/record/report.schema.json (JSON Schema 2020-12, Debian's
# python3-jsonschema): what a tiny `ftbench run` writes, and every committed
# report as the reader upgrades it. Each check also shows the schema rejects
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
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
