#include "core/measure/flops.h"

#include <algorithm>
#include <chrono>

#include "core/measure/device.h"

namespace ftb {

double train_step_flops(const ModelConfig& c, int64_t B, int64_t T) {
  const double C = static_cast<double>(c.dim), F = static_cast<double>(c.hidden_dim);
  const double t = static_cast<double>(T);
  // Multiply-adds of one sequence's forward pass.
  const double layer_per_row = 4 * C * C + 2 * C * F + 2 * t * C;  // Q K V O, FFN, QK^T and AV against T keys
  int64_t full_layers = c.n_layers;
  double macs = 0;
  if (c.type == ModelType::distilbert && c.n_layers > 0) {
    // The last layer: keys and values for every row, the rest for [CLS] only
    // (DistilBertForSequenceClassificationImpl::forward).
    --full_layers;
    macs += t * 2 * C * C + layer_per_row - 2 * C * C;
  }
  macs += static_cast<double>(full_layers) * t * layer_per_row;
  macs += C * C + C * static_cast<double>(c.num_labels);  // pre_classifier / pooler, classifier: [CLS] only
  // 2 FLOPs per multiply-add forward, twice that backward.
  return 6.0 * macs * static_cast<double>(B);
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
