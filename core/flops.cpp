#include "core/flops.h"

#include <algorithm>
#include <chrono>

#include "core/device.h"

namespace ftb {

int64_t matmul_params(const DistilBertConfig& c) {
  const int64_t C = c.dim, F = c.hidden_dim, L = c.n_layers;
  return L * (4 * C * C + 2 * C * F) + C * C + C * c.num_labels;
}

double train_step_flops(const DistilBertConfig& c, int64_t B, int64_t T) {
  const double tokens = static_cast<double>(B) * T;
  const double per_token = 6.0 * static_cast<double>(matmul_params(c)) +
                           12.0 * static_cast<double>(c.n_layers) * c.dim * T;
  return per_token * tokens;
}

double measure_matmul_tflops(const torch::Device& device, torch::Dtype dtype, int64_t n, int reps) {
  torch::NoGradGuard no_grad;
  auto opts = torch::TensorOptions().device(device).dtype(dtype);
  auto a = torch::randn({n, n}, opts), b = torch::randn({n, n}, opts);
  auto c = torch::mm(a, b);  // warm-up: BLAS thread pool, cuBLAS handle
  synchronize(device);
  double best_s = 1e30;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    torch::mm_out(c, a, b);
    synchronize(device);
    best_s = std::min(best_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return 2.0 * n * n * n / best_s / 1e12;
}

}  // namespace ftb
