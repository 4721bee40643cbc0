#!/usr/bin/env bash
# Sets up whatever is missing and builds ftbench. Idempotent: a second run only
# checks (dpkg, the venv, the CMake cache) and lets Ninja rebuild what changed.
# Each stage logs its elapsed seconds when it ends, and the total at the end.
#
#   tools/setup.sh            Debian packages + LibTorch + configure + build the
#                             ftbench target only (all `ftbench run` needs)
#   tools/setup.sh --peer     the same, and transformers (tools/requirements-peer.txt)
#                             in .venv for the Python peer (tools/peer.py, `peer` rows)
#   tools/setup.sh --tests    the same as --peer, and what the whole test suite runs
#                             beyond the build (tools/requirements-tests.txt,
#                             tools/requirements-otava.txt: Apache Otava for
#                             tests/otava_check.py), and builds every target
#                             (tests, fuzzers, micro-benchmarks); what CI runs
#                             (.ci/run, the second command of README's quick start)
#
# LibTorch (2.4 or newer), first match wins:
#   1. Torch_DIR or CMAKE_PREFIX_PATH in the environment (a LibTorch you have);
#   2. the `torch` wheel pinned in tools/requirements-torch.txt, installed into
#      the project-local virtual environment .venv/ (its bundled C++ library).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${FTB_BUILD_DIR:-$root/build}"
log() { printf '[setup] %s\n' "$*" >&2; }
# done_stage NAME WHAT: NAME's line with the seconds since the last stage ended.
started=$SECONDS stage_start=$SECONDS
done_stage() { log "$1: $2 ($((SECONDS - stage_start)) s)"; stage_start=$SECONDS; }
peer=0 tests=0
for arg in "$@"; do
  case "$arg" in
    --peer) peer=1 ;;
    --tests) peer=1 tests=1 ;;
    *) echo "setup.sh: unknown option $arg (--peer, --tests)" >&2; exit 2 ;;
  esac
done

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

# --- Debian packages --------------------------------------------------------
# python3-venv: the project-local LibTorch.
pkgs=(build-essential cmake ninja-build pkg-config git python3-venv
      doctest-dev nlohmann-json3-dev libbenchmark-dev libcli11-dev
      libarchive-dev libutf8proc-dev libcsv-dev libgloo-dev
      libsqlite3-dev libboost-dev)
# Only the test suite's (--tests): python3-jsonschema (the tests validate
# report.json against reports/record/report.schema.json) and chromium (a test
# opens index.html headless, cli.report_page_opens_offline: 122 MB and most of
# a fresh machine's download, so the run command goes without it), and
# iproute2: `ip netns`/veth for the two-node cases (tools/two_nodes.sh,
# cli.dist_multinode_*); a minimal Debian 12 has no `ip`, and they would skip.
# slurmctld, slurmd, slurm-client, munge and openmpi-bin: the real launchers
# the cli.dist_srun/sbatch/scancel/mpirun cases start ftbench with
# (tools/slurm_cluster.sh runs a private one-node cluster; tests/cli/launchers.sh).
# clang-14, libclang-rt-14-dev (libFuzzer, ASan, UBSan) and lld-14: the
# fuzz targets' build and their short run in the suite (ctest fuzz.run,
# tools/fuzz.sh).
if [ "$tests" = 1 ]; then
  pkgs+=(python3-jsonschema chromium iproute2 slurmctld slurmd slurm-client munge openmpi-bin
         clang-14 libclang-rt-14-dev lld-14)
fi
# libsqlite3-dev: ftbench history (reports/analysis/history.cpp). libboost-dev: Boost.Math's
# t, F and normal distributions (header-only; reports/analysis/).
# libgloo-dev: c10d's ProcessGroupGloo.hpp includes <gloo/...>, which neither
# the torch wheel ships. Only declarations are used (every
# call goes into LibTorch, which carries its own Gloo).
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; then
    "${sudo_cmd[@]}" apt-get update -q
    "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
  done_stage "Debian packages" "installed ${#missing[@]}"
