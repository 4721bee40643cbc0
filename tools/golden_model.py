#!/usr/bin/env python3
"""Golden outputs of Hugging Face's DistilBertForSequenceClassification and
BertForSequenceClassification.

For each architecture, builds a small random model (fixed seed), saves it with save_pretrained, and
records on fixed inputs (with padded rows): eval-mode logits and loss, then the
parameters and logits after one torch.optim.Adam step (lr 5e-5) in train mode
with every dropout set to 0. tests/test_model_golden.cpp requires the C++
model to reproduce them; the test itself needs no Python.

  .venv/bin/pip install -r tools/requirements-golden.txt
  .venv/bin/python tools/golden_model.py tests/fixtures/golden_model
  .venv/bin/python tools/golden_model.py tests/fixtures/golden_bert bert
"""
import json
import pathlib
import sys

import torch
import transformers
from safetensors.torch import save_file
from transformers import (BertConfig, BertForSequenceClassification, DistilBertConfig,
                          DistilBertForSequenceClassification)


def make_model(arch: str):
    if arch == "bert":
        # type_vocab_size 2 and a non-default eps: both must come from config.json.
        config = BertConfig(
            vocab_size=101, max_position_embeddings=40, num_hidden_layers=2, num_attention_heads=4,
            hidden_size=32, intermediate_size=48, hidden_dropout_prob=0.1,
            attention_probs_dropout_prob=0.1, type_vocab_size=2, layer_norm_eps=1e-7,
            num_labels=2, pad_token_id=0, hidden_act="gelu")
        config._attn_implementation = "eager"
        return config, BertForSequenceClassification(config)
    config = DistilBertConfig(
        vocab_size=101, max_position_embeddings=40, n_layers=2, n_heads=4, dim=32,
        hidden_dim=48, dropout=0.1, attention_dropout=0.1, seq_classif_dropout=0.2,
        num_labels=2, pad_token_id=0, activation="gelu")
    config._attn_implementation = "eager"
    return config, DistilBertForSequenceClassification(config)


def main(out_dir: str, arch: str) -> None:
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(1234)
    config, model = make_model(arch)
    # HF's init is N(0, 0.02) with LayerNorm 1/0: perturb everything so that a
    # swapped or mis-named tensor (e.g. the two LayerNorms of a block) shows up.
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    model.save_pretrained(out, safe_serialization=True)

    B, T = 4, 16
    lengths = [16, 11, 5, 1]  # a full row, padded rows, and a [CLS]-only row
    input_ids = torch.zeros(B, T, dtype=torch.long)
    attention_mask = torch.zeros(B, T, dtype=torch.long)
    for b, n in enumerate(lengths):
        input_ids[b, :n] = torch.randint(1, config.vocab_size, (n,))
        attention_mask[b, :n] = 1
    labels = torch.tensor([1, 0, 1, 0])

    model.eval()
    with torch.no_grad():
        o = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels)
    eval_logits, eval_loss = o.logits, o.loss

    model.train()
    for m in model.modules():
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.0
    opt = torch.optim.Adam(model.parameters(), lr=5e-5)
    o = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels)
    train_loss = o.loss
    opt.zero_grad()
    o.loss.backward()
    opt.step()
    save_file({k: v.detach().contiguous() for k, v in model.state_dict().items()},
              str(out / "after_adam_step.safetensors"), metadata={"format": "pt"})
    model.eval()
    with torch.no_grad():
        after_logits = model(input_ids=input_ids, attention_mask=attention_mask).logits

    golden = {
        "generator": f"tools/golden_model.py, torch {torch.__version__}, transformers {transformers.__version__}",
        "input_ids": input_ids.tolist(),
        "attention_mask": attention_mask.tolist(),
        "labels": labels.tolist(),
        "eval_logits": eval_logits.tolist(),
        "eval_loss": eval_loss.item(),
        "train_loss": train_loss.item(),
        "adam_lr": 5e-5,
        "after_step_logits": after_logits.tolist(),
    }
    (out / "golden.json").write_text(json.dumps(golden, indent=1) + "\n")
    print(f"wrote {out}: eval loss {eval_loss.item():.6f}, train loss {train_loss.item():.6f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/golden_model",
         sys.argv[2] if len(sys.argv) > 2 else "distilbert")
