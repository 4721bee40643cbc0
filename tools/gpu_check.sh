#!/usr/bin/env bash
# The GPU part of ftbench in one call, for a CUDA machine (the H200 a session
# may be lent: 16 cores, torch 2.11+cu130 in its Python, nvcc, no internet,
# none of our Debian dev packages). Runs the whole test suite (the CUDA tests
# run instead of skipping), the smoke preset with every scenario on CUDA, the
# full-size step (mfu preset) and one short epoch of the full-size model with
# every scenario (synthetic-full); writes everything under RESULTS_DIR.
#
# Binaries: prebuilt ones from .gpu-carry/ (tools/gpu_pack.sh on a Debian box,
# linked against the same torch wheel; the loader is pointed at this machine's
# torch), else a build here against this Python's LibTorch (needs the headers
# of doctest, nlohmann-json, CLI11, libarchive, utf8proc, libcsv).
#
#   tools/gpu_check.sh [RESULTS_DIR] [EXTRA_RUN_ARGS...]
#   FTB_GPU_STAGES="full tests" tools/gpu_check.sh ...   (default: tests smoke mfu full peer ladder)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${1:-results/gpu-$(date -u +%Y%m%d-%H%M%S)}"
shift || true
mkdir -p "$out"
log() { printf '[gpu_check %s] %s\n' "$(date -u +%T)" "$*" | tee -a "$out/gpu_check.log" >&2; }

python="${PYTHON:-python3}"
"$python" -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0), "nccl", torch.cuda.nccl.version())' >"$out/torch.txt" 2>&1
log "torch: $(cat "$out/torch.txt")"
nvidia-smi >"$out/nvidia-smi.txt" 2>&1 || true

if [ -d .gpu-carry/build ]; then
  log "prebuilt binaries from .gpu-carry ($(cat .gpu-carry/COMMIT 2>/dev/null))"
  . "$root/tools/gpu_env.sh"  # loader path, compressed libraries, source-path link
  ftb_gpu_unpack_libs "$root/.gpu-carry" || { log "cannot unpack .gpu-carry/lib/*.xz"; exit 1; }
  export LD_LIBRARY_PATH="$(ftb_gpu_ld_path "$python" "$root/.gpu-carry"):${LD_LIBRARY_PATH:-}"
  # CTest files and compiled-in fixture paths name the Debian checkout's path.
  ftb_gpu_link_source "$root/.gpu-carry" "$root"
  rm -rf build && cp -r .gpu-carry/build build
  build=build
  ldd "$build/ftbench" | grep "not found" | tee -a "$out/gpu_check.log" >&2
else
  prefix="$("$python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')" || { log "no torch in $python"; exit 1; }
  build=build-gpu
  if ! cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
       -DTORCH_CUDA_ARCH_LIST=9.0 -DCUDAToolkit_ROOT=/usr/local/cuda >"$out/configure.log" 2>&1; then
    log "configure failed (tail of $out/configure.log):"; tail -20 "$out/configure.log" >&2; exit 1
  fi
  log "building with $(nproc) cores"
  if ! cmake --build "$build" -j "$(nproc)" >"$out/build.log" 2>&1; then
    log "build failed (tail of $out/build.log):"; tail -30 "$out/build.log" >&2; exit 1
  fi
fi
ftbench="$build/ftbench"
stages=" ${FTB_GPU_STAGES:-tests smoke mfu full peer ladder} "
tests_rc=0 run_rc=0 mfu_rc=0 full_rc=0 peer_rc=0 ladder_rc=0

stage_tests() {
log "tests"
# The GPU machine has no chromium and no python3-jsonschema (Debian packages
# the CPU suite installs): those checks run in CI, not here.
ctest --test-dir "$build" --output-on-failure -j 8 --timeout 300 \
  -E "${FTB_GPU_CTEST_EXCLUDE:-report_page_opens_offline|^schema\\.}" >"$out/ctest.log" 2>&1
tests_rc=$?
grep -E "tests passed|tests failed|\(Failed\)|\(SEGFAULT\)|Timeout" "$out/ctest.log" | tail -15 >&2
}

stage_smoke() {
log "smoke preset, every scenario, on CUDA, 3 repeats in rounds"
"$ftbench" run --preset smoke --device cuda --repeats 3 --out "$out/smoke" "$@" >"$out/smoke.stdout" 2>"$out/smoke.stderr"
run_rc=$?
tail -22 "$out/smoke.stdout" >&2; grep -E "FAILED|skipped|error" "$out/smoke.stderr" | tail -10 >&2
}

