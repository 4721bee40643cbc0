#include "core/model/checkpoint.h"

#include <algorithm>
#include <filesystem>

#include "core/base/files.h"
#include "core/base/fnv_hash.h"
#include "core/base/errors.h"
#include "core/model/safetensors.h"
#include "core/base/json_text.h"

namespace ftb {
namespace fs = std::filesystem;

namespace {

bool starts_with(const std::string& s, const std::string& head) { return s.rfind(head, 0) == 0; }

// What `model`'s parameter `name` is called in the file: the same name in the
// task model's layout, without the body prefix in a bare body's. Decided once
// per file by where the word embeddings are, so a file mixing layouts fails
// on the tensors it lacks instead of loading half of each.
std::string body_strip(const SequenceClassifier& model, const SafetensorsFile& file, const std::string& path) {
  const std::string probe = "embeddings.word_embeddings.weight";
  const std::string prefix = model->body_prefix();
  if (file.contains(prefix + probe)) return "";
  if (file.contains(probe)) return prefix;
  input_error(path, "tensors fit neither the " + to_string(model->config.type) + " task layout nor the bare " +
                        "body layout (no key \"" + prefix + probe + "\" or \"" + probe + "\"; config.json says " +
                        "model_type " + to_string(model->config.type) + ")");
}

// Tensors from_pretrained drops without a word: buffers older transformers
// saved (position_ids of BERT's embeddings).
bool silently_ignored(const std::string& key) {
  return key.size() >= 12 && key.compare(key.size() - 12, 12, "position_ids") == 0;
}

}  // namespace

LoadReport load_weights(SequenceClassifier& model, const std::string& path, MissingHead missing_head) {
  const auto file = SafetensorsFile::read(path);
  const std::string strip = body_strip(model, file, path);
  LoadReport report;
  std::vector<std::string> used, missing;
  uint64_t hash = kFnvOffset;
  torch::NoGradGuard no_grad;
  for (auto& item : model->named_parameters()) {
    const std::string& name = item.key();
    const std::string key = !strip.empty() && starts_with(name, strip) ? name.substr(strip.size()) : name;
    if (!file.contains(key)) {
      const bool fresh = model->is_head_parameter(name) && missing_head == MissingHead::initialise;
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
    const torch::Tensor bytes = p.detach().to(torch::kCPU).contiguous();
    hash = fnv1a64(name.data(), name.size(), hash);
    hash = fnv1a64(bytes.data_ptr(), bytes.numel() * bytes.element_size(), hash);
  }
  // All of them at once: a wrong checkpoint usually misses many, not one.
  if (!missing.empty()) {
    const bool for_inference = missing_head == MissingHead::reject;
    input_error(path, "missing tensors " + names_for_message(missing) +
                          (for_inference ? " (predicting needs every tensor of the classification model)" : ""));
  }
  for (const auto& [key, entry] : file.entries())
    if (std::find(used.begin(), used.end(), key) == used.end() && !silently_ignored(key))
      report.ignored.push_back(key);
  report.weights_hash = hex64(hash);
  return report;
}

SequenceClassifier load_model_dir(const std::string& dir, LoadReport* report, MissingHead missing_head) {
  if (!fs::is_directory(dir)) input_error(dir, "model folder does not exist");
  auto model = make_classifier(read_config((fs::path(dir) / "config.json").string()));
  auto r = load_weights(model, (fs::path(dir) / "model.safetensors").string(), missing_head);
  if (report) *report = r;
  return model;
}

void save_model_dir(SequenceClassifier& model, const std::string& dir) {
  make_directories(dir);  // POSIX, as every folder ftbench creates (core/base/files.h)
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& item : model->named_parameters())
    tensors.emplace_back(item.key(), item.value().to(torch::kFloat32));
  write_safetensors((fs::path(dir) / "model.safetensors").string(), tensors);

  write_file_atomic((fs::path(dir) / "config.json").string(), json_file_text(config_to_json(model->config)));
}

}  // namespace ftb