else
  done_stage "Debian packages" ok
fi

# --- LibTorch ---------------------------------------------------------------
prefix="" did=ok
if [ -n "${Torch_DIR:-}" ] || [ -n "${CMAKE_PREFIX_PATH:-}" ]; then
  did="from Torch_DIR/CMAKE_PREFIX_PATH"
else
  venv="$root/.venv"
  want="$(grep -E '^torch==' tools/requirements-torch.txt | cut -d= -f3)"
  have=""
  if [ -x "$venv/bin/python" ]; then
    have="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))' 2>/dev/null || true)"
  fi
  if [ "${have%%+*}" != "$want" ]; then
    log "installing torch $want (LibTorch + CMake config) into .venv (a few GB, once)"
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/pip" install -q -r tools/requirements-torch.txt
    did="installed torch $want"
  fi
  prefix="$("$venv/bin/python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)' 2>/dev/null)"
fi
done_stage LibTorch "$did"

# --- chart renderer ---------------------------------------------------------
# vl-convert (Vega-Lite -> SVG, PNG) in .venv/: the python that ftbench runs
# tools/render_charts.py with (configured into the build as FTB_PYTHON).
venv="$root/.venv"
want_vl="$(grep -E '^vl-convert-python==' tools/requirements-render.txt | cut -d= -f3)"
have_vl=""
if [ -x "$venv/bin/python" ]; then
  have_vl="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("vl-convert-python"))' 2>/dev/null || true)"
fi
did=ok
if [ "$have_vl" != "$want_vl" ]; then
  log "installing vl-convert-python $want_vl (chart renderer) into .venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r tools/requirements-render.txt
  did="installed vl-convert-python $want_vl"
fi
done_stage "chart renderer" "$did"

# --- the Python peer (optional) ---------------------------------------------
# transformers on the pinned torch in .venv: the python the peer rows run
# (configured into the build as FTB_PEER_PYTHON).
if [ "$peer" = 1 ]; then
  have_tf="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("transformers"))' 2>/dev/null || true)"
  want_tf="$(grep -E '^transformers==' tools/requirements-peer.txt | cut -d= -f3)"
  did=ok
  if [ "$have_tf" != "$want_tf" ]; then
    log "installing transformers $want_tf (the Python peer) into .venv"
    "$venv/bin/pip" install -q -r tools/requirements-peer.txt
    did="installed transformers $want_tf"
  fi
  done_stage "Python peer" "$did"
fi

# --- the test suite's extras (--tests) --------------------------------------
# SciPy and Apache Otava in .venv (the python the tests run Otava's change
# points with, FTB_PYTHON), so the Otava cross-check runs instead of skipping.
if [ "$tests" = 1 ]; then
  version_of() { "$venv/bin/python" -c "import importlib.metadata as m; print(m.version('$1'))" 2>/dev/null || true; }
  pinned() { grep -E "^$1==" "$2" | cut -d= -f3; }
  did=ok
  if [ "$(version_of scipy)" != "$(pinned scipy tools/requirements-tests.txt)" ]; then
    log "installing the test suite's Python packages (tools/requirements-tests.txt) into .venv"
    "$venv/bin/pip" install -q -r tools/requirements-tests.txt
    did=installed
  fi
  want_otava="$(pinned apache-otava tools/requirements-otava.txt)"
  if [ "$(version_of apache-otava)" != "$want_otava" ]; then
    log "installing apache-otava $want_otava (the change-point cross-check) into .venv, without its command line's dependencies"
    "$venv/bin/pip" install -q --no-deps -r tools/requirements-otava.txt
    did=installed
  fi
  done_stage "test extras" "$did"
fi

