// The environment capture (core/measure/environment.h): driver, NVML,
// build tree state, the documented keys.
#include <doctest/doctest.h>

#include <cstdlib>

#include "core/base/errors.h"
#include "core/measure/datasheet_peaks.h"
#include "core/measure/environment.h"
#include "core/measure/nvml.h"
#include "core/train/run_config.h"

using ftb::Precision;
using nlohmann::json;

TEST_CASE("environment: driver, NVML, build tree state") {
  const auto env = ftb::capture_environment();
  REQUIRE(env.contains("nvml"));
  CHECK(env.at("nvml").contains("available"));
  if (env.at("nvml").at("available") == true) {
    // a machine with an NVIDIA driver: every GPU named, with a UUID
    CHECK(env.at("driver_version").is_string());
    for (const auto& g : env.at("nvml").at("gpus")) {
      CHECK(g.at("name").is_string());
      CHECK(g.at("uuid").get<std::string>().rfind("GPU-", 0) == 0);
      CHECK(g.at("memory_total_bytes").get<double>() > 0);
    }
  } else {
    CHECK(env.at("driver_version").is_null());
  }
  const std::string tree = env.at("git_tree");
  CHECK((tree == "clean" || tree == "dirty" || tree == "unknown"));
}

TEST_CASE("capture_environment has the documented keys") {
  const json env = ftb::capture_environment();
  CAPTURE(env.dump(2));
  for (const char* path : {"/host", "/os", "/cpu/model", "/cpu/logical_cores", "/cpu/physical_cores", "/memory_bytes",
                           "/gpus", "/cuda_driver", "/libtorch/version", "/libtorch/cuda", "/libtorch/cudnn",
                           "/libtorch/nccl", "/compiler", "/build_type", "/threads/intra_op", "/threads/inter_op",
                           "/threads/parallel_info", "/git_commit", "/blas", "/timestamp"}) {
    CAPTURE(path);
    CHECK(env.contains(json::json_pointer(path)));
  }
  CHECK(env.at("libtorch").at("version") == TORCH_VERSION);
  CHECK(env.at("gpus").is_array());
  CHECK(env.at("cpu").at("logical_cores").get<int64_t>() >= 1);
  CHECK(env.at("memory_bytes").get<int64_t>() > 0);
  CHECK(env.at("threads").at("intra_op").get<int64_t>() >= 1);
  CHECK(env.at("git_commit").is_string());
  const std::string ts = env.at("timestamp");
  CHECK(ts.size() == 20);  // 2025-01-31T12:34:56Z
  CHECK(ts[4] == '-');
  CHECK(ts[10] == 'T');
  CHECK(ts.back() == 'Z');
#ifdef FTB_WITH_CUDA
  CHECK(env.at("libtorch").at("cuda").is_string());
#else
  CHECK(env.at("libtorch").at("cuda").is_null());
  CHECK(env.at("gpus").empty());
#endif
}
