#!/usr/bin/env bash
# tools.args (issue 46): every documented tool whose full run is long (or
# needs root, a GPU or two nodes) still parses its arguments: each bad call
# below exits 2 with exactly one line on stderr, nothing on stdout, and
# writes nothing (the scripts run from a copy of tools/ in a scratch folder,
# whose listing is compared before and after). Seconds: no tool builds or runs.
#   tests/tools_args_check.sh [SOURCE_DIR]
set -uo pipefail
root="$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/tools_args.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/repo" "$tmp/cwd"
cp -r "$root/tools" "$tmp/repo/tools"
listing() { (cd "$tmp/repo" && find . -printf '%y %p %s\n' | sort); }
before="$(listing)"
bad=0 n=0
# refuses SCRIPT ARGS...: exit 2, one stderr line, empty stdout
refuses() {
  local script="$1" rc=0 out err lines; shift
  out="$(cd "$tmp/cwd" && "$tmp/repo/tools/$script" "$@" 2>"$tmp/err" </dev/null)" || rc=$?
  err="$(cat "$tmp/err")"; lines="$(printf '%s' "$err" | grep -c '')"
  n=$((n + 1))
  if [ "$rc" != 2 ] || [ "$lines" != 1 ] || [ -n "$out" ]; then
    printf 'FAIL: tools/%s %s: exit %s, %s stderr lines, stdout %s:\n%s\n' "$script" "$*" "$rc" "$lines" \
      "$([ -n "$out" ] && echo non-empty || echo empty)" "$err" >&2
    bad=1
  else
    printf 'ok: tools/%s %s -> %s\n' "$script" "$*" "$err"
  fi
}
for s in nightly_example.sh nightly_simulation.sh compare_examples.sh suspects_example.sh; do
  refuses "$s"
  refuses "$s" --out
  refuses "$s" "$tmp/cwd/o" "$tmp/no-such-ftbench"
  refuses "$s" a b c
done
refuses fuzz.sh abc
refuses fuzz.sh 0
refuses fuzz.sh 5 no_such_target
refuses tsan.sh --full
refuses accuracy_example.sh
refuses accuracy_example.sh --out
refuses accuracy_example.sh "$tmp/cwd/o" "$tmp/no-such-ftbench"
refuses accuracy_example.sh a b c
refuses accuracy_summary.py
refuses peer_ratio_table.py
refuses peer_ratio_table.py "$tmp/cwd/none"
refuses first_table.sh
refuses check_rows.py
refuses fixture_row_suite.sh
refuses fixture_row_suite.sh a b
refuses check_rows.py "$tmp/no-such-ftbench" "$root"
refuses check_rows.py "$root/build/ftbench" "$tmp/cwd"
refuses two_nodes.sh only-one
refuses gpu_pack.sh --bogus
refuses gpu_pack.sh a b c
# the no-such-ftbench case must not have made its OUT_DIR either
[ ! -e "$tmp/cwd/o" ] || { echo "FAIL: a refused call made OUT_DIR $tmp/cwd/o" >&2; bad=1; }
[ "$(listing)" = "$before" ] || { echo "FAIL: a refused call wrote under tools/" >&2; bad=1; }
echo "$n calls checked"
exit $bad
