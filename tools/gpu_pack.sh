#!/usr/bin/env bash
# Builds and packs what tools/gpu_quick.sh and tools/gpu_check.sh need to test
# ftbench on a GPU machine that has no Debian dev packages and no internet (the
# lent H200: Ubuntu 24.04, torch 2.11.0+cu130 in its python3; a pack is for
# the +cuXXX wheel it was built against, recorded in TORCH, and
# tools/gpu_quick.sh refuses a machine whose driver or torch does not fit it),
# refuses a build without the NCCL process group, and checks the
# pack against the device tool's 64 MiB limit (exit 1 over it), and says what
# travels with it: the working tree's tracked and untracked-not-ignored files
# count toward the same 64 MiB (a warning where both together pass it).
#
#   tools/gpu_pack.sh [--no-build] [BUILD_DIR [DEST]]
#     BUILD_DIR  default build/ (configured against the torch wheel's LibTorch, CUDA build)
#     DEST       default $FTB_GPU_CARRY, else .gpu-carry/ (ignored by git; name it in `carry`)
#     --no-build pack what BUILD_DIR holds (default: `cmake --build BUILD_DIR` first)
#   FTB_GPU_PACK_LIMIT_MIB   the limit checked (default 64); over it: exit 1
#   FTB_GPU_PACK_SKIP_LIBS   extended regex of library names not to carry (default none)
#
# What goes in:
#   build/  the build tree's executables (stripped copies: --strip-unneeded) and
#           CTest files; no objects, CMakeFiles/, Testing/, build.ninja (the
#           GPU machine cannot rebuild: no Debian dev packages);
#   lib/    every shared library those executables load that is not glibc's,
#           libstdc++/libgcc_s, LibTorch's or CUDA's (the GPU machine's torch
#           wheel has LibTorch, CUDA, cuDNN and NCCL; tools/gpu_env.sh points the
#           loader at them). That is libarchive and what it pulls (libxml2, ICU,
#           nettle, the compressors), utf8proc, libcsv, sqlite3. Libraries over
#           1 MiB are stored xz-compressed as NAME.xz (ICU's data: 31 MB -> 7 MB)
#           and unpacked on the GPU machine by ftb_gpu_unpack_libs (gpu_env.sh).
#           Everything is carried, even libraries Ubuntu's base image has
#           (zlib, xz, zstd, lz4, bz2, acl: 1.3 MB together), because the
#           carried Debian 12 builds are the ones the binaries were linked and
#           tested with, and skipping them would save little.
#   COMMIT, TORCH (the LibTorch version linked), MANIFEST (sizes).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
say() { printf 'gpu_pack: %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }

do_build=1
if [ "${1:-}" = "--no-build" ]; then do_build=0; shift; fi
case "${1:-}" in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; -*) say "unknown option $1 (see --help)"; exit 2 ;; esac
[ $# -le 2 ] || { say "too many arguments: $* (usage: tools/gpu_pack.sh [--no-build] [BUILD_DIR [DEST]])"; exit 2; }
build="${1:-$root/build}"
dest="${2:-${FTB_GPU_CARRY:-$root/.gpu-carry}}"
limit_mib="${FTB_GPU_PACK_LIMIT_MIB:-64}"
xz_over=1048576

[ -d "$build" ] || fail "no build folder $build (tools/setup.sh, or cmake -S . -B build against the torch wheel)"
build="$(cd "$build" && pwd)"
case "$dest" in /*) ;; *) dest="$PWD/$dest" ;; esac
# DEST is replaced as a whole: never a folder that is not an earlier pack.
if [ -e "$dest" ] && { [ ! -d "$dest" ] || { [ -n "$(ls -A "$dest")" ] && [ ! -e "$dest/MANIFEST" ] && [ ! -e "$dest/COMMIT" ]; }; }; then
  fail "$dest exists and is not an earlier pack (no MANIFEST or COMMIT): not replacing it"
fi
case "$dest" in "$root"|"$root/"|"$build"|"$build/"*|/) fail "refusing to pack into $dest" ;; esac

if [ "$do_build" = 1 ]; then
  say "building $build"
  cmake --build "$build" >&2 || fail "the build failed (see above); nothing packed"
fi
for exe in ftbench tests/ftb_tests; do
  [ -x "$build/$exe" ] || fail "$build/$exe is missing: build it first (cmake --build $build)"
done
# The GPU machine runs CUDA rows only with a CUDA LibTorch. (ldd's output is
# read whole, never through `grep -q`/`awk exit`: with pipefail, an ldd cut off
# by SIGPIPE fails the pipeline.)
ftbench_libs="$(ldd "$build/ftbench")" || fail "ldd cannot read $build/ftbench"
case "$ftbench_libs" in *libtorch_cuda.so*) ;; *) fail "$build/ftbench links a LibTorch without CUDA (no libtorch_cuda.so): configure against a CUDA torch wheel (+cuXXX)" ;; esac
# Without nccl.h at configure time every distributed CUDA row is skipped: a
# GPU window spent on such a binary shows nothing of NCCL.
grep -q '^FTB_WITH_NCCL:INTERNAL=ON$' "$build/CMakeCache.txt" 2>/dev/null ||
  fail "$build was configured without nccl.h (FTB_WITH_NCCL not ON in CMakeCache.txt): the NCCL process group is left out; install the nvidia-nccl wheel torch uses (or the CUDA toolkit's NCCL) and reconfigure"

stage="$(mktemp -d "${TMPDIR:-/tmp}/gpu_pack.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/build" "$stage/lib"

# 1. The build tree without objects (nor the libFuzzer build ctest fuzz.run
#    makes in fuzz-build/: clang, ASan, no LibTorch, nothing a GPU runs);
#    executables stripped.
(cd "$build" && find . -type f ! -name '*.o' ! -name '*.gch' ! -name '*.pch' ! -name '*.a' \
   ! -path '*/CMakeFiles/*' ! -path './Testing/*' ! -path './fuzz-build/*' ! -name '.ninja*' ! -name '*.log' ! -name build.ninja \
   ! -name compile_commands.json -print0) >"$stage/files"
rc=0
tar -C "$build" --null -T "$stage/files" --ignore-failed-read --warning=no-file-changed \
  --warning=no-file-removed -cf "$stage/build.tar" || rc=$?
[ "$rc" -le 1 ] || fail "could not read the build tree (tar exit $rc)"  # 1: a file changed while read (a test running)
tar -C "$stage/build" -xf "$stage/build.tar"
rm -f "$stage/build.tar" "$stage/files"
is_elf() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]; }
elves=()
while IFS= read -r -d '' f; do
  if is_elf "$f"; then elves+=("$f"); fi  # (not `is_elf && ...`: a last non-ELF would end the loop with 1, and set -e the script)
done < <(find "$stage/build" -type f -perm -u+x -print0)
if command -v strip >/dev/null 2>&1; then
  for f in "${elves[@]}"; do strip --strip-unneeded "$f" 2>/dev/null || say "could not strip ${f#"$stage/"} (kept as is)"; done
else
  say "no strip here (binutils): executables packed unstripped"
fi

# 2. Their libraries, but not glibc's, the compiler runtime's, LibTorch's or CUDA's.
. "$root/tools/gpu_env.sh"  # ftb_gpu_system_libs, ftb_gpu_provided_libs
missing="$(for f in "${elves[@]}"; do ldd "$f" 2>/dev/null | grep 'not found' || true; done | sort -u)"
[ -z "$missing" ] || fail "libraries not found for the packed executables: $(echo "$missing" | awk '{print $1}' | tr '\n' ' ')"
for f in "${elves[@]}"; do { ldd "$f" 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'; done | sort -u |
  { grep -v -E "$ftb_gpu_system_libs" || true; } | { grep -v -E "$ftb_gpu_provided_libs" || true; } |
  { grep -v -E "${FTB_GPU_PACK_SKIP_LIBS:-^$}" || true; } >"$stage/libs"
while read -r name path; do
  cp -L "$path" "$stage/lib/$name"
  if [ "$(stat -c %s "$stage/lib/$name")" -gt "$xz_over" ]; then
    xz -6 -T0 -c "$stage/lib/$name" >"$stage/lib/$name.xz" && rm "$stage/lib/$name"
  fi
done <"$stage/libs"
rm -f "$stage/libs"

# 3. Provenance and sizes.
(cd "$root" && echo "$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git --no-optional-locks diff --quiet HEAD 2>/dev/null || echo '+dirty')") >"$stage/COMMIT"
torchlib="$(printf '%s\n' "$ftbench_libs" | awk '$3 ~ /\/torch\/lib\// && !seen {print $3; seen = 1}')"
sed -n "s/^__version__ = '\(.*\)'/\1/p" "$(dirname "$(dirname "$torchlib")")/version.py" 2>/dev/null >"$stage/TORCH" || true
(cd "$stage" && find . -type f ! -name MANIFEST -printf '%s %P\n' | sort -k2) >"$stage/MANIFEST"

total=$(du -sb "$stage" | cut -f1)
mib() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}'; }
build_b=$(du -sb "$stage/build" | cut -f1) lib_b=$(du -sb "$stage/lib" | cut -f1)
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
cp -a "$stage" "$dest"  # not mv: $TMPDIR may be another file system
chmod 755 "$dest"
say "$dest: $(mib "$total") MiB of the ${limit_mib} MiB carry limit (build $(mib "$build_b"), lib $(mib "$lib_b"); $(ls "$dest/lib" | wc -l) libraries, commit $(cat "$dest/COMMIT"), torch $(cat "$dest/TORCH"))"
if [ "$total" -gt $((limit_mib * 1048576)) ]; then
  say "OVER THE LIMIT: $(mib "$total") MiB > ${limit_mib} MiB; largest files:"
  sort -rn "$dest/MANIFEST" | awk 'NR <= 8 {printf "  %6.1f MiB  %s\n", $1 / 1048576, $2}' >&2
  exit 1
fi
[ "$total" -le $((limit_mib * 1048576 * 4 / 5)) ] || say "warning: over 80 % of the limit; the next executables may not fit"
# The working tree travels with the pack (tracked files and untracked ones git
# does not ignore, as they are on disk): the device tool refuses a call where
# both together pass the limit, so say so here, before any device time.
tree=$(cd "$root" && { git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s 2>/dev/null || true; } | awk '{s += $1} END {print s + 0}')
say "what travels: the working tree $(mib "$tree") MiB + the pack $(mib "$total") MiB = $(mib $((tree + total))) MiB of ${limit_mib} MiB"
if [ $((tree + total)) -gt $((limit_mib * 1048576)) ]; then
  say "warning: together over the limit: a device call carrying this pack from this checkout is refused; the tree's largest folders:"
  (cd "$root" && { git ls-files -z results | xargs -0 stat -c '%s %n' 2>/dev/null || true; } | awk '{split($2, a, "/"); s[a[2]] += $1} END {for (k in s) printf "  %6.1f MiB  results/%s\n", s[k] / 1048576, k}' | sort -rn | head -5) >&2 || true
  # The quick check needs none of results/: out of the tree for the call, it does not travel.
  rest=$(cd "$root" && { git ls-files -z --cached --others --exclude-standard | grep -zv '^results/' | xargs -0 stat -c %s 2>/dev/null || true; } | awk '{s += $1} END {print s + 0}')
  say "without results/: $(mib "$rest") MiB + the pack $(mib "$total") MiB = $(mib $((rest + total))) MiB; for the call: mv results /tmp/ftbench-results.aside (after it: mv /tmp/ftbench-results.aside results)"
fi
echo "$total"
