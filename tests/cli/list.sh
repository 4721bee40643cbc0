#!/usr/bin/env bash
# `ftbench list`: what a newcomer types first.
#   tests/cli/list.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Every row of ftbench, in the order `ftbench list` and a report give them.
list_order="baseline fused_adam trainer amp amp_bf16 bucketed cuda_graph cuda_graph_bf16 cuda_graph_fp16 ddp sharded"
list_order+=" zero2 zero2_offload zero3 zero3_offload fabric peer peer_amp peer_amp_compiled fastest largest_batch"

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
    # The rows and their order, as registry.cpp's table had them before rows
    # registered themselves (issue 37): rank order, never link order; a row
    # the linker dropped would be missing here.
    "$ftbench" list >"$tmp/out" 2>"$tmp/err" || fail "list: $(cat "$tmp/err")"
    rows=$(grep -o '^[a-z_0-9]\+ ' "$tmp/out" | tr -d ' ' | grep -v '^scenario$' | tr '\n' ' ')
    want="$list_order "
    [ "$rows" = "$want" ] || fail "rows: '$rows', want '$want'" ;;
  list_fixture_row)
    # A scenario added in one file (tests/fixtures/scenarios/fixture_row.cpp,
    # compiled into the test build ftbench_fixture_row beside ftbench) is
    # listed at its rank and runs to ok.
    with_row="$(dirname "$ftbench")/ftbench_fixture_row"
    [ -x "$with_row" ] || fail "$with_row is not built (cmake --build build --target ftbench_fixture_row)"
    "$with_row" list >"$tmp/out" 2>"$tmp/err" || fail "list: $(cat "$tmp/err")"
    rows=$(grep -o '^[a-z_0-9]\+ ' "$tmp/out" | tr -d ' ' | grep -v '^scenario$' | tr '\n' ' ')
    want="$(echo "$list_order " | sed 's/^baseline /baseline fixture_row /')"
    [ "$rows" = "$want" ] || fail "rows: '$rows', want '$want'"
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
