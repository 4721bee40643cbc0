#!/usr/bin/env bash
# Proves the Debian route end to end: a fresh clone of this checkout's HEAD,
# built by tools/setup.sh against Debian 12's libtorch-dev (LibTorch 1.13,
# CPU), its whole test suite, and a short run of every scenario. Prints one
# summary line (LibTorch version, tests passed/total, each row's status) and
# exits non-zero when the build, any test or the run fails, when a row
# fails or is skipped without a reason, or when the build did not use
# Debian's LibTorch. Slow (a full build, 5-10 minutes on 2 cores), so not
# part of .ci/run.
#
#   tools/check_system_torch.sh            clone, build, test, run; removes
#                                          the temporary folder on success
#   FTB_KEEP=1 tools/check_system_torch.sh keeps it (logs, build, report)
#
# Only committed work is checked (the clone is of HEAD). Needs root or sudo
# the first time (setup.sh installs libtorch-dev and the other packages).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${FTB_JOBS:-2}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/ftb-systorch.XXXXXX")"
log() { printf '[check_system_torch] %s\n' "$*" >&2; }
fail() {
  log "FAILED: $1 (logs and build kept in $tmp)"
  [ -n "${2:-}" ] && [ -f "$2" ] && tail -n 40 "$2" >&2
  exit 1
}

commit="$(git -C "$root" rev-parse HEAD)" || fail "not a git checkout: $root"
if [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then
  log "note: $root has uncommitted changes; checking the committed HEAD only"
fi
log "cloning $root at ${commit:0:12} into $tmp/src"
git clone -q --no-checkout "$root" "$tmp/src" && git -C "$tmp/src" checkout -q --detach "$commit" \
  || fail "git clone"
src="$tmp/src"
build="$tmp/build"

# Debian's LibTorch only: a Torch_DIR or CMAKE_PREFIX_PATH in the environment
# would win over FTB_SYSTEM_TORCH in setup.sh.
log "setup.sh with FTB_SYSTEM_TORCH=1 (log: $tmp/setup.log)"
(cd "$src" && env -u Torch_DIR -u CMAKE_PREFIX_PATH FTB_SYSTEM_TORCH=1 FTB_BUILD_DIR="$build" \
  tools/setup.sh) >"$tmp/setup.log" 2>&1 || fail "tools/setup.sh" "$tmp/setup.log"
torch_dir="$(sed -n 's/^Torch_DIR:[A-Z]*=//p' "$build/CMakeCache.txt")"
case "$torch_dir" in
  /usr/*) ;;
  *) fail "the build found LibTorch at '$torch_dir', not Debian's libtorch-dev" ;;
esac

log "ctest -j$jobs (log: $tmp/ctest.log)"
ctest --test-dir "$build" -j"$jobs" --output-on-failure >"$tmp/ctest.log" 2>&1
ctest_rc=$?
counts="$(sed -nE 's/.* tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\1 \2/p' "$tmp/ctest.log" | tail -n 1)"
[ -n "$counts" ] || fail "ctest printed no result line" "$tmp/ctest.log"
read -r failed total <<<"$counts"
passed=$((total - failed))

log "ftbench run, 4 steps per row (log: $tmp/run.log)"
"$build/ftbench" run --out "$tmp/out" epochs=1 max_steps=4 eval_max_batches=2 >"$tmp/run.log" 2>&1
run_rc=$?

# The summary line; exit 1 from python when a row failed or a skip has no reason.
python3 -c '
import json, sys
passed, total, run_rc = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
try:
    with open(sys.argv[1]) as f:
        report = json.load(f)
    version = report["environment"]["libtorch"]["version"]
    rows = [(r["scenario"], r["status"], r.get("reason") or "") for r in report["results"]]
except (OSError, ValueError, KeyError, TypeError) as e:
    print("LibTorch ? | tests %d/%d passed | ftbench run exit %d, no report: %s" % (passed, total, run_rc, e))
    sys.exit(1)
print("LibTorch %s (Debian libtorch-dev) | tests %d/%d passed | ftbench run exit %d: %s"
      % (version, passed, total, run_rc, ", ".join("%s %s" % (name, status) for name, status, _ in rows)))
for name, status, reason in rows:
    if status != "ok":
        print("  %s %s: %s" % (name, status, reason or "(no reason given)"), file=sys.stderr)
bad = [name for name, status, reason in rows if status not in ("ok", "skipped") or (status == "skipped" and not reason)]
sys.exit(1 if bad or not rows else 0)
' "$tmp/out/report.json" "$passed" "$total" "$run_rc"
rows_rc=$?

[ "$ctest_rc" -eq 0 ] && [ "$failed" -eq 0 ] || fail "$failed of $total tests failed" "$tmp/ctest.log"
[ "$run_rc" -eq 0 ] || fail "ftbench run exited $run_rc" "$tmp/run.log"
[ "$rows_rc" -eq 0 ] || fail "a row failed or was skipped without a reason" "$tmp/run.log"
if [ "${FTB_KEEP:-0}" = 1 ]; then log "kept $tmp"; else rm -rf "$tmp"; fi
