// doctest main for the LibTorch tests: one intra-op thread per test process.
// ctest runs two processes at once on a 2-core machine, and OpenMP teams of
// 2 on 2 busy cores spin at every barrier (we measured 4.5x slower steps).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <torch/torch.h>

int main(int argc, char** argv) {
  at::set_num_threads(1);
  return doctest::Context(argc, argv).run();
}
