# Sourced by tools/gpu_check.sh and tools/gpu_quick.sh (not run on its own):
# how a GPU machine runs the binaries tools/gpu_pack.sh carried there.
#
#   ftb_gpu_unpack_libs CARRY          libraries gpu_pack.sh stored as NAME.xz -> NAME
#   ftb_gpu_ld_path PYTHON CARRY       prints the LD_LIBRARY_PATH for the carried
#                                      binaries: PYTHON's torch/lib, the nvidia
#                                      wheels' lib folders, then CARRY/lib
#   ftb_gpu_link_source CARRY ROOT     the carried CTest files and compiled-in
#                                      fixture paths name the packing checkout's
#                                      path: link it to ROOT where it is absent
#   ftb_gpu_system_libs, ftb_gpu_provided_libs
#                                      what gpu_pack.sh does not carry (regexes over
#                                      `NAME PATH` lines of ldd): glibc's and the
#                                      compiler runtime's (every machine has them);
#                                      LibTorch's and CUDA's by name or by a path in
#                                      a Python or CUDA tree (the GPU machine's torch
#                                      wheel has them, wherever this machine found
#                                      them: /usr/local/lib, a toolkit, the venv)

ftb_gpu_system_libs='^(linux-vdso|ld-linux[^ ]*|libc|libm|libdl|librt|libpthread|libutil|libresolv|libmvec|libstdc\+\+|libgcc_s|libatomic)\.so'
ftb_gpu_provided_libs='^(libtorch[^ ]*|libc10[^ ]*|libgomp|libcuda|libcudart|libcublas(Lt)?|libcufft|libcufile|libcurand|libcusparse(Lt)?|libcusolver|libcupti|libcudnn[^ ]*|libnvidia-[^ ]*|libnvJitLink|libnvrtc|libnvshmem[^ ]*|libnvToolsExt|libnccl)\.so|/(site-packages|\.venv|nvidia|cuda[^/]*)/'

ftb_gpu_unpack_libs() {
  local f
  for f in "$1"/lib/*.xz; do
    [ -e "$f" ] || continue
    [ -s "${f%.xz}" ] && continue
    if command -v xz >/dev/null 2>&1; then
      xz -dc "$f" >"${f%.xz}.part" || return 1
    else  # no xz-utils: Python's lzma module reads the same format
      "${PYTHON:-python3}" -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
        "$f" "${f%.xz}.part" || return 1
    fi
    mv "${f%.xz}.part" "${f%.xz}" || return 1
  done
}

ftb_gpu_ld_path() {
  local torchlib nvroot extra
  torchlib="$("$1" -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null)" || return 1
  nvroot="$(dirname "$(dirname "$torchlib")")/nvidia"
  extra="$(find "$nvroot" -maxdepth 3 -type d -name lib 2>/dev/null | tr '\n' ':')"
  printf '%s\n' "$torchlib:$extra$2/lib"
}

ftb_gpu_link_source() {
  local src
  src="$(sed -n 's/^# Source directory: //p' "$1/build/CTestTestfile.cmake" 2>/dev/null)"
  if [ -n "$src" ] && [ "$src" != "$2" ] && [ ! -e "$src" ]; then
    mkdir -p "$(dirname "$src")" 2>/dev/null && ln -s "$2" "$src" 2>/dev/null
  fi
  return 0
}
