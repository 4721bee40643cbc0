#!/usr/bin/env bash
# A CUDA toolkit root made of the pip wheels, for configuring against a CUDA
# torch wheel on a machine without the CUDA toolkit (a GPU box with only a
# driver): torch's CMake config (Caffe2's cuda.cmake) needs nvcc and the
# toolkit's headers and libraries in one tree, and stops without them
# ("uses CUDA but I cannot find the CUDA libraries"). The torch wheel's own
# nvidia/cuXX/ folder has the headers and libraries but no nvcc and no
# unversioned .so names; nvcc comes from the nvidia-cuda-nvcc wheel of the same
# CUDA version (tools/setup.sh installs it). Nothing is copied: OUT holds links.
#
#   tools/cuda_from_wheels.sh WHEEL_CUDA_DIR NVCC_CUDA_DIR OUT
#     WHEEL_CUDA_DIR  the torch wheel's nvidia/cu13 (include/, lib/)
#     NVCC_CUDA_DIR   the nvidia-cuda-nvcc wheel's nvidia/cu13 (bin/, nvvm/, include/)
#     OUT             made (replaced) as bin/ include/ lib64/ nvvm/
# Exit 0 made, 2 bad arguments (one line naming what is missing).
set -euo pipefail
say() { printf 'cuda_from_wheels: %s\n' "$*" >&2; }
[ $# = 3 ] || { say "usage: tools/cuda_from_wheels.sh WHEEL_CUDA_DIR NVCC_CUDA_DIR OUT"; exit 2; }
wheel="$1" nvcc_dir="$2" out="$3"
[ -f "$wheel/include/cuda_runtime.h" ] || { say "$wheel/include/cuda_runtime.h missing: not a torch wheel's nvidia/cuXX folder"; exit 2; }
[ -x "$nvcc_dir/bin/nvcc" ] || { say "$nvcc_dir/bin/nvcc missing: install the nvidia-cuda-nvcc wheel of the same CUDA version"; exit 2; }
rm -rf "$out"
mkdir -p "$out/bin" "$out/include" "$out/lib64"
link_all() {  # link_all FROM TO: every entry of FROM linked into TO (the first wins)
  local e
  [ -d "$1" ] || return 0
  for e in "$1"/*; do [ -e "$2/$(basename "$e")" ] || ln -s "$(cd "$(dirname "$e")" && pwd)/$(basename "$e")" "$2/"; done
}
link_all "$nvcc_dir/bin" "$out/bin"
link_all "$nvcc_dir/include" "$out/include"
link_all "$wheel/include" "$out/include"
link_all "$wheel/lib" "$out/lib64"
link_all "$nvcc_dir/lib" "$out/lib64"
[ -d "$nvcc_dir/nvvm" ] && ln -s "$(cd "$nvcc_dir/nvvm" && pwd)" "$out/nvvm"
ln -s lib64 "$out/lib"
# CMake's find_library wants libX.so; the wheels ship libX.so.N only.
for f in "$out"/lib64/lib*.so.*; do
  base="${f%%.so.*}.so"
  [ -e "$base" ] || ln -s "$(basename "$f")" "$base"
done
# The driver's libcuda (CUDA::cuda_driver): the machine's, where it has one.
libcuda="$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 / {print $NF; exit}')"
if [ -n "$libcuda" ]; then mkdir -p "$out/lib64/stubs" && ln -sf "$libcuda" "$out/lib64/stubs/libcuda.so"; fi
echo "$out"
