#!/usr/bin/env bash
# `ftbench list`: what a newcomer types first.
#   tests/cli/list.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The rows `ftbench list` prints, in its order (no list kept by hand: the
# registry is the list; test_scenarios holds it against the sources).
listed_rows() {
  "$1" list >"$tmp/list.out" 2>"$tmp/list.err" || fail "list: $(cat "$tmp/list.err")"
  grep -o '^[a-z_0-9]\+ ' "$tmp/list.out" | tr -d ' ' | grep -v '^scenario$' | tr '\n' ' '
}

case "$case_name" in
  list_fits_120_columns)
    # Like run's console table: every line within 120 columns (code points),
    # every preset's reasons included, and every scenario still named.
    for preset in quick smoke paper synthetic-full mfu pretrained-small; do
      "$ftbench" list --preset "$preset" >"$tmp/out" 2>"$tmp/err" || fail "list --preset $preset: $(cat "$tmp/err")"
      python3 - "$tmp/out" "$preset" <<'PY' || fail "list --preset $preset is wider than 120 columns"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
wide = [l for l in lines if len(l) > 120]
print(f"{sys.argv[2]}: {len(lines)} lines, widest {max(map(len, lines), default=0)} columns, {len(wide)} over 120")
sys.exit(1 if wide or not lines else 0)
PY
    done
    for s in baseline fused_adam ddp zero3 largest_batch; do
      grep -q "^$s " "$tmp/out" || fail "scenario $s is not listed"
    done ;;
  list_order_pinned)
    # Every row the sources register is listed, once: a row the linker
    # dropped would be missing (its order is the registry's rank order,
    # test_scenarios).
    rows=$(listed_rows "$ftbench")
    registered=$(grep -rh '^FTB_REGISTER_SCENARIO(' "$fixtures/../../scenarios" | wc -l)
    [ "$(echo $rows | wc -w)" = "$registered" ] || fail "rows: '$rows', want $registered (the sources' registrations)"
    [ "$(echo $rows | tr ' ' '\n' | sort -u | wc -l)" = "$registered" ] || fail "a row is listed twice: '$rows'" ;;
  list_fixture_row)
    # A scenario added in one file (tests/fixtures/scenarios/fixture_row.cpp,
    # compiled into the test build ftbench_fixture_row beside ftbench) is
    # listed at its rank and runs to ok.
    # Where the row was added to scenarios/ itself (the walk-through done
    # for real, tools/fixture_row_suite.sh), ftbench is that program.
    with_row="$(dirname "$ftbench")/ftbench_fixture_row"
    own="$(listed_rows "$ftbench")"
    if [[ " $own " == *" fixture_row "* ]]; then
      with_row="$ftbench"
      want="$own"
      [[ "$own" == "baseline fixture_row "* ]] || fail "rows: '$own', want fixture_row at its rank 150, after baseline"
    else
      [ -x "$with_row" ] || fail "$with_row is not built (cmake --build build --target ftbench_fixture_row)"
      want="$(echo "$own" | sed 's/^baseline /baseline fixture_row /')"
    fi
    rows=$(listed_rows "$with_row")
    cp "$tmp/list.out" "$tmp/out"
    [ "$rows" = "$want" ] || fail "rows: '$rows', want '$want' (fixture_row at its rank 150, after baseline)"
    grep -q '^fixture_row .* yes *$' "$tmp/out" || fail "fixture_row is not available: $(grep fixture_row "$tmp/out")"
    "$with_row" run --scenarios fixture_row --out "$tmp/o" "${tiny[@]}" >"$tmp/run.out" 2>"$tmp/err" ||
      fail "run: $(tail -n 3 "$tmp/err")"
    python3 - "$tmp/o/report.json" <<'PY' || fail "fixture_row did not run to ok"
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
print([(r["scenario"], r["status"]) for r in rows])
sys.exit(0 if [(r["scenario"], r["status"]) for r in rows] == [("fixture_row", "ok")] else 1)
PY
    ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
