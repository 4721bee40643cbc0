#!/usr/bin/env bash
# `ftbench export`: the benchmark-action and Bencher formats.
#   tests/cli/export.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case "$case_name" in
  export_formats)
    for f in customBiggerIsBetter customSmallerIsBetter bmf; do
      "$ftbench" export --format $f "$smoke_report" >"$tmp/$f.json" 2>"$tmp/err" || fail "export $f: $(cat "$tmp/err")"
    done
    "$ftbench" export --format bmf "$smoke_report" --out "$tmp/bmf-out.json" || fail "export --out failed"
    cmp -s "$tmp/bmf.json" "$tmp/bmf-out.json" || fail "--out differs from stdout"
    python3 - "$tmp" <<'PY' || fail "exports do not parse as the formats"
import json, sys
d = sys.argv[1]
for name in ("customBiggerIsBetter", "customSmallerIsBetter"):
    a = json.load(open(f"{d}/{name}.json"))
    assert isinstance(a, list) and len(a) >= 2, a
    for e in a:
        assert set(e) == {"name", "unit", "value", "range", "extra"}, e
        assert isinstance(e["value"], (int, float)) and e["range"].startswith("± "), e
units = {e["unit"] for e in json.load(open(f"{d}/customSmallerIsBetter.json"))}
assert units == {"s", "ms"}, units
b = json.load(open(f"{d}/bmf.json"))
m = b["smoke/baseline"]["throughput"]
assert m["lower_value"] <= m["value"] <= m["upper_value"], m
PY
    expect_error 2 '--format' "$ftbench" export --format csv "$smoke_report" ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
