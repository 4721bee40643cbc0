#!/usr/bin/env python3
"""Tiny Hugging Face checkpoints in each layout a fine-tuning run may start
from, and what from_pretrained reports when a sequence classifier loads them.

For DistilBERT and BERT, one small random body (fixed seed) is saved with
save_pretrained as the task model (XForSequenceClassification), the bare body
(XModel: no prefix) and the masked-LM model (XForMaskedLM: prefixed body,
vocab_* / cls.predictions head, and for BERT no pooler). Each folder is then
loaded with XForSequenceClassification.from_pretrained(output_loading_info=
True); tests/test_checkpoint_layouts.cpp requires ftbench to load the same body
tensors exactly and to report the same newly initialised and unused tensors.

  .venv/bin/pip install -r tools/requirements-golden.txt
  .venv/bin/python tools/golden_layouts.py tests/fixtures/layouts
"""
import json
import pathlib
import sys

import torch
import transformers
from transformers import (BertConfig, BertForMaskedLM, BertForSequenceClassification, BertModel,
                          DistilBertConfig, DistilBertForMaskedLM, DistilBertForSequenceClassification,
                          DistilBertModel)

FAMILIES = {
    "distilbert": (
        DistilBertConfig(vocab_size=40, max_position_embeddings=24, n_layers=2, n_heads=2, dim=16,
                         hidden_dim=24, pad_token_id=0),
        DistilBertForSequenceClassification, DistilBertModel, DistilBertForMaskedLM),
    "bert": (
        BertConfig(vocab_size=40, max_position_embeddings=24, num_hidden_layers=2, num_attention_heads=2,
                   hidden_size=16, intermediate_size=24, type_vocab_size=2, pad_token_id=0),
        BertForSequenceClassification, BertModel, BertForMaskedLM),
}


def main(out_dir: str) -> None:
    out = pathlib.Path(out_dir)
    report = {"generator": f"tools/golden_layouts.py, torch {torch.__version__}, "
                           f"transformers {transformers.__version__}"}
    for family, (config, task_cls, base_cls, mlm_cls) in FAMILIES.items():
        torch.manual_seed(99)
        task = task_cls(config)
        with torch.no_grad():  # away from the init, so a tensor left at init shows up
            for p in task.parameters():
                p.add_(torch.randn_like(p) * 0.1)
        prefix = task.base_model_prefix + "."
        body = {k[len(prefix):]: v for k, v in task.state_dict().items() if k.startswith(prefix)}
        for layout, cls in (("task", task_cls), ("base", base_cls), ("mlm", mlm_cls)):
            folder = out / f"{family}-{layout}"
            if cls is task_cls:
                model = task
            else:
                torch.manual_seed(7)
                model = cls(config)
                own_prefix = "" if cls is base_cls else prefix
                missing, _ = model.load_state_dict({own_prefix + k: v for k, v in body.items()}, strict=False)
                assert not [k for k in missing if "pooler" not in k and "embeddings" in k], missing
            model.save_pretrained(folder, safe_serialization=True)
            loaded, info = task_cls.from_pretrained(folder, output_loading_info=True)
            body_max_diff = max((loaded.state_dict()[prefix + k] - v).abs().max().item()
                                for k, v in body.items() if (prefix + k) in loaded.state_dict()
                                and (layout != "mlm" or "pooler" not in k))
            assert body_max_diff == 0, (folder, body_max_diff)
            report[folder.name] = {
                "newly_initialized": sorted(info["missing_keys"]),
                "unused": sorted(info["unexpected_keys"]),
            }
            print(folder.name, report[folder.name])
    (out / "layouts.json").write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/layouts")
