# Sourced by every script of tests/cli/ (one per ftbench command): the
# arguments, a temporary folder removed on exit, and the helpers the cases
# share. A case runs alone:
#   tests/cli/<command>.sh build/ftbench tests/fixtures <case>
# (ctest names each cli.<case>; tests/CMakeLists.txt finds the cases in the
# scripts' `case` labels).
set -uo pipefail
ftbench="$1"; fixtures="$2"; case_name="$3"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
# skip WHY: the case cannot run here; exit 77, which every cli.* entry has as
# its SKIP_RETURN_CODE, so ctest lists it as skipped, not passed.
skip() { echo "skipped [$case_name]: $*"; exit 77; }

# expect_error CODE NEEDLE cmd...: exit code CODE, exactly one error line
# (starting with "ftbench:") that contains NEEDLE; progress lines may precede it.
expect_error() {
  local code="$1" needle="$2"; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  [ "$rc" = "$code" ] || fail "exit $rc, want $code; stderr: $(cat "$tmp/err")"
  [ "$(grep -c '^ftbench: ' "$tmp/err")" = 1 ] || fail "want one 'ftbench:' error line, got: $(cat "$tmp/err")"
  [ "$(tail -n 1 "$tmp/err" | cut -c1-9)" = "ftbench: " ] || fail "the error is not the last line: $(cat "$tmp/err")"
  grep '^ftbench: ' "$tmp/err" | grep -qF -- "$needle" || fail "message does not name '$needle': $(cat "$tmp/err")"
}
model_copy() { cp -r "$fixtures/golden_model" "$tmp/m"; }
# safetensors_edit IN OUT DROP_REGEX [NAME=D0xD1 ...]: a copy of a safetensors
# file without the tensors whose names match DROP_REGEX, plus F32 zero tensors
# (stdlib only: the `safetensors` package need not be installed).
safetensors_edit() {
  python3 - "$@" <<'PY'
import json, re, struct, sys
src, dst, drop, *add = sys.argv[1:]
raw = open(src, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header, data = json.loads(raw[8:8 + n]), raw[8 + n:]
meta = header.pop("__metadata__", {"format": "pt"})
tensors = [(k, v["dtype"], v["shape"], data[v["data_offsets"][0]:v["data_offsets"][1]])
           for k, v in header.items() if not re.match(drop, k)]
for spec in add:
    name, dims = spec.split("=")
    shape = [int(d) for d in dims.split("x")]
    count = 1
    for d in shape: count *= d
    tensors.append((name, "F32", shape, bytes(4 * count)))
out, blobs, offset = {"__metadata__": meta}, [], 0
for name, dtype, shape, blob in tensors:
    out[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(blob)]}
    blobs.append(blob); offset += len(blob)
h = json.dumps(out).encode()
open(dst, "wb").write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
PY
}
# Committed reports (results/ beside tests/) and the committed smoke report.
results="$(cd "$fixtures/../../results" && pwd)"
smoke_report="$fixtures/../../results/cpu-smoke-2026-11-30/report.json"
# threads=1: ctest runs two checks at once on 2 cores
tiny=(epochs=1 synthetic_count=200 max_steps=3 eval_max_batches=2 prefetch=1 threads=1 repeats=1)
# rss_of FILE cmd...: runs cmd, writes its peak resident memory (KiB) to
# FILE, returns its exit code (huge_* cases: bounded memory).
rss_of() {
  python3 - "$@" <<'PY'
import os, subprocess, sys
out, cmd = sys.argv[1], sys.argv[2:]
p = subprocess.Popen(cmd)
_, status, usage = os.wait4(p.pid, 0)
open(out, "w").write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
PY
}
# rss_within BASE_FILE FILE MIB: FILE's peak is at most MIB above BASE_FILE's.
rss_within() {
  local base got; base="$(cat "$1")"; got="$(cat "$2")"
  [ $((got - base)) -le $(($3 * 1024)) ] || fail "peak memory $((got / 1024)) MiB, $(((got - base) / 1024)) MiB above a normal input's (bound: $3 MiB)"
  echo "peak memory $((got / 1024)) MiB ($(((got - base) / 1024)) MiB above a normal input's)"
}
