#!/usr/bin/env bash
# `ftbench compare`: presets, --force, outputs, folders and malformed reports.
#   tests/cli/compare.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# report_edit IN OUT PYTHON: a copy of a report with one statement applied to
# it (as `r`).
report_edit() {
  python3 - "$@" <<'PY'
import json, sys
src, dst, statement = sys.argv[1:]
r = json.load(open(src))
exec(statement)
json.dump(r, open(dst, "w"))
PY
}

case "$case_name" in
  compare_same_preset)
    # Two committed reports of one preset (synthetic-full on an H200: loop Adam, then foreach Adam).
    "$ftbench" compare "$results/gpu-2026-11-29/full-loop-adam/report.json" "$results/gpu-2026-11-29/full/report.json" \
      >"$tmp/out" 2>"$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
    grep -q '^| baseline ' "$tmp/out" || fail "no table row for baseline: $(head -20 "$tmp/out")"
    grep -q 'cannot tell' "$tmp/out" || fail "one run a side must be 'cannot tell'"
    grep -q '^Geometric mean of B/A samples/s over 9 scenario' "$tmp/out" || fail "no geometric mean over the 9 rows"
    grep -q 'adam (B: ' "$tmp/out" || fail "the key only B records (adam) is not listed" ;;
  compare_different_presets)
    expect_error 2 "preset ('smoke' vs 'mfu')" \
      "$ftbench" compare "$results/cpu-smoke-2026-11-30/report.json" "$results/cpu-mfu-2026-11-29/report.json"
    grep -q 'cpu-mfu-2026-11-29/report.json: config differs' "$tmp/err" || fail "the refused file is not named first"
    [ ! -s "$tmp/out" ] || fail "printed a comparison it refused" ;;
  compare_force)
    "$ftbench" compare --force "$results/cpu-smoke-2026-11-30/report.json" "$results/cpu-mfu-2026-11-29/report.json" \
      >"$tmp/out" 2>"$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
    grep -q "Configs differ (compared anyway: --force):.*preset ('smoke' vs 'mfu')" "$tmp/out" ||
      fail "the forced difference is not printed: $(head -12 "$tmp/out")"
    grep -q '^| baseline ' "$tmp/out" || fail "no baseline row" ;;
  compare_out)
    # Three reports; the folders hold compare.md (the printed text), compare.json and the chart spec.
    a="$results/cpu-smoke-2026-11-30/report.json"
    "$ftbench" compare "$a" "$a" "$a" --out "$tmp/c" >"$tmp/out" 2>"$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
    cmp -s "$tmp/out" "$tmp/c/compare.md" || fail "compare.md differs from stdout"
    python3 - "$tmp/c" <<'PY' || fail "compare.json or compare.vl.json is wrong"
import json, sys
d = sys.argv[1]
j = json.load(open(d + "/compare.json"))
assert j["schema"] == "ftbench.compare/3" and len(j["comparisons"]) == 2
rows = {s["scenario"]: s for s in j["comparisons"][0]["scenarios"]}
# One run a side (3 repeats each): ratio 1, but nothing estimates the run-to-run noise
m = rows["baseline"]["metrics"]["train_samples_per_s"]
assert m["verdict"] == "cannot tell" and m["ratio"]["median"] == 1.0, m
assert m["test"]["basis"] == "none" and m["ratio"]["coverage"] is None, m
assert rows["amp"]["compared"] is False and rows["amp"]["reference"]["status"] == "skipped"
g = j["comparisons"][0]["geometric_mean"]["steady_samples_per_s"]
assert g["ratio"]["median"] == 1.0 and len(g["scenarios"]) == 8, g
assert j["comparisons"][0]["environment"]["differences"] == []
spec = json.load(open(d + "/compare.vl.json"))
assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
assert len(spec["data"]["values"]) == 2 * 2 * 8
PY
    ;;
  compare_folder)
    "$ftbench" compare "$results/cpu-smoke-2026-11-30" "$results/cpu-smoke-2026-11-30/report.json" >"$tmp/out" 2>"$tmp/err" ||
      fail "a run folder is not read as its report.json: $(cat "$tmp/err")" ;;
  compare_missing_key)
    report_edit "$results/cpu-smoke-2026-11-30/report.json" "$tmp/r.json" 'del r["results"][3]["wall_time_s"]'
    expect_error 2 "$tmp/r.json: missing key 'results[3].wall_time_s'" \
      "$ftbench" compare "$results/cpu-smoke-2026-11-30/report.json" "$tmp/r.json" ;;
  compare_wrong_schema)
    report_edit "$results/cpu-smoke-2026-11-30/report.json" "$tmp/r.json" 'r["schema"] = "ftbench.report/7"'
    expect_error 2 "$tmp/r.json: schema: 'ftbench.report/7' is not a report version" \
      "$ftbench" compare "$tmp/r.json" "$results/cpu-smoke-2026-11-30/report.json" ;;
  compare_nan_time)
    report_edit "$results/cpu-smoke-2026-11-30/report.json" "$tmp/r.json" 'r["results"][3]["wall_time_s"] = None'
    expect_error 2 "$tmp/r.json: results[3].wall_time_s: is NaN" \
      "$ftbench" compare "$results/cpu-smoke-2026-11-30/report.json" "$tmp/r.json" ;;
  compare_negative_throughput)
    report_edit "$results/cpu-smoke-2026-11-30/report.json" "$tmp/r.json" 'r["results"][0]["samples"][2]["train_samples_per_s"] = -5'
    expect_error 2 "$tmp/r.json: results[0].samples[2].train_samples_per_s: is -5" \
      "$ftbench" compare "$results/cpu-smoke-2026-11-30/report.json" "$tmp/r.json" ;;
  compare_not_object)
    echo '[1, 2]' >"$tmp/r.json"
    expect_error 2 "$tmp/r.json: expected an object" "$ftbench" compare "$tmp/r.json" "$tmp/r.json"
    report_edit "$results/cpu-smoke-2026-11-30/report.json" "$tmp/s.json" 'r["results"][1] = "baseline"'
    expect_error 2 "$tmp/s.json: results[1]: expected an object, got string" \
      "$ftbench" compare "$results/cpu-smoke-2026-11-30/report.json" "$tmp/s.json" ;;
  compare_one_report)
    expect_error 2 "reports" "$ftbench" compare "$results/cpu-smoke-2026-11-30/report.json" ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
