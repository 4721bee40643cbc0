#!/usr/bin/env bash
# Configures ftbench in a scratch folder the way a machine without parts of
# the CUDA toolkit would (issue 43, 2 and 5); a configure only, a few seconds.
#   tests/configure_checks.sh CASE [SOURCE_DIR]
#   no_nvtx_no_nccl  FTB_NVTX3_DIR and NCCL_INCLUDE_DIR name a folder without
#                    the headers: the configure passes with NVTX ranges and the
#                    NCCL process group OFF, and nvtx_range.cpp builds the no-op.
#   no_nvcc          in a private mount namespace with /usr/local/cuda* hidden
#                    and no nvcc on PATH (a GPU box with a driver and the torch
#                    wheel only): the plain configure stops in torch's CMake
#                    config, and the one tools/setup.sh makes (a toolkit root of
#                    the pip wheels: tools/cuda_from_wheels.sh) passes with the
#                    CUDA paths ON. Needs root's `unshare -m` and the
#                    nvidia-cuda-nvcc wheel (FTB_NVCC_WHEEL_DIR, default the
#                    venv's nvidia/cu13): skipped (77) without them.
# Exit 0 pass, 1 fail, 77 skipped.
set -uo pipefail
case_name="${1:?usage: configure_checks.sh CASE [SOURCE_DIR]}"
root="$(cd "${2:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)"
python="$root/.venv/bin/python"
[ -x "$python" ] || { echo "skipped: no $python (tools/setup.sh makes it)"; exit 77; }
prefix="$("$python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)' 2>/dev/null)" ||
  { echo "skipped: no torch in $python"; exit 77; }
site="$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/configure_checks.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/empty"
fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
configure() {  # configure BUILD_DIR [cmake args...]: the log in BUILD_DIR.log
  local dir="$1"; shift
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$prefix" "$@" >"$dir.log" 2>&1
}

case "$case_name" in
  no_nvtx_no_nccl)
    configure "$tmp/b" -DFTB_NVTX3_DIR="$tmp/empty" -DNCCL_INCLUDE_DIR="$tmp/empty" ||
      fail "the configure failed: $(grep -A3 'CMake Error' "$tmp/b.log" | head -5)"
    grep -q 'ftbench: NVTX ranges: OFF' "$tmp/b.log" || fail "NVTX not OFF: $(grep 'ftbench:' "$tmp/b.log")"
    if grep -q 'ftbench: LibTorch .* CUDA paths: ON' "$tmp/b.log"; then
      grep -q 'ftbench: NCCL process group: OFF' "$tmp/b.log" || fail "NCCL not OFF: $(grep 'ftbench:' "$tmp/b.log")"
      grep -q '^FTB_WITH_NCCL:INTERNAL=OFF$' "$tmp/b/CMakeCache.txt" || fail "the cache does not say NCCL is OFF"
    fi
    obj=core/CMakeFiles/ftb_measure.dir/measure/nvtx_range.cpp.o
    ninja -C "$tmp/b" "$obj" >"$tmp/ninja.log" 2>&1 || fail "nvtx_range.cpp did not build: $(tail -5 "$tmp/ninja.log")"
    ! nm "$tmp/b/$obj" | grep -q nvtxGlobals || fail "nvtx_range.cpp built with NVTX (nvtxGlobals) without the header"
    echo "ok: no NVTX header, no nccl.h: configured, NVTX and NCCL OFF, the NVTX no-op built"
    ;;
  no_nvcc)
    [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null || { echo "skipped: needs root's unshare -m to hide /usr/local/cuda"; exit 77; }
    wheels="${FTB_NVCC_WHEEL_DIR:-$site/nvidia/cu13}"
    [ -x "$wheels/bin/nvcc" ] || { echo "skipped: no nvidia-cuda-nvcc wheel at $wheels (tools/setup.sh installs it where no nvcc is)"; exit 77; }
    grep -q '+cu' <<<"$("$python" -c 'import torch; print(torch.__version__)')" || { echo "skipped: torch is not a CUDA wheel"; exit 77; }
    cat >"$tmp/hidden.sh" <<HIDE
#!/bin/bash
for d in /usr/local/cuda /usr/local/cuda-*; do [ -d "\$d" ] && mount --bind "$tmp/empty" "\$d"; done
export PATH=/usr/bin:/bin
! command -v nvcc >/dev/null || { echo "nvcc still visible: \$(command -v nvcc)" >&2; exit 3; }
exec "\$@"
HIDE
    chmod +x "$tmp/hidden.sh"
    unshare -m "$tmp/hidden.sh" bash -c "$(declare -f configure); root='$root' prefix='$prefix'; configure '$tmp/plain'"
    [ $? = 1 ] && grep -q 'cannot find the CUDA' "$tmp/plain.log" ||
      fail "the plain configure did not stop in torch's CMake config: $(grep -E 'CMake Error|nvcc still' -A2 "$tmp/plain.log" | head -4)"
    "$root/tools/cuda_from_wheels.sh" "$site/nvidia/cu13" "$wheels" "$tmp/tk" >/dev/null || fail "cuda_from_wheels.sh failed"
    unshare -m "$tmp/hidden.sh" bash -c "$(declare -f configure); root='$root' prefix='$prefix'; configure '$tmp/wheels' -DCUDAToolkit_ROOT='$tmp/tk' -DCUDA_TOOLKIT_ROOT_DIR='$tmp/tk' -DCMAKE_CUDA_COMPILER='$tmp/tk/bin/nvcc'" ||
      fail "the configure against the wheels' toolkit failed: $(grep -A3 'CMake Error' "$tmp/wheels.log" | head -6)"
    grep -q 'ftbench: LibTorch .* CUDA paths: ON' "$tmp/wheels.log" || fail "CUDA paths not ON: $(grep 'ftbench:' "$tmp/wheels.log")"
    echo "ok: no nvcc, no /usr/local/cuda: the plain configure stops in torch's CMake config (cannot find the CUDA libraries); against the wheels' toolkit: $(grep 'ftbench: LibTorch' "$tmp/wheels.log" | sed 's/^-- //')"
    ;;
  *) fail "unknown case" ;;
esac
