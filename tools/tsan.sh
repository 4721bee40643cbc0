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
build="$root/build-tsan"
mkdir -p "$build"
log() { printf '[tsan] %s\n' "$*" >&2; }
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
log "building the launcher and rank-environment tests"
clang++-14 -std=c++17 -fsanitize=thread -O1 -g -fno-omit-frame-pointer -I"$root" \
  tests/test_main.cpp tests/test_launcher.cpp tests/test_dist_env.cpp \
  scenarios/parallel/launcher.cpp scenarios/parallel/rank_env.cpp core/base/files.cpp \
  -o "$build/launch_tests" -pthread
log "running"
"$build/launch_tests"
