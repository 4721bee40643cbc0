#include "core/train/flops.h"

#include <algorithm>
#include <chrono>

#include "core/train/device.h"

namespace ftb {

int64_t matmul_params(const ModelConfig& c) {
  const int64_t C = c.dim, F = c.hidden_dim, L = c.n_layers;
  return L * (4 * C * C + 2 * C * F) + C * C + C * c.num_labels;
}

double train_step_flops(const ModelConfig& c, int64_t B, int64_t T) {
  const double tokens = static_cast<double>(B) * T;
  const double per_token = 6.0 * static_cast<double>(matmul_params(c)) +
                           12.0 * static_cast<double>(c.n_layers) * c.dim * T;
  return per_token * tokens;
}

double measure_matmul_tflops(const torch::Device& device, torch::Dtype dtype, int64_t n, int reps) {
  torch::NoGradGuard no_grad;
  auto opts = torch::TensorOptions().device(device).dtype(dtype);
  auto time_mm = [&](int64_t size) {
    auto a = torch::randn({size, size}, opts), b = torch::randn({size, size}, opts);
    auto c = torch::mm(a, b);  // warm-up: BLAS thread pool, cuBLAS handle
    synchronize(device);
    double best_s = 1e30;
    for (int i = 0; i < reps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      torch::mm_out(c, a, b);
      synchronize(device);
      best_s = std::min(best_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best_s;
  };
  // Start small and grow to n only while a matmul stays short: a dtype with
  // no fast kernel here (bf16 on an AVX2 CPU runs ~100x slower than fp32)
  // must not turn a 1 s measurement into minutes.
  int64_t size = std::min<int64_t>(n, 256);
  double s = time_mm(size);
  while (size < n && s < 0.05) {
    size *= 2;
    s = time_mm(size);
  }
  return 2.0 * size * size * size / s / 1e12;
}

}  // namespace ftb
