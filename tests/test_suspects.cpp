// reports/analysis/suspects.h: which recorded facts differ between reference
// runs and the runs judged, most decisive first; what an older report did not
// record is "not recorded", never a difference.
#include <doctest/doctest.h>

#include "reports/analysis/suspects.h"

using nlohmann::json;
using namespace ftb;

namespace {

// A new report's environment, as core/measure/environment.h captures it (the
// parts the table reads).
json new_environment(int family, const std::string& commit) {
  return {{"host", "ci"},
          {"os", "Linux 6.18.44-fc-v657 x86_64"},
          {"kernel", "6.18.44-fc-v657"},
          {"cpu",
           {{"model", "AMD EPYC"},
            {"vendor", "AuthenticAMD"},
            {"family", family},
            {"model_number", 17},
            {"stepping", 1},
            {"isa", {{"avx2", true}, {"avx512f", family == 25}, {"amx_bf16", false}}},
            {"logical_cores", 2},
            {"available_cores", 2},
            {"frequency_governor", "not exposed"}}},
          {"gpus", json::array()},
          {"libtorch", {{"version", "2.11.0"}, {"cpu_capability", "AVX512"}}},
          {"threads", {{"intra_op", 2}, {"inter_op", 2}}},
          {"env_vars", json::object()},
          {"env_vars_watched", {"OMP_NUM_THREADS", "PYTORCH_CUDA_ALLOC_CONF"}},
          {"driver_version", nullptr},
          {"git_commit", commit}};
}

// A report from before the facts were recorded: "AMD EPYC" and little more.
json old_environment(const std::string& commit) {
  return {{"host", "ci"},
          {"os", "Linux 6.18.44-fc-v657 x86_64"},
          {"cpu", {{"model", "AMD EPYC"}, {"logical_cores", 2}, {"available_cores", 2}}},
          {"gpus", json::array()},
          {"libtorch", {{"version", "2.11.0"}}},
          {"threads", {{"intra_op", 2}, {"inter_op", 2}}},
          {"env_vars", json::object()},
          {"git_commit", commit}};
}

RunFacts facts(const json& env, const std::string& data_hash = "d1") {
  return run_facts(env, {{"workload", {{"data_hash", data_hash}}}});
}

}  // namespace

TEST_CASE("what changed: the processor beneath the same model name is named first, the commit last") {
  // Fails without the new facts (the CPU's family was not recorded: nothing
  // but the commit could differ) and with the commit ranked first.
  const std::vector<RunFacts> nights = {facts(new_environment(23, "c1")), facts(new_environment(23, "c2")),
                                        facts(new_environment(23, "c3"))};
  const WhatChanged w = what_changed(nights, {facts(new_environment(25, "c4"))});
  REQUIRE(w.suspects.size() == 3);
  CHECK(w.suspects[0].key == "cpu.family");
  CHECK(w.suspects[0].group == "processor");
  CHECK(w.suspects[0].text() == "cpu.family (processor): 23 -> 25");
  CHECK(w.suspects[1].key == "cpu.isa.avx512f");
  CHECK(w.suspects[1].text() == "cpu.isa.avx512f (processor): no -> yes");
  CHECK(w.suspects[2].key == "git_commit");
  CHECK(w.suspects[2].before == std::vector<std::string>{"c1", "c2", "c3"});
  CHECK(w.suspects[2].kind == SuspectKind::environment);
  CHECK(w.not_recorded.empty());
  CHECK(w.compared > 20);
}

TEST_CASE("what changed: a fact that already varied among the reference nights is not a suspect when tonight repeats one") {
  const std::vector<RunFacts> nights = {facts(new_environment(23, "c1")), facts(new_environment(23, "c1"), "d2")};
  const WhatChanged w = what_changed(nights, {facts(new_environment(23, "c1"), "d2")});
  CHECK(w.suspects.empty());
  CHECK(what_changed_lines(w).at(0).rfind("- no recorded fact differs (", 0) == 0);
  // The data's content changed: named, after the processor and libraries.
  const WhatChanged d = what_changed(nights, {facts(new_environment(23, "c1"), "d3")});
  REQUIRE(d.suspects.size() == 1);
  CHECK(d.suspects[0].text() == "config.workload.data_hash (data): d1 | d2 -> d3");
}

TEST_CASE("what changed: facts an older report lacks are not recorded, never a difference") {
  // Fails if a missing key read as a value ("" or null) that differs.
  const WhatChanged w = what_changed({facts(old_environment("c1"))}, {facts(new_environment(25, "c1"))});
  CHECK(w.suspects.empty());
  for (const char* key : {"cpu.family", "cpu.isa.avx512f", "env_vars.OMP_NUM_THREADS", "cpu.vendor"}) {
    CAPTURE(key);
    CHECK(std::find(w.not_recorded.begin(), w.not_recorded.end(), key) != w.not_recorded.end());
  }
  // The kernel release older reports kept inside "os" is compared.
  json moved = old_environment("c1");
  moved["os"] = "Linux 6.19.1 x86_64";
  const WhatChanged k = what_changed({facts(moved)}, {facts(new_environment(25, "c1"))});
  REQUIRE(k.suspects.size() == 1);
  CHECK(k.suspects[0].text() == "kernel (kernel): 6.19.1 -> 6.18.44-fc-v657");
  // A watched variable set tonight: "not set" before (the older side only
  // knows the ones that were set).
  json set = new_environment(23, "c1");
  set["env_vars"]["OMP_NUM_THREADS"] = "1";
  const WhatChanged t = what_changed({facts(new_environment(23, "c1"))}, {facts(set)});
  REQUIRE(t.suspects.size() == 1);
  CHECK(t.suspects[0].text() == "env_vars.OMP_NUM_THREADS (settings): not set -> 1");
  CHECK(what_changed({}, {facts(set)}).empty());
}

TEST_CASE("what changed: GPUs, their driver, clocks and power limit, in that order") {
  // Fails if NVML's per-GPU facts were not read (a capped power limit would go unnamed).
  auto gpu_env = [](const std::string& name, const std::string& driver, double power_w) {
    json e = new_environment(25, "c1");
    e["gpus"] = json::array({{{"name", name}, {"capability", "9.0"}}});
    e["driver_version"] = driver;
    e["nvml"] = {{"available", true},
                 {"gpus", json::array({{{"clocks_max_mhz", {{"sm", 1980}, {"memory", 2619}}}, {"power_limit_w", power_w}}})}};
    return e;
  };
  const WhatChanged w = what_changed({facts(gpu_env("NVIDIA H100", "550.54", 700))},
                                     {facts(gpu_env("NVIDIA H200", "560.28", 500))});
  REQUIRE(w.suspects.size() == 3);
  CHECK(w.suspects[0].text() == "gpus.name (processor): NVIDIA H100 -> NVIDIA H200");
  CHECK(w.suspects[1].text() == "driver_version (driver): 550.54 -> 560.28");
  CHECK(w.suspects[2].text() == "nvml.gpus.power_limit_w (frequency): 700.0 -> 500.0");
}
