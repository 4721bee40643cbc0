#!/usr/bin/env bash
# Times README's two commands from a fresh clone, as a new user meets them
# (issue 27), and writes what each stage took into OUT:
#
#   tools/first_table.sh OUT [--apt] [--tests]
#   tools/first_table.sh --render OUT     re-writes OUT/timing.md from OUT's logs
#
#   1. git clone of this checkout's HEAD into a temporary folder;
#   2. README's first command there, `tools/setup.sh && build/ftbench run`
#      (its report folder: OUT/run/), wall clock from before the clone;
#   3. with --tests, README's second command in the same clone,
#      `tools/setup.sh --tests && ctest --test-dir build --output-on-failure -j2`.
#
# --apt (root only): first removes the Debian packages tools/setup.sh installs
# that are present (not their dependencies) and empties apt's package cache,
# so setup downloads and installs them as on a fresh machine (the dependencies
# they share with the base system stay installed: a lower bound). Without it
# the apt stage is what this machine already has.
#
# OUT gets: setup-and-run.log (setup's stage lines and the run's console),
# tests.log, run/ (table.md, report.json, ...), timing.md (the table of
# stages: each setup stage's seconds as setup printed them, the run, and the
# machine's measured fp32 matmul peak from the report), timing.env (the
# measured seconds and flags timing.md is rendered from).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 1 ] || { echo "usage: tools/first_table.sh OUT [--apt] [--tests] | --render OUT" >&2; exit 2; }

# render OUT: timing.md from OUT/timing.env and the logs.
render() {
  local out="$1" peak cpu setup_total run_line
  # shellcheck disable=SC1091
  . "$out/timing.env"
  {
    echo "README's commands from a fresh clone of commit $commit (\`tools/first_table.sh\`):"
    echo
    peak="$(python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['environment']; print('%.3f' % e['peak_matmul_tflops']['by_precision']['fp32'])" "$out/run/report.json" 2>/dev/null || echo '?')"
    cpu="$(python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['environment']; print(e['cpu']['model'])" "$out/run/report.json" 2>/dev/null || echo '?')"
    echo "Machine: '$cpu', $cores cores, measured fp32 matmul peak $peak TFLOP/s (run/report.json)."
    if [ "$no_pip_cache" = 1 ]; then echo "PIP_NO_CACHE_DIR was set: pip downloaded every wheel, as on a fresh machine."
    else echo "pip's cache was used where it held a wheel (set PIP_NO_CACHE_DIR=1 to download as a fresh machine does)."; fi
    if [ "$apt" = 1 ]; then echo "Debian packages removed first and apt's cache emptied (apt-removed.txt): the apt stage downloads and installs them; their dependencies already on the machine stay (a lower bound)."; fi
    echo
    echo "| stage | seconds |"
    echo "| --- | ---: |"
    echo "| git clone | $clone_s |"
    sed -nE 's/^\[setup\] ([^:]+): (.*) \(([0-9]+) s\)$/| setup: \1 (\2) | \3 |/p' "$out/setup-and-run.log"
    setup_total="$(sed -nE 's/^\[setup\] ready: .*\(total ([0-9]+) s\)$/\1/p' "$out/setup-and-run.log" | tail -1)"
    run_line="$(grep -E '^\[suite\]' "$out/setup-and-run.log" | tail -1 || true)"
    echo "| \`ftbench run\` (last progress line: ${run_line:-none}) | $((first_table_s - clone_s - setup_total)) |"
    echo "| **first table (from before git clone)** | **$first_table_s** |"
    if [ -n "$tests_s" ]; then
      echo "| test command (\`tools/setup.sh --tests && ctest\`, after the first) | $tests_s |"
      echo
      echo "ctest: $(grep -E 'tests passed|tests failed' "$out/tests.log" | tail -1)"
    fi
  } >"$out/timing.md"
  cat "$out/timing.md"
}
if [ "$1" = --render ]; then
  [ $# -eq 2 ] && [ -f "$2/timing.env" ] || { echo "first_table.sh: --render OUT: OUT/timing.env is missing" >&2; exit 2; }
  render "$2"; exit 0
fi

out="$1"; shift
apt=0 tests=0
for arg in "$@"; do
  case "$arg" in
    --apt) apt=1 ;;
    --tests) tests=1 ;;
    *) echo "first_table.sh: unknown option $arg (--apt, --tests)" >&2; exit 2 ;;
  esac
done
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  echo "first_table.sh: $out: exists and is not empty" >&2; exit 2
fi
mkdir -p "$out"; out="$(cd "$out" && pwd)"
if [ "$apt" = 1 ] && [ "$(id -u)" -ne 0 ]; then echo "first_table.sh: --apt needs root" >&2; exit 2; fi

clone="$(mktemp -d /tmp/ftb-first-table.XXXXXX)"
trap 'rm -rf "$clone"' EXIT
commit="$(git -C "$root" rev-parse --short HEAD)"

if [ "$apt" = 1 ]; then
  # setup's package list for the commands measured (--tests: the test command's too)
  mapfile -t pkgs < <(bash -c "tests=$tests; $(sed -n '/^pkgs=(/,/^if \[ "\$tests" = 1 \]; then pkgs+=/p' "$root/tools/setup.sh"); printf '%s\n' \"\${pkgs[@]}\"")
  present=()
  for p in "${pkgs[@]}"; do
    case "$p" in build-essential|python3-venv|git) continue ;; esac  # the base of a build machine
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && present+=("$p")
  done
  echo "removing ${present[*]}" | tee "$out/apt-removed.txt"
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -q "${present[@]}" >>"$out/apt-removed.txt" 2>&1
  apt-get clean
fi

start=$SECONDS
git clone -q "$root" "$clone/ftbench"
cd "$clone/ftbench"
clone_s=$((SECONDS - start))
{ tools/setup.sh && build/ftbench run --out "$out/run"; } >"$out/setup-and-run.log" 2>&1
first_table_s=$((SECONDS - start))
tests_s=""
if [ "$tests" = 1 ]; then
  s=$SECONDS
  { tools/setup.sh --tests && ctest --test-dir build --output-on-failure -j2; } >"$out/tests.log" 2>&1 || true
  tests_s=$((SECONDS - s))
fi

cat >"$out/timing.env" <<EOF
commit=$commit
cores=$(nproc)
apt=$apt
no_pip_cache=$([ -n "${PIP_NO_CACHE_DIR:-}" ] && echo 1 || echo 0)
clone_s=$clone_s
first_table_s=$first_table_s
tests_s=$tests_s
EOF
render "$out"
