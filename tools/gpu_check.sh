#!/usr/bin/env bash
# The GPU part of ftbench in one call, for a CUDA machine (the H200 a session
# may be lent: 16 cores, torch 2.11+cu130 in its Python, nvcc, no internet).
# Builds against that Python's bundled LibTorch, runs the whole test suite
# (the CUDA tests run instead of skipping), then the smoke preset with every
# scenario on CUDA, and writes everything under results/gpu-<date>/.
# Budget: under 8 minutes there (build ~4, tests ~1, smoke ~1).
#
#   tools/gpu_check.sh [RESULTS_DIR]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${1:-results/gpu-$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
log() { printf '[gpu_check %s] %s\n' "$(date -u +%T)" "$*" | tee -a "$out/gpu_check.log" >&2; }

python="${PYTHON:-python3}"
prefix="$("$python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')" || { log "no torch in $python"; exit 1; }
"$python" -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0))' >"$out/torch.txt" 2>&1
log "torch: $(cat "$out/torch.txt")"
nvidia-smi >"$out/nvidia-smi.txt" 2>&1 || true

# Build dependencies that are Debian packages on the CPU machines; report
# what is missing instead of failing half-way through CMake.
missing=""
for h in doctest/doctest.h nlohmann/json.hpp CLI/CLI.hpp archive.h utf8proc.h csv.h; do
  echo "#include <$h>" | c++ -x c++ -fsyntax-only - 2>/dev/null || missing="$missing $h"
done
[ -z "$missing" ] || log "missing headers:$missing (install the Debian packages listed in tools/setup.sh)"

build=build-gpu
cores="$(nproc)"
if ! cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
     -DTORCH_CUDA_ARCH_LIST=9.0 -DCUDAToolkit_ROOT=/usr/local/cuda >"$out/configure.log" 2>&1; then
  log "configure failed (tail of $out/configure.log):"; tail -20 "$out/configure.log" >&2; exit 1
fi
log "building with $cores cores"
if ! cmake --build "$build" -j "$cores" >"$out/build.log" 2>&1; then
  log "build failed (tail of $out/build.log):"; tail -30 "$out/build.log" >&2; exit 1
fi
log "tests"
ctest --test-dir "$build" --output-on-failure -j 4 --timeout 300 >"$out/ctest.log" 2>&1
tests_rc=$?
tail -5 "$out/ctest.log" >&2
log "smoke preset, every scenario, on CUDA"
"$build/bench/ftbench" run --device cuda --out "$out/smoke" >"$out/smoke.stdout" 2>"$out/smoke.stderr"
run_rc=$?
cat "$out/smoke.stdout" | tail -15 >&2
log "done: tests rc=$tests_rc, run rc=$run_rc; results in $out"
[ "$tests_rc" = 0 ] && [ "$run_rc" = 0 ]
