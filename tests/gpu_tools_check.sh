#!/usr/bin/env bash
# The CPU-side checks of the GPU tools (issue 20): tools/gpu_quick.sh's
# argument handling and its stop on a machine without CUDA, and
# tools/gpu_pack.sh's pack against the device tool's 64 MiB carry limit.
#
#   tests/gpu_tools_check.sh CASE [SOURCE_DIR [BUILD_DIR]]
#   CASE: quick_without_cuda | quick_pack_mismatch | quick_bad_args | pack_under_limit
# Exit 0 pass, 1 fail, 77 skipped (pack_under_limit without a CUDA build).
set -uo pipefail
case_name="${1:?usage: gpu_tools_check.sh CASE [SOURCE_DIR [BUILD_DIR]]}"
root="$(cd "${2:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)"
build="${3:-$root/build}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/gpu_tools_check.XXXXXX")"
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
bad=0 group_bad=0
fail() { printf 'FAIL: %s\n' "$*" >&2; bad=1 group_bad=1; }
pass() {  # ends a group of checks: "ok" only where none of them failed
  [ "$group_bad" = 1 ] || printf 'ok: %s\n' "$*"
  group_bad=0
}

# A copy of the scripts in a sandbox ($tmp/box: repo copy, HOME, TMPDIR, cwd),
# so that "nothing written outside OUT_DIR" can be checked by listing the box.
box="$tmp/box" cap="$tmp/cap"
mkdir -p "$box/repo/tools" "$box/home" "$box/tmp" "$box/cwd" "$box/bin" "$cap"
cp "$root/tools/gpu_quick.sh" "$root/tools/gpu_env.sh" "$box/repo/tools/"
snapshot() { (cd "$box" && find . -path ./out -prune -o -printf '%y %p %s %T@\n' | sort); }

# quick LABEL WANT_RC OUT_DIR_OR_NOTHING [ENV...] -- runs the copied gpu_quick.sh in the box
quick() {
  local label="$1" want="$2"
  shift 2
  local envs=() args=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  args=("$@")
  local before after rc lines
  before="$(snapshot)"
  (cd "$box/cwd" && env HOME="$box/home" TMPDIR="$box/tmp" "${envs[@]}" "$box/repo/tools/gpu_quick.sh" "${args[@]}") \
    >"$cap/stdout" 2>"$cap/stderr"
  rc=$?
  after="$(snapshot)"
  lines=$(awk 'END {print NR}' "$cap/stderr")
  [ "$rc" = "$want" ] || fail "$label: exit $rc, expected $want (stderr: $(head -c 300 "$cap/stderr"))"
  [ "$lines" = 1 ] || fail "$label: $lines lines on stderr, expected one: $(head -c 300 "$cap/stderr")"
  [ ! -s "$cap/stdout" ] || fail "$label: wrote to stdout: $(head -c 200 "$cap/stdout")"
  [ "$before" = "$after" ] || fail "$label: wrote outside OUT_DIR: $(diff <(echo "$before") <(echo "$after") | head -5 | tr '\n' ' ')"
  STDERR="$(cat "$cap/stderr")"
}

fake() {  # fake NAME EXIT_CODE: an executable in the box's bin that only exits
  printf '#!/bin/sh\nexit %s\n' "$2" >"$box/bin/$1"
  chmod +x "$box/bin/$1"
}

