#!/usr/bin/env bash
# Fails when code calls a CUDA function in its argument-less form, which acts
# on the thread's current device (0 in every new thread) instead of the row's:
# the current stream, the stream pool, an event's record, a device-wide
# synchronize, the current device itself. Rows and ranks run under a
# DeviceScope (core/measure/device.h); code names its device anyway, so that
# a call outside a scope cannot pick GPU 0 silently. Prints every offending
# line. Usage: device_guard_check.sh [root]  (scans core scenarios reports bench)
set -u
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root" || exit 2
forbidden='getCurrentCUDAStream\(\s*\)|getStreamFromPool\(\s*(true|false)?\s*\)|getDefaultCUDAStream\(\s*\)|(\.|->)record\(\s*\)|device_synchronize\(\s*\)|cudaDeviceSynchronize\(\s*\)|torch::cuda::synchronize\(\s*\)|current_device\(\s*\)|cudaGetDevice\(|cudaMemGetInfo\('
# file:what  -- the argument-less form is right here, and why.
allowed=(
  'core/measure/device.cpp:device_synchronize'  # inside synchronize(), under a CUDAGuard for the device
  'core/measure/device.cpp:cudaMemGetInfo'      # inside device_memory_use(), under a CUDAGuard for the device
)
hits=$(grep -rHnE --include='*.h' --include='*.cpp' --include='*.cu' "$forbidden" core scenarios reports bench 2>/dev/null |
  grep -vE '^[^:]+:[0-9]+:\s*//')
for a in "${allowed[@]}"; do
  hits=$(printf '%s\n' "$hits" | grep -v "^${a%%:*}:[0-9]*:.*${a#*:}")
done
hits=$(printf '%s\n' "$hits" | grep .)
if [ -n "$hits" ]; then
  printf '%s\n' "$hits" | sed 's|$|   <- acts on the current device, not the row'"'"'s: pass the device (core/measure/device.h DeviceScope)|'
  exit 1
fi
exit 0
