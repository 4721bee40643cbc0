#!/usr/bin/env bash
# ThreadSanitizer over the code that runs threads and signal handlers against
# each other: the launcher (scenarios/parallel/launcher.cpp: SIGINT/SIGTERM/
# SIGCHLD handlers, self-pipe, a test thread that signals the launch) and,
# with `batching`, the loader's prefetch thread (core/train/batching.cpp).
#
#   tools/tsan.sh [launcher] [batching]      (default: launcher)
#
# Built with clang 14 -fsanitize=thread straight from the sources (no CMake
# build of everything): the launcher tests need no LibTorch; the batching
# tests link the LibTorch that tools/setup.sh found (not instrumented: TSan
# sees its mutexes through the pthread interceptors, not its atomics, so a
# report inside libtorch_cpu.so is to be read with that in mind).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="$root/build-tsan"
mkdir -p "$build"
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(launcher)
cxx=(clang++-14 -std=c++17 -fsanitize=thread -O1 -g -fno-omit-frame-pointer -I"$root")
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
log() { printf '[tsan] %s\n' "$*" >&2; }
status=0
for part in "${parts[@]}"; do
  case "$part" in
    launcher)
      log "building the launcher and rank-environment tests"
      "${cxx[@]}" tests/test_main.cpp tests/test_launcher.cpp tests/test_dist_env.cpp \
        scenarios/parallel/launcher.cpp scenarios/parallel/rank_env.cpp core/text/files.cpp \
        -o "$build/launch_tests" -pthread
      log "running"
      "$build/launch_tests" || status=1
      ;;
    batching)
      prefix="${CMAKE_PREFIX_PATH:-$("$root/.venv/bin/python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')}"
      torch="$(cd "${prefix%%:*}/../.." && pwd)"
      log "building the batching tests against $torch"
      "${cxx[@]}" -isystem "$torch/include" -isystem "$torch/include/torch/csrc/api/include" \
        tests/test_main_torch.cpp tests/test_batching.cpp core/train/batching.cpp core/text/tokenizer.cpp \
        core/text/files.cpp $(pkg-config --cflags --libs libutf8proc) \
        -L"$torch/lib" -Wl,-rpath,"$torch/lib" -ltorch -ltorch_cpu -lc10 -o "$build/batching_tests" -pthread
      log "running"
      "$build/batching_tests" || status=1
      ;;
    *) echo "tools/tsan.sh: unknown part '$part' (launcher, batching)" >&2; exit 2 ;;
  esac
done
exit $status