case "$case_name" in
quick_without_cuda)
  quick "forced" 2 FTB_GPU_QUICK_FORCE_NO_CUDA=1 -- "$box/out"
  [ ! -e "$box/out" ] || fail "forced: OUT_DIR was made (nothing should be written)"
  case "$STDERR" in *CUDA*) ;; *) fail "forced: the line does not say CUDA is missing: $STDERR" ;; esac
  pass "FTB_GPU_QUICK_FORCE_NO_CUDA=1: exit 2, one line, nothing written ($STDERR)"

  # The real checks, with stand-ins: no nvidia-smi, a failing one, a torch without CUDA.
  if ! PATH="/usr/bin:/bin" command -v nvidia-smi >/dev/null 2>&1; then
    quick "no nvidia-smi" 2 PATH="/usr/bin:/bin" -- "$box/out"
    case "$STDERR" in *nvidia-smi*) ;; *) fail "no nvidia-smi: the line does not name it: $STDERR" ;; esac
    pass "no nvidia-smi: $STDERR"
  fi
  fake nvidia-smi 9
  quick "failing nvidia-smi" 2 PATH="$box/bin:$PATH" -- "$box/out"
  case "$STDERR" in *nvidia-smi*) ;; *) fail "failing nvidia-smi: the line does not name it: $STDERR" ;; esac
  pass "failing nvidia-smi: $STDERR"
  fake nvidia-smi 0
  fake python-nocuda 4
  quick "torch without CUDA" 2 PATH="$box/bin:$PATH" PYTHON="$box/bin/python-nocuda" -- "$box/out"
  case "$STDERR" in *is_available*) ;; *) fail "torch without CUDA: the line does not say so: $STDERR" ;; esac
  pass "torch without CUDA: $STDERR"
  fake python-notorch 3
  quick "no torch" 2 PATH="$box/bin:$PATH" PYTHON="$box/bin/python-notorch" -- "$box/out"
  case "$STDERR" in *torch*) ;; *) fail "no torch: the line does not say so: $STDERR" ;; esac
  pass "no torch: $STDERR"
  # An existing OUT_DIR is left as it was.
  mkdir -p "$box/out" && echo keep >"$box/out/earlier.txt"
  quick "existing OUT_DIR" 2 FTB_GPU_QUICK_FORCE_NO_CUDA=1 -- "$box/out"
  [ "$(ls -A "$box/out")" = earlier.txt ] && [ "$(cat "$box/out/earlier.txt")" = keep ] ||
    fail "existing OUT_DIR: its contents changed: $(ls -A "$box/out" | tr '\n' ' ')"
  pass "an existing OUT_DIR stays as it was"
  ;;

