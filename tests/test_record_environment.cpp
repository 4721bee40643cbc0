// reports/record/environment.h: the one Environment type readers use.
#include <doctest/doctest.h>

#include "reports/record/environment.h"

using nlohmann::json;

TEST_CASE("environment: named facts, absent or ill-typed ones empty, the JSON back as it came") {
  const json facts = {{"host", "box"},
                      {"timestamp", "2026-12-01T20:00:00Z"},
                      {"git_commit", "abc123"},
                      {"git_tree", "dirty"},
                      {"cpu", {{"model", "AMD EPYC"}, {"logical_cores", 2}}},
                      {"gpus", json::array({{{"name", "NVIDIA H200"}}, {{"index", 1}}})},
                      {"added_later", {{"nested", true}}}};
  const ftb::Environment e = facts;
  CHECK(e.host() == "box");
  CHECK(e.timestamp() == "2026-12-01T20:00:00Z");
  CHECK(e.git_commit() == "abc123");
  CHECK(e.git_tree() == "dirty");
  CHECK(e.cpu_model() == "AMD EPYC");
  CHECK(e.logical_cores() == 2);
  CHECK(e.gpu_names() == std::vector<std::string>{"NVIDIA H200", "?"});
  REQUIRE(e.find("added_later") != nullptr);
  CHECK(e.find("nope") == nullptr);
  CHECK(json(e) == facts);
  CHECK(facts.get<ftb::Environment>() == e);

  const ftb::Environment odd = json{{"host", 7}, {"cpu", "x"}, {"gpus", "none"}};
  CHECK(odd.host().empty());
  CHECK(odd.cpu_model().empty());
  CHECK(odd.logical_cores() == 0);
  CHECK(odd.gpu_names().empty());
  CHECK(ftb::Environment(json::array()).facts() == json::object());
  // A recorded empty name stays empty (history's machine keys were made so).
  const ftb::Environment blank = json{{"gpus", json::array({{{"name", ""}}})}};
  CHECK(blank.gpu_names() == std::vector<std::string>{""});
}

TEST_CASE("environment: one summary of the machine, GPUs by name and count first seen first") {
  ftb::Environment e = json{{"cpu", {{"model", "AMD EPYC"}, {"logical_cores", 2}}}};
  CHECK(ftb::gpu_summary(e).empty());
  CHECK(ftb::machine_summary(e) == "AMD EPYC, 2 cores");
  e["gpus"] = json::array({{{"name", "NVIDIA H200"}}, {{"name", "NVIDIA A100"}}, {{"name", "NVIDIA H200"}}});
  CHECK(ftb::gpu_summary(e) == "2x NVIDIA H200, NVIDIA A100");
  CHECK(ftb::machine_summary(e) == "2x NVIDIA H200, NVIDIA A100");
  CHECK(ftb::machine_summary(ftb::Environment()) == "unknown machine");
}
