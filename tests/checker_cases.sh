#!/usr/bin/env bash
# The repository's own checkers can fail (tools/check_sizes.py,
# tools/check_links.py, tools/check_pages.py): each run on a fixture that breaks its rule and on
# one that keeps it, the exact lines and exit codes pinned.
#   tests/checker_cases.sh SOURCE_DIR CASE [FTBENCH]   (FTBENCH: the rows_* cases)
set -uo pipefail
root="$1"; case_name="$2"; ftbench="${3:-}"
cd "$root" || exit 1
fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
# expect CODE WANT cmd...: exit code CODE and stdout exactly WANT.
expect() {
  local code="$1" want="$2"; shift 2
  local got rc
  got="$("$@" 2>&1)"; rc=$?
  [ "$rc" = "$code" ] || fail "exit $rc, want $code: $got"
  [ "$got" = "$want" ] || fail "output:"$'\n'"$got"$'\n'"want:"$'\n'"$want"
}
sizes=tests/fixtures/sizes links=tests/fixtures/links
case "$case_name" in
  sizes_fail_on_long_file_and_function)
    # long_function.cpp's braces in strings, characters and comments must not end it early
    expect 1 "$sizes/bad/long_file.cpp:1: file is 504 lines (limit 500)
$sizes/bad/long_function.cpp:5: function too_long is 61 lines (limit 60)" python3 tools/check_sizes.py "$sizes/bad" ;;
  sizes_pass_clean)
    # at_limit is 60 lines: within 60, over 59
    expect 0 "" python3 tools/check_sizes.py "$sizes/clean"
    expect 1 "$sizes/clean/tricky.cpp:26: function at_limit is 60 lines (limit 59)" \
      python3 tools/check_sizes.py --max-function-lines 59 "$sizes/clean" ;;
  sizes_bad_path)
    expect 2 "check_sizes: $sizes/none: no such file or folder" python3 tools/check_sizes.py "$sizes/none" ;;
  links_fail_on_bad_links)
    expect 1 "README.md:3: link ../shared/SEED.md is outside the repository
README.md:4: link docs/missing.md: no such file or folder
README.md:5: link /etc/passwd is outside the repository
docs/page.md:3: include ../../secret.md is outside the repository
docs/page.md:4: link ../nowhere/: no such file or folder" python3 tools/check_links.py --root "$links/bad" ;;
  links_pass_good)
    expect 0 "" python3 tools/check_links.py --root "$links/good" ;;
  pages_fail_on_issue_late_recipe_long_item)
    expect 1 "README.md:3: speaks of an issue (issue 36)
README.md:4: speaks of an issue (the issue's)
README.md:5: speaks of the project's past (predates)
README.md:7: a figure typed beside a results/ citation (42 s): include the file that holds it
README.md:8: a figure typed beside a results/ citation (1.10x): include the file that holds it
README.md:16: a figure typed beside a results/ citation (934.3 samples/s): include the file that holds it
README.md:21: a figure typed beside a results/ citation (0.97): include the file that holds it
README.md:25: a figure typed beside a results/ citation (242): include the file that holds it
README.md:11: a command path outside the clone (../shared/data/imdb.tar.gz)
README.md:11: a command path outside the clone (/work/out)
docs/nightly.md:1: no sh block in its first 40 lines (the recipe first)
docs/nightly.md:47: a list item of 151 words (at most 150)" python3 tools/check_pages.py tests/fixtures/pages/bad ;;
  pages_pass_good)
    # 150 words over two lines is within; a fenced block's "- " line is not an item; a figure
    # in an include block, in a paragraph that cites nothing or in an image's alt text; a table
    # citing results/ with no number under its unit column; a key=0.05 setting and a version;
    # /srv and /tmp in commands, /work in a prompted block's output, ../ in a text block
    expect 0 "" python3 tools/check_pages.py tests/fixtures/pages/good ;;
  rows_fail_on_unknown_names)
    # tools/check_rows.py: names in --scenarios lists, rows= and SCENARIOS:- defaults, and the
    # reference's row table (a prefix* matches a row's start; a command in backticks is not a name)
    expect 1 "README.md:3: 'nosuch' is not a row of \`ftbench list\`
tools/run.sh:2: 'ghost' is not a row of \`ftbench list\`
docs/reference.md:7: 'zero9' is not a row of \`ftbench list\`
docs/reference.md:9: 'nope*' is not a row of \`ftbench list\`
check_rows: 12 row names in docs and tools, 4 unknown" python3 tools/check_rows.py "$ftbench" tests/fixtures/rows/bad ;;
  rows_pass_good)
    expect 0 "check_rows: 9 row names in docs and tools, 0 unknown" python3 tools/check_rows.py "$ftbench" tests/fixtures/rows/good ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
