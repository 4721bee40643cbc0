#!/usr/bin/env bash
# docs/contributing.md's claim, done for real: a row is its own file plus one
# line in scenarios/CMakeLists.txt, and nothing else. In a fresh clone of this
# checkout's HEAD, tests/fixtures/scenarios/fixture_row.cpp is copied into
# scenarios/ and named in scenarios/CMakeLists.txt after baseline.cpp (the
# only edits: OUT/diff.txt shows them), then README's test command runs
# there: `tools/setup.sh --tests && ctest --test-dir build
# --output-on-failure -j2` (the clone's .venv is a link to this checkout's,
# so LibTorch is not installed again).
#
#   tools/fixture_row_suite.sh OUT
#
# OUT gets: diff.txt (git diff --stat and the diff), setup.log, ctest.log,
# summary.md (the commit, the edit, the build and suite times, ctest's summary
# line and any failed test). Exit: ctest's. About 15 minutes on 2 cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -eq 1 ] && [ "${1#-}" = "$1" ] || { echo "usage: tools/fixture_row_suite.sh OUT" >&2; exit 2; }
[ -x "$root/.venv/bin/python" ] || { echo "tools/fixture_row_suite.sh: $root/.venv: missing (run tools/setup.sh first)" >&2; exit 2; }
mkdir -p "$1"
out="$(cd "$1" && pwd)"
# Beside this checkout, so that ../shared/data (the tests' real IMDB and
# vocabulary, where the machine has them) is the clone's too.
clone="$(mktemp -d "$(dirname "$root")/fixture_row_suite.XXXXXX")"
trap 'rm -rf "$clone"' EXIT

git clone -q "$root" "$clone"
cd "$clone"
commit="$(git rev-parse --short HEAD)"
ln -s "$root/.venv" .venv
cp tests/fixtures/scenarios/fixture_row.cpp scenarios/fixture_row.cpp
sed -i 's/^  baseline\.cpp$/  baseline.cpp\n  fixture_row.cpp/' scenarios/CMakeLists.txt
git add -N scenarios/fixture_row.cpp
{ git diff --stat; echo; git diff; } > "$out/diff.txt"
changed="$(git diff --numstat | awk '{a += $1; d += $2} END {print NR " files, +" a " -" d}')"

start=$SECONDS
tools/setup.sh --tests > "$out/setup.log" 2>&1
setup_s=$((SECONDS - start))
start=$SECONDS
rc=0
ctest --test-dir build --output-on-failure -j2 > "$out/ctest.log" 2>&1 || rc=$?
ctest_s=$((SECONDS - start))

{
  echo "A row added in one file plus one CMake line (\`tools/fixture_row_suite.sh\`), on a fresh clone of $commit:"
  echo
  echo "- the edit: $changed (diff.txt): scenarios/fixture_row.cpp, one line of scenarios/CMakeLists.txt"
  echo "- \`tools/setup.sh --tests\`: $setup_s s; \`ctest --test-dir build --output-on-failure -j2\`: $ctest_s s, exit $rc"
  echo "- ctest: $(grep -E 'tests passed' "$out/ctest.log" | tail -1)"
  grep -q "^fixture_row " <(build/ftbench list) && echo "- \`build/ftbench list\` lists fixture_row"
  failed="$(sed -n '/The following tests FAILED/,$p' "$out/ctest.log" | grep -E '^\s+[0-9]+ - ' || true)"
  [ -z "$failed" ] || { echo "- failed:"; echo "$failed" | sed 's/^\s*/  - /'; }
} > "$out/summary.md"
cat "$out/summary.md"
exit $rc
