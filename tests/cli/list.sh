#!/usr/bin/env bash
# `ftbench list`: what a newcomer types first.
#   tests/cli/list.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

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
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
