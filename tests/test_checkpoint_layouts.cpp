// Pre-trained checkpoints in each layout (task model, bare body, masked LM;
// DistilBERT and BERT) load the body exactly and report what from_pretrained
// reports (fixtures and its report from tools/golden_layouts.py).
#include <doctest/doctest.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

#include "core/model/checkpoint.h"
#include "core/model/safetensors.h"
#include "core/base/errors.h"
#include "core/base/files.h"

namespace {

const std::string kLayouts = std::string(FTB_FIXTURES_DIR) + "/layouts";

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> strings(const nlohmann::json& j) { return j.get<std::vector<std::string>>(); }

}  // namespace

TEST_CASE("layouts: every checkpoint layout loads the body exactly and reports as from_pretrained") {
  std::ifstream in(kLayouts + "/layouts.json");
  REQUIRE(in.good());
  const auto hf = nlohmann::json::parse(in);
  for (const std::string family : {"distilbert", "bert"}) {
    auto reference = ftb::load_model_dir(kLayouts + "/" + family + "-task");
    const auto want = reference->named_parameters();
    for (const std::string layout : {"task", "base", "mlm"}) {
      const std::string name = family + "-" + layout;
      CAPTURE(name);
      ftb::LoadReport report;
      auto model = ftb::load_model_dir(kLayouts + "/" + name, &report);
      CHECK(ftb::to_string(model->config.type) == family);
      CHECK(sorted(report.initialised) == strings(hf.at(name).at("newly_initialized")));
      CHECK(sorted(report.ignored) == strings(hf.at(name).at("unused")));
      int body_tensors = 0;
      for (const auto& item : model->named_parameters()) {
        if (model->is_head_parameter(item.key()) &&
            std::find(report.initialised.begin(), report.initialised.end(), item.key()) != report.initialised.end())
          continue;  // fresh init, as from_pretrained
        CAPTURE(item.key());
        CHECK(torch::equal(item.value(), want[item.key()]));
        ++body_tensors;
      }
      CHECK(body_tensors >= 16);  // embeddings and both layers
    }
  }
}

TEST_CASE("layouts: a checkpoint whose tensors fit neither layout names the file and the key") {
  // A BERT body read as DistilBERT: neither "distilbert.embeddings..." nor "embeddings..." of DistilBERT's.
  const auto bert = ftb::SafetensorsFile::read(kLayouts + "/bert-base/model.safetensors");
  ftb::TempDir dir("ftb-layout-");
  const std::string path = dir.path() + "/model.safetensors";
  ftb::write_safetensors(path, {{"transformer.wte.weight", torch::zeros({40, 16})}});
  auto model = ftb::load_model_dir(kLayouts + "/distilbert-task");
  try {
    ftb::load_weights(model, path);
    FAIL("expected InputError");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()) ==
          path + ": tensors fit neither the distilbert task layout nor the bare body layout (no key "
                 "\"distilbert.embeddings.word_embeddings.weight\" or \"embeddings.word_embeddings.weight\"; "
                 "config.json says model_type distilbert)");
  }
  // BERT's body names under a DistilBERT config: the layout probe finds the
  // embeddings, then every transformer tensor is missing, named.
  ftb::write_safetensors(path, {{"embeddings.word_embeddings.weight", bert.tensor("embeddings.word_embeddings.weight")}});
  try {
    ftb::load_weights(model, path);
    FAIL("expected InputError");
  } catch (const ftb::InputError& e) {
    CHECK(std::string(e.what()).rfind(path + ": missing tensors distilbert.embeddings.position_embeddings.weight", 0) == 0);
  }
}
