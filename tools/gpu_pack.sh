#!/usr/bin/env bash
# Packs what tools/gpu_check.sh needs to test ftbench on a GPU machine that has
# no Debian dev packages and no internet (the lent H200): the built binaries
# and CTest files of build/ (no objects), and the shared libraries they load
# that such a machine may lack (libarchive, utf8proc, libcsv and theirs).
# LibTorch itself is not packed: the GPU machine's Python has the same torch
# wheel (2.11.0+cu130) and gpu_check.sh points the loader at it.
#
#   tools/gpu_pack.sh [BUILD_DIR]    -> .gpu-carry/ (ignored by git; name it in `carry`)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
dest="$root/.gpu-carry"
rm -rf "$dest"; mkdir -p "$dest/lib"
(cd "$build" && find . -type f ! -name '*.o' ! -name '*.gch' ! -name '*.pch' ! -name '*.a' \
   ! -path '*/CMakeFiles/*' ! -name '.ninja*' ! -name '*.log' -print0 |
   tar --null -T - -cf -) | (mkdir -p "$dest/build" && cd "$dest/build" && tar -xf -)
# Non-system libraries of every executable (not LibTorch/CUDA: the GPU machine has those).
for exe in "$build/ftbench" "$build/tests/ftb_tests" "$build/tests/ftb_dist_tests" "$build/tests/ftb_text_tests"; do
  ldd "$exe" | awk '/=> \// {print $3}'
done | sort -u | grep -v -E '/(libc|libm|libdl|librt|libpthread|libutil|libstdc\+\+|libgcc_s)\.so|\.venv/|/cuda' |
  while read -r lib; do cp -L "$lib" "$dest/lib/"; done
echo "$(cd "$root" && git rev-parse --short=12 HEAD)$(cd "$root" && git diff --quiet || echo '+dirty')" >"$dest/COMMIT"
du -sh "$dest"