quick_pack_mismatch)
  # A machine whose driver or torch does not fit the pack: stopped in seconds,
  # before any stage, with what to do (issue 43, 4). Stand-ins: nvidia-smi
  # reporting a CUDA 12.4 driver, a python with CUDA torch, a carried pack.
  printf '#!/bin/sh\n[ "$1" = -L ] && { echo "GPU 0: NVIDIA H100"; exit 0; }\necho "| NVIDIA-SMI 550.54   Driver Version: 550.54   CUDA Version: %s |"\n' "${FTB_TEST_DRIVER_CUDA:-12.4}" >"$box/bin/nvidia-smi"
  printf '#!/bin/sh\necho 2.11.0+cu130\n' >"$box/bin/python-cu130"
  printf '#!/bin/sh\necho 2.10.0+cu130\n' >"$box/bin/python-other"
  chmod +x "$box/bin/nvidia-smi" "$box/bin/python-cu130" "$box/bin/python-other"
  carry="$box/carry"
  mkdir -p "$carry/build/tests"
  printf '#!/bin/sh\nexit 0\n' >"$carry/build/ftbench"; cp "$carry/build/ftbench" "$carry/build/tests/ftb_tests"
  chmod +x "$carry/build/ftbench" "$carry/build/tests/ftb_tests"
  echo 2.11.0+cu130 >"$carry/TORCH"
  t0=$SECONDS
  quick "cu130 pack, CUDA 12.4 driver" 2 PATH="$box/bin:$PATH" PYTHON="$box/bin/python-cu130" FTB_GPU_CARRY="$carry" -- "$box/out"
  [ ! -e "$box/out" ] || fail "driver mismatch: OUT_DIR was made"
  case "$STDERR" in *"CUDA 12.4"*+cu12x*) ;; *) fail "driver mismatch: the line does not say the driver's CUDA and what to do: $STDERR" ;; esac
  [ $((SECONDS - t0)) -le 10 ] || fail "driver mismatch: took $((SECONDS - t0)) s to stop"
  pass "cu130 pack on a CUDA 12.4 driver: exit 2 in $((SECONDS - t0)) s, nothing written ($STDERR)"
  quick "torch differs" 2 PATH="$box/bin:$PATH" PYTHON="$box/bin/python-other" FTB_GPU_CARRY="$carry" -- "$box/out"
  case "$STDERR" in *2.11.0+cu130*2.10.0+cu130*) ;; *) fail "torch mismatch: the line does not name both: $STDERR" ;; esac
  pass "pack of another torch: exit 2 ($STDERR)"
  # A fitting machine gets past the check (then fails later on the stand-in binaries).
  sed -i 's/CUDA Version: [0-9.]*/CUDA Version: 13.0/' "$box/bin/nvidia-smi"
  (cd "$box/cwd" && env HOME="$box/home" TMPDIR="$box/tmp" PATH="$box/bin:$PATH" PYTHON="$box/bin/python-cu130" \
    FTB_GPU_CARRY="$carry" FTB_GPU_QUICK_BUDGET_S=5 FTB_GPU_QUICK_TESTS_S=1 FTB_GPU_QUICK_RUN_S=1 FTB_GPU_QUICK_PROFILE_S=0 \
    "$box/repo/tools/gpu_quick.sh" "$box/fits") >"$cap/stdout" 2>"$cap/stderr"
  grep -q "driver supports CUDA" "$cap/stderr" && fail "a CUDA 13.0 driver was refused: $(head -c 300 "$cap/stderr")"
  [ -d "$box/fits" ] || fail "a fitting pack stopped before OUT_DIR: $(head -c 300 "$cap/stderr")"
  pass "cu130 pack on a CUDA 13.0 driver goes on to the stages"
  ;;

quick_bad_args)
  quick "no argument" 2 FTB_GPU_QUICK_FORCE_NO_CUDA=0 --
  case "$STDERR" in *usage*OUT_DIR*) ;; *) fail "no argument: not a usage line: $STDERR" ;; esac
  pass "no argument: $STDERR"
  quick "empty argument" 2 FTB_GPU_QUICK_FORCE_NO_CUDA=0 -- ""
  pass "empty argument: $STDERR"
  quick "unknown option" 2 FTB_GPU_QUICK_FORCE_NO_CUDA=0 -- --bogus
  case "$STDERR" in *--bogus*) ;; *) fail "unknown option: the line does not name it: $STDERR" ;; esac
  pass "unknown option: $STDERR"
  echo data >"$box/a-file"
  quick "OUT_DIR is a file" 2 FTB_GPU_QUICK_FORCE_NO_CUDA=0 -- "$box/a-file"
  case "$STDERR" in *"$box/a-file"*) ;; *) fail "OUT_DIR is a file: the line does not name it: $STDERR" ;; esac
  [ "$(cat "$box/a-file")" = data ] || fail "OUT_DIR is a file: the file changed"
  pass "OUT_DIR is a file: $STDERR"
  quick "OUT_DIR under a file" 2 FTB_GPU_QUICK_FORCE_NO_CUDA=0 -- "$box/a-file/sub/dir"
  case "$STDERR" in *"$box/a-file/sub/dir"*) ;; *) fail "OUT_DIR under a file: the line does not name it: $STDERR" ;; esac
  pass "OUT_DIR under a file: $STDERR"
  if [ "$(id -u)" != 0 ]; then  # root writes anywhere: only checked as a user
    mkdir -p "$box/ro" && chmod 555 "$box/ro"
    quick "unwritable OUT_DIR" 2 FTB_GPU_QUICK_FORCE_NO_CUDA=0 -- "$box/ro"
    case "$STDERR" in *"$box/ro"*writable*) ;; *) fail "unwritable OUT_DIR: the line does not say so: $STDERR" ;; esac
    pass "unwritable OUT_DIR: $STDERR"
    quick "OUT_DIR in an unwritable folder" 2 FTB_GPU_QUICK_FORCE_NO_CUDA=0 -- "$box/ro/new"
    case "$STDERR" in *"$box/ro/new"*) ;; *) fail "OUT_DIR in an unwritable folder: the line does not name it: $STDERR" ;; esac
    pass "OUT_DIR in an unwritable folder: $STDERR"
    chmod 755 "$box/ro"
  fi
  ;;