# --- the CUDA toolkit a CUDA torch wheel's CMake config needs ---------------
# torch's CMake config (Caffe2's cuda.cmake) stops without nvcc and the
# toolkit's headers and libraries ("uses CUDA but I cannot find the CUDA
# libraries"), and with an nvcc of another CUDA version than the wheel's ("two
# conflicting CUDA versions"). So: an nvcc of the wheel's CUDA version (on
# PATH, or /usr/local/cuda*), whose toolkit root is then used; else, for a
# cu13 wheel, the nvidia-cuda-nvcc wheel of that version is installed into the
# venv and a toolkit root of links made in BUILD/cuda-from-wheels
# (tools/cuda_from_wheels.sh) from it and the torch wheel's nvidia/cu13 (a GPU
# box with only a driver). tests/configure_checks.sh no_nvcc proves it with no
# nvcc and no /usr/local/cuda visible.
torch_cuda=""
[ -n "${venv:-}" ] && torch_cuda="$("$venv/bin/python" -c 'import torch; print(torch.version.cuda or "")' 2>/dev/null || true)"
nvcc_release() { "$1" --version 2>/dev/null | sed -n 's/.*release \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p'; }
cuda_args() {
  [ -n "$torch_cuda" ] || return 0
  local n root
  for n in "$(command -v nvcc || true)" /usr/local/cuda/bin/nvcc /usr/local/cuda-"$torch_cuda"/bin/nvcc; do
    [ -n "$n" ] && [ -x "$n" ] && [ "$(nvcc_release "$n")" = "$torch_cuda" ] || continue
    root="$(cd "$(dirname "$(readlink -f "$n")")/.." && pwd)"
    args+=("-DCUDAToolkit_ROOT=$root" "-DCMAKE_CUDA_COMPILER=$n")
    log "CUDA $torch_cuda toolkit: $root"
    return 0
  done
  local site wheel_dir
  site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  wheel_dir="$site/nvidia/cu${torch_cuda%%.*}"
  if [ "${torch_cuda%%.*}" -lt 13 ] || [ ! -f "$wheel_dir/include/cuda_runtime.h" ]; then
    echo "setup.sh: torch is built for CUDA $torch_cuda but no nvcc $torch_cuda is here: install the CUDA $torch_cuda toolkit (nvcc), or put its bin/ on PATH" >&2
    exit 1
  fi
  if [ ! -x "$wheel_dir/bin/nvcc" ]; then
    log "no nvcc $torch_cuda here: installing the nvidia-cuda-nvcc $torch_cuda wheels into .venv"
    "$venv/bin/pip" install -q "nvidia-cuda-nvcc==$torch_cuda.*" "nvidia-cuda-crt==$torch_cuda.*" "nvidia-nvvm==$torch_cuda.*"
  fi
  root="$("$root_dir/tools/cuda_from_wheels.sh" "$wheel_dir" "$wheel_dir" "$build/cuda-from-wheels")" || exit 1
  args+=("-DCUDAToolkit_ROOT=$root" "-DCUDA_TOOLKIT_ROOT_DIR=$root" "-DCMAKE_CUDA_COMPILER=$root/bin/nvcc")
  log "CUDA $torch_cuda toolkit made of the pip wheels: $root"
}
root_dir="$root"

# --- configure + build ------------------------------------------------------
# Without --tests only the ftbench target: the run needs nothing else, and the
# tests, fuzzers and micro-benchmarks are most of the targets (the test command
# builds them).
did=ok
if [ ! -f "$build/CMakeCache.txt" ]; then
  log "configuring $build"; mkdir -p "$build"
  # FTB_WERROR: warnings are errors in the build CI runs (this script).
  args=(-S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFTB_WERROR=ON)
  [ -n "$prefix" ] && args+=("-DCMAKE_PREFIX_PATH=$prefix")
  cuda_args
  cmake "${args[@]}" >"$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 1; }
  did=configured
fi
done_stage configure "$did"
if [ "$tests" = 1 ]; then targets=() what="every target"; else targets=(--target ftbench) what=ftbench; fi
log "building $what (a first build takes several minutes on 2 cores)"
cmake --build "$build" -j "$(nproc)" "${targets[@]}"
done_stage build "$what"
log "ready: $build/ftbench (total $((SECONDS - started)) s)"
