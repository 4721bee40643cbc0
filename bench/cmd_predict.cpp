// ftbench predict --model DIR --input FILE.jsonl: one {"logits": [...],
// "label": k} line per input, for {"text": ...} lines (tokenized with the
// model folder's tokenizer.json or vocab.txt) or {"input_ids": [...], "attention_mask": [...]}.
#include <iostream>

#include "bench/commands.h"
#include "bench/jsonl.h"
#include "core/model/checkpoint.h"
#include "core/measure/device.h"
#include "core/text/tokenizer_json.h"

namespace ftb {
namespace {

struct Args {
  std::string model, input, vocab, device = "cpu";
  int max_length = 512;
  int batch_size = 32;
};

int predict(const Args& a) {
  configure_threads(0);
  const auto lines = read_jsonl(a.input);
  // A checkpoint without our head (e.g. a base model) would predict with random weights.
  auto model = load_model_dir(a.model, nullptr, MissingHead::reject);
  model->eval();
  const auto device = resolve_device(a.device);
  model->to(device);

  std::unique_ptr<WordPieceTokenizer> tok;
  std::vector<std::vector<int64_t>> ids(lines.size()), masks(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& j = lines[i];
    const std::string where = a.input + ": entry " + std::to_string(i + 1);
    PredictLine line = predict_line(j, where);
    if (line.has_text) {
      if (!tok) {
        std::string vocab = a.vocab.empty() ? model_tokenizer_file(a.model) : a.vocab;
        tok = std::make_unique<WordPieceTokenizer>(load_tokenizer_file(vocab));
      }
      for (int32_t id : tok->encode(line.text, a.max_length)) ids[i].push_back(id);
      masks[i].assign(ids[i].size(), 1);
    } else {
      ids[i] = std::move(line.ids);
      masks[i] = std::move(line.mask);
    }
    check_predict_ids(ids[i], model->config.max_position_embeddings, model->config.vocab_size, where);
  }

  torch::NoGradGuard no_grad;
  for (std::size_t start = 0; start < lines.size(); start += a.batch_size) {
    const std::size_t end = std::min(lines.size(), start + a.batch_size);
    // Pad the batch to its longest row; padding is masked, so logits do not
    // depend on the batch composition.
    std::size_t T = 0;
    for (std::size_t i = start; i < end; ++i) T = std::max(T, ids[i].size());
    const auto B = static_cast<int64_t>(end - start);
    auto input = torch::full({B, static_cast<int64_t>(T)}, model->config.pad_token_id, torch::kLong);
    auto mask = torch::zeros({B, static_cast<int64_t>(T)}, torch::kLong);
    for (std::size_t i = start; i < end; ++i) {
      const auto n = static_cast<int64_t>(ids[i].size());
      input[i - start].narrow(0, 0, n).copy_(torch::tensor(ids[i]));
      mask[i - start].narrow(0, 0, n).copy_(torch::tensor(masks[i]));
    }
    auto logits = model->forward(input.to(device), mask.to(device)).to(torch::kCPU).to(torch::kDouble);
    for (int64_t b = 0; b < B; ++b) {
      auto row = logits[b];
      std::vector<double> values(row.data_ptr<double>(), row.data_ptr<double>() + row.numel());
      std::cout << nlohmann::json{{"logits", values}, {"label", row.argmax().item<int64_t>()}}.dump() << "\n";
    }
  }
  return 0;
}

}  // namespace

Command add_predict_command(CLI::App& app) {
  auto a = std::make_shared<Args>();
  auto* sub = app.add_subcommand("predict", "classify JSON lines with a Hugging Face-format model folder");
  sub->add_option("--model", a->model, "model folder (config.json, model.safetensors, tokenizer.json or vocab.txt)")->required();
  sub->add_option("--input", a->input, "JSON lines: {\"text\": ...} or {\"input_ids\": [...], \"attention_mask\": [...]}")
      ->required();
  sub->add_option("--vocab", a->vocab, "vocab.txt or tokenizer.json (default: the model folder's)");
  sub->add_option("--max-length", a->max_length, "truncation for text inputs")->check(CLI::Range(2, 1 << 20));
  sub->add_option("--batch-size", a->batch_size, "inputs per forward pass")->check(CLI::PositiveNumber);
  sub->add_option("--device", a->device, "cpu | cuda | cuda:N | auto");
  return {sub, [a] { return predict(*a); }};
}

}  // namespace ftb