pack_under_limit)
  for exe in ftbench tests/ftb_tests; do
    [ -x "$build/$exe" ] || { echo "skipped: no $build/$exe (build first)"; exit 77; }
  done
  # What goes to a GPU machine is the Release build; a sanitizer or Debug build
  # (tools/asan.sh runs this suite in build-asan/) is larger and never packed.
  btype="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)"
  if grep -q -- '-fsanitize' "$build/CMakeCache.txt" 2>/dev/null || [ "${btype:-Release}" != Release ]; then
    echo "skipped: $build is a ${btype:-?} build$(grep -q -- '-fsanitize' "$build/CMakeCache.txt" && echo ' with sanitizers'); the pack is made from a Release build"
    exit 77
  fi
  case "$(ldd "$build/ftbench")" in  # (not `ldd | grep -q`: with pipefail a SIGPIPE'd ldd fails it)
    *libtorch_cuda.so*) ;;
    *) echo "skipped: $build/ftbench links a LibTorch without CUDA: nothing for a GPU machine to run"; exit 77 ;;
  esac
  limit=$((64 * 1048576))
  repo_pack_before="$(cat "$root/.gpu-carry/MANIFEST" 2>/dev/null | md5sum)"

  # Refuses to replace a folder that is not an earlier pack.
  mkdir -p "$tmp/notpack" && echo mine >"$tmp/notpack/file"
  "$root/tools/gpu_pack.sh" --no-build "$build" "$tmp/notpack" >"$tmp/np.out" 2>"$tmp/np.err"
  rc=$?
  [ "$rc" = 1 ] && [ "$(cat "$tmp/notpack/file")" = mine ] ||
    fail "a folder that is not a pack: exit $rc (want 1), or it was replaced: $(cat "$tmp/np.err")"
  pass "refuses to replace a folder that is not a pack: $(tail -1 "$tmp/np.err")"

  # Refuses a build configured without nccl.h (issue 43, 5): the same binaries,
  # a cache saying the NCCL process group was left out.
  mkdir -p "$tmp/nonccl/tests"
  ln -s "$build/ftbench" "$tmp/nonccl/ftbench"; ln -s "$build/tests/ftb_tests" "$tmp/nonccl/tests/ftb_tests"
  sed 's/^FTB_WITH_NCCL:INTERNAL=.*/FTB_WITH_NCCL:INTERNAL=OFF/' "$build/CMakeCache.txt" >"$tmp/nonccl/CMakeCache.txt"
  "$root/tools/gpu_pack.sh" --no-build "$tmp/nonccl" "$tmp/nonccl_pack" >"$tmp/nn.out" 2>"$tmp/nn.err"
  rc=$?
  [ "$rc" = 1 ] && [ ! -e "$tmp/nonccl_pack" ] && grep -q 'nccl.h' "$tmp/nn.err" ||
    fail "a build without NCCL: exit $rc (want 1, nothing packed, naming nccl.h): $(cat "$tmp/nn.err")"
  pass "refuses a build without the NCCL process group: $(tail -1 "$tmp/nn.err")"

  start=$(date +%s)
  "$root/tools/gpu_pack.sh" --no-build "$build" "$tmp/carry" >"$tmp/pack.out" 2>"$tmp/pack.err"
  rc=$?
  cat "$tmp/pack.err"
  [ "$rc" = 0 ] || { fail "gpu_pack.sh exited $rc"; exit 1; }
  size=$(du -sb "$tmp/carry" | cut -f1)
  [ "$size" -le "$limit" ] || fail "the pack is $size bytes, over the 64 MiB carry limit"
  [ "$(tail -1 "$tmp/pack.out")" = "$size" ] || fail "gpu_pack.sh printed $(tail -1 "$tmp/pack.out") bytes, du says $size"
  pass "pack: $size bytes ($(awk -v b="$size" 'BEGIN {printf "%.1f", b / 1048576}') MiB) <= 64 MiB, made in $(( $(date +%s) - start )) s"
  for f in build/ftbench build/tests/ftb_tests; do
    [ -x "$tmp/carry/$f" ] || fail "no executable $f in the pack"
  done
  for f in COMMIT TORCH MANIFEST build/CTestTestfile.cmake build/tests/CTestTestfile.cmake; do
    [ -s "$tmp/carry/$f" ] || fail "no $f in the pack"
  done
  [ -z "$(find "$tmp/carry" -name '*.o' -o -name '*.a' -o -path '*/CMakeFiles/*' | head -1)" ] || fail "objects or CMakeFiles in the pack"

  # On the GPU machine: the compressed libraries unpack (tools/gpu_env.sh) to
  # the very files this build loads, and every library that is not glibc's,
  # the compiler runtime's, LibTorch's or CUDA's is found in the pack.
  . "$root/tools/gpu_env.sh"
  ftb_gpu_unpack_libs "$tmp/carry" || fail "ftb_gpu_unpack_libs failed"
  not_carried="$ftb_gpu_system_libs|$ftb_gpu_provided_libs"
  for exe in ftbench tests/ftb_tests; do
    while read -r name path; do
      [[ "$name $path" =~ $not_carried ]] && continue
      if [ ! -e "$tmp/carry/lib/$name" ]; then
        fail "$exe loads $name ($path): not in the pack"
      elif ! cmp -s "$tmp/carry/lib/$name" "$path"; then
        fail "the pack's $name differs from $path (after unpacking)"
      fi
    done < <(ldd "$build/$exe" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
    # With the pack's lib/ first on the loader path, they resolve there.
    outside="$(LD_LIBRARY_PATH="$tmp/carry/lib" ldd "$tmp/carry/build/$exe" |
      awk '$2 == "=>" {print $1, $3}' | grep -v -E "$ftb_gpu_system_libs" | grep -v -E "$ftb_gpu_provided_libs" |
      grep -v -F "$tmp/carry/lib/" || true)"
    [ -z "$outside" ] || fail "$exe: libraries resolved outside the pack: $(echo "$outside" | tr '\n' ' ')"
  done
  pass "every carried library unpacks to the file the build loads, and resolves from the pack"

  # Over the limit: a clear message and exit 1.
  FTB_GPU_PACK_LIMIT_MIB=1 "$root/tools/gpu_pack.sh" --no-build "$build" "$tmp/carry" >/dev/null 2>"$tmp/over.err"
  rc=$?
  [ "$rc" = 1 ] && grep -q "OVER THE LIMIT" "$tmp/over.err" ||
    fail "over the limit: exit $rc (want 1) or no clear message: $(cat "$tmp/over.err")"
  pass "over the limit: $(grep "OVER THE LIMIT" "$tmp/over.err")"
  [ "$(cat "$root/.gpu-carry/MANIFEST" 2>/dev/null | md5sum)" = "$repo_pack_before" ] || fail "the repository's .gpu-carry changed"
  ;;

*)
  echo "unknown case $case_name (quick_without_cuda | quick_bad_args | pack_under_limit)" >&2
  exit 2
  ;;
esac
exit "$bad"