stage_mfu() {
log "full-size step (mfu preset)"
"$ftbench" run --preset mfu --device cuda --scenarios baseline,amp,amp_bf16,cuda_graph,cuda_graph_bf16,cuda_graph_fp16,fastest,ddp,zero2,fabric --out "$out/mfu" max_steps=30 warmup_steps=5 \
  >"$out/mfu.stdout" 2>"$out/mfu.stderr"
mfu_rc=$?
tail -12 "$out/mfu.stdout" >&2; grep -E "FAILED|error" "$out/mfu.stderr" | tail -5 >&2
}

stage_full() {
log "full-size model, every scenario, one short epoch, 3 repeats, MFU against the datasheet (synthetic-full preset)"
"$ftbench" run --preset synthetic-full --device cuda --out "$out/full" epochs=1 synthetic_count=3000 peak=datasheet \
  >"$out/full.stdout" 2>"$out/full.stderr"
full_rc=$?
tail -14 "$out/full.stdout" >&2; grep -E "FAILED|error" "$out/full.stderr" | tail -5 >&2
}

stage_peer() {
# The Python peer (tools/peer.py) side by side on the GPU: each ftbench row
# next to the peer's (baseline/peer, amp/peer_amp, and the peer's best,
# peer_amp_compiled, against cuda_graph), alternating by round, at the smoke
# shape and the full-size step. Needs transformers in $python (no internet
# there: FTB_PEER_WHEELS=DIR installs it from wheels carried along).
log "the Python peer side by side (smoke and the full-size step)"
if ! "$python" -c 'import transformers' 2>/dev/null && [ -n "${FTB_PEER_WHEELS:-}" ]; then
  "$python" -m pip install -q --no-index --find-links "$FTB_PEER_WHEELS" transformers >>"$out/gpu_check.log" 2>&1
fi
if ! "$python" -c 'import transformers' 2>/dev/null; then
  log "peer: skipped, no transformers in $python (set FTB_PEER_WHEELS to a folder of its wheels)"; return
fi
local rows=baseline,peer,amp,peer_amp,amp_bf16,cuda_graph,peer_amp_compiled py
py="$(command -v "$python")"
FTB_PEER_PYTHON="$py" "$ftbench" run --preset smoke --device cuda --repeats 3 --scenarios "$rows" --out "$out/peer-smoke" \
  >"$out/peer-smoke.stdout" 2>"$out/peer-smoke.stderr" || peer_rc=$?
FTB_PEER_PYTHON="$py" "$ftbench" run --preset mfu --device cuda --scenarios "$rows" --out "$out/peer-mfu" \
  max_steps=30 warmup_steps=5 >"$out/peer-mfu.stdout" 2>"$out/peer-mfu.stderr" || peer_rc=$?
tail -12 "$out/peer-mfu.stdout" >&2; grep -E "FAILED|error|skipped" "$out/peer-mfu.stderr" | tail -5 >&2
}

# --- phases and ladder (issue 10, "where the time goes" / "beyond the reference") ---
# The ladder's rows on the full-size model: baseline -> +bf16 -> +fused Adam
# and a graph (cuda_graph_bf16) -> +bucketing (fastest: a graph per bucket
# length), each against the rung below; the phase breakdown
# must come from CUDA events (read once per epoch, no sync per step).
stage_ladder() {
log "ladder: baseline, amp_bf16, fused_adam, bucketed, fastest, cuda_graph(_bf16,_fp16), largest_batch on the full-size model (synthetic-full), phases from CUDA events"
"$ftbench" run --preset synthetic-full --device cuda \
  --scenarios baseline,amp_bf16,fused_adam,bucketed,fastest,cuda_graph,cuda_graph_bf16,cuda_graph_fp16,largest_batch \
  --out "$out/ladder" epochs=1 synthetic_count=3000 "$@" >"$out/ladder.stdout" 2>"$out/ladder.stderr"
ladder_rc=$?
grep -A8 "^| rung" "$out/ladder.stdout" >&2
"$python" - "$out/ladder/report.json" <<'PY' >&2 || ladder_rc=1
import json, sys
r = json.load(open(sys.argv[1]))
bad = [x["scenario"] for x in r["results"] if x["status"] == "ok" and x.get("phases", {}).get("clock") != "cuda_events"]
print("phases clock: " + ("cuda_events on every ok row" if not bad else "NOT cuda_events: " + ", ".join(bad)))
sys.exit(1 if bad else 0)
PY
}
# --- end phases and ladder ---

for stage in $stages; do "stage_$stage" "$@"; done

log "done: tests rc=$tests_rc, smoke rc=$run_rc, mfu rc=$mfu_rc, full rc=$full_rc, peer rc=$peer_rc, ladder rc=$ladder_rc; results in $out"
[ "$tests_rc" = 0 ] && [ "$run_rc" = 0 ] && [ "$mfu_rc" = 0 ] && [ "$full_rc" = 0 ] && [ "$peer_rc" = 0 ] && [ "$ladder_rc" = 0 ]
