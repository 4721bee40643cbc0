#include "core/model/checkpoint.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/text/files.h"
#include "core/text/errors.h"
#include "core/model/safetensors.h"

namespace ftb {
namespace fs = std::filesystem;

LoadReport load_weights(DistilBertForSequenceClassification& model, const std::string& path,
                        MissingHead missing_head) {
  const auto file = SafetensorsFile::read(path);
  LoadReport report;
  std::vector<std::string> used, missing;
  torch::NoGradGuard no_grad;
  for (auto& item : model->named_parameters()) {
    const std::string& name = item.key();
    std::string key = name;
    if (!file.contains(key) && name.rfind("distilbert.", 0) == 0 && file.contains(name.substr(11)))
      key = name.substr(11);  // a bare DistilBertModel checkpoint
    if (!file.contains(key)) {
      const bool fresh = is_head_parameter(name) && missing_head == MissingHead::initialise;
      (fresh ? report.initialised : missing).push_back(name);
      continue;
    }
    auto t = file.tensor(key);
    auto& p = item.value();
    if (t.sizes() != p.sizes()) {
      std::ostringstream msg;
      msg << "tensor \"" << key << "\" has shape " << t.sizes() << " but config.json implies " << p.sizes();
      input_error(path, msg.str());
    }
    if (!t.is_floating_point()) input_error(path, "tensor \"" + key + "\" is not floating point");
    p.copy_(t.to(p.dtype()));
    used.push_back(key);
  }
  // All of them at once: a wrong checkpoint usually misses many, not one.
  if (!missing.empty()) {
    const bool for_inference = missing_head == MissingHead::reject;
    input_error(path, "missing tensors " + names_for_message(missing) +
                          (for_inference ? " (predicting needs every tensor of the classification model)" : ""));
  }
  for (const auto& [key, entry] : file.entries())
    if (std::find(used.begin(), used.end(), key) == used.end()) report.ignored.push_back(key);
  return report;
}

DistilBertForSequenceClassification load_model_dir(const std::string& dir, LoadReport* report,
                                                   MissingHead missing_head) {
  if (!fs::is_directory(dir)) input_error(dir, "model folder does not exist");
  const auto cfg = read_config((fs::path(dir) / "config.json").string());
  DistilBertForSequenceClassification model(cfg);
  auto r = load_weights(model, (fs::path(dir) / "model.safetensors").string(), missing_head);
  if (report) *report = r;
  return model;
}

void save_model_dir(DistilBertForSequenceClassification& model, const std::string& dir) {
  make_directories(dir);  // POSIX, as every folder ftbench creates (core/text/files.h)
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& item : model->named_parameters())
    tensors.emplace_back(item.key(), item.value().to(torch::kFloat32));
  write_safetensors((fs::path(dir) / "model.safetensors").string(), tensors);

  write_file_atomic((fs::path(dir) / "config.json").string(), config_to_json(model->config).dump(2) + "\n");
}

}  // namespace ftb
