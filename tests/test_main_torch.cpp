// doctest main for the LibTorch tests: one intra-op thread per test process.
// ctest runs two processes at once on a 2-core machine, and OpenMP teams of
// 2 on 2 busy cores spin at every barrier (we measured 4.5x slower steps).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <torch/torch.h>

#include <cstdlib>

int main(int argc, char** argv) {
  at::set_num_threads(1);
  // Tests run ranks as threads of one process: c10d's flight recorder is a
  // process-wide ring that two process groups enqueueing at once corrupt
  // (a SIGSEGV in FlightRecorder::recordWithResetEnabled under Gloo's
  // allgather, about 1 run in 3 of the fabric test). Real ranks are processes
  // and keep it; it records, it does not change what trains.
  ::setenv("TORCH_FR_BUFFER_SIZE", "0", /*overwrite=*/0);
  return doctest::Context(argc, argv).run();
}
