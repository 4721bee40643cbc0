#!/usr/bin/env bash
# ThreadSanitizer over the launcher (scenarios/parallel/launcher.cpp): its
# SIGINT/SIGTERM/SIGCHLD handlers and self-pipe against the launch loop, with
# tests that signal the launch from another thread. Built with clang 14
# -fsanitize=thread straight from the sources (the launcher and its tests need
# no LibTorch), in build-tsan/. The loader's prefetch thread
# (core/train/batching.cpp) is not run under TSan here: it would need
# LibTorch, which is not instrumented.
set -euo pipefail
[ $# -eq 0 ] || { echo "tools/tsan.sh: takes no arguments (got '$1')" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${FTB_TSAN_BUILD_DIR:-$root/build-tsan}"
mkdir -p "$build"
log() { printf '[tsan] %s\n' "$*" >&2; }
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
log "building the launcher and rank-environment tests"
command -v clang++-14 >/dev/null ||
  { echo "tools/tsan.sh: clang++-14 not found (tools/setup.sh --tests installs clang-14)" >&2; exit 2; }
# The sources ftb_base and ftb_launch build from (cmake/torch_free_sources.cmake),
# not a second list kept here by hand.
mapfile -t sources < <(cmake -DFTB_ROOT="$root" -DFTB_LISTS="FTB_BASE_SOURCES;FTB_LAUNCH_SOURCES" \
                             -P "$root/cmake/print_sources.cmake")
[ "${#sources[@]}" -gt 0 ] || { log "no sources from cmake/print_sources.cmake"; exit 1; }
# The tests include tests/data_fixtures.h, which names the folders as the
# CMake build does (these tests read no data).
clang++-14 -std=c++17 -fsanitize=thread -O1 -g -fno-omit-frame-pointer -I"$root" \
  -DFTB_FIXTURES_DIR="\"$root/tests/fixtures\"" -DFTB_SHARED_DATA_DIR="\"$root/../shared/data\"" \
  -DFTB_RESULTS_DIR="\"$root/results\"" \
  tests/test_main.cpp tests/test_launcher.cpp tests/test_dist_env.cpp "${sources[@]}" \
  -o "$build/launch_tests" -pthread
log "running"
"$build/launch_tests"
