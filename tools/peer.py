#!/usr/bin/env python3
"""The Python peer: the reference's own baseline loop, side by side with ftbench.

Hugging Face `DistilBertForSequenceClassification`, `torch.optim.Adam`, a plain
loop (zero_grad, forward, cross-entropy, backward, step), on exactly what
ftbench's `peer` row hands it:

  --model DIR     the initial weights, an HF folder ftbench wrote
                  (config.json + model.safetensors), loaded with from_pretrained;
  --batches FILE  the tokenized batches in ftbench's order, one safetensors
                  file: train.<epoch>.<step>.{input_ids,attention_mask,labels},
                  val.<i>.*, test.<i>.* (int64; epoch and indices 0-based).

It times like ftbench's loop (core/train/train_loop.cpp): one wall-clock
reading around each step, the device synchronised at its end; the first
--warmup-steps steps are kept but left out of the median; validation after
every epoch inside the wall time, test after it; before it all, the same
untimed warm-up pass as ftbench's (3 steps of a throwaway copy). Writes one JSON object
(schema ftbench.peer/1) to --out.

Variants (the peer's best on a GPU): --amp fp16 (autocast + GradScaler, as
the reference's step 3), --amp bf16, --compile (torch.compile of the model).
On a CPU the fp16 and compile variants exit with status 3 and the reason on
stderr, as ftbench's CUDA-only rows are skipped.

Standalone (after `ftbench run --scenarios peer keep_peer_files=1`):
  python tools/peer.py --model OUT/peer/model --batches OUT/peer/batches.safetensors --out peer.json
"""
import argparse
import copy
import json
import os
import random
import resource
import sys
import time

SCHEMA = "ftbench.peer/1"
SKIP = 3  # exit status: the variant cannot run here (reason on stderr)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True, help="HF folder: config.json + model.safetensors")
    p.add_argument("--batches", required=True, help="safetensors file of batches (see above)")
    p.add_argument("--out", required=True, help="JSON file to write")
    p.add_argument("--device", default="cpu", help="cpu | cuda | cuda:N")
    p.add_argument("--threads", type=int, default=0, help="intra-op threads; 0 = torch's default")
    p.add_argument("--lr", type=float, default=5e-5)
    p.add_argument("--foreach", choices=["auto", "on", "off"], default="auto",
                   help="Adam's foreach kernels (auto = PyTorch's pick: on for CUDA)")
    p.add_argument("--warmup-steps", type=int, default=2, help="steps left out of the median")
    p.add_argument("--seed", type=int, default=123)
    p.add_argument("--attn", default="sdpa", choices=["sdpa", "eager"], help="attn_implementation")
    p.add_argument("--amp", default="none", choices=["none", "fp16", "bf16"])
    p.add_argument("--compile", action="store_true", help="torch.compile the model")
    return p.parse_args(argv)


def skip(reason):
    print(reason, file=sys.stderr)
    sys.exit(SKIP)


def group_batches(tensors):
    """{"train.E.I.input_ids": t, ...} -> (train[epoch][step], val[i], test[i]) as dicts of tensors."""
    train, val, test = {}, {}, {}
    for key, t in tensors.items():
        parts = key.split(".")
        if parts[0] == "train" and len(parts) == 4:
            train.setdefault(int(parts[1]), {}).setdefault(int(parts[2]), {})[parts[3]] = t
        elif parts[0] in ("val", "test") and len(parts) == 3:
            (val if parts[0] == "val" else test).setdefault(int(parts[1]), {})[parts[2]] = t
        else:
            raise SystemExit(f"peer.py: unexpected tensor {key!r} in the batches file")
    epochs = [[train[e][i] for i in sorted(train[e])] for e in sorted(train)]
    return epochs, [val[i] for i in sorted(val)], [test[i] for i in sorted(test)]


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return 0.0
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def median_ci(values, seed, level=0.95, resamples=2000):
    """Percentile-bootstrap interval of the median (ftbench's reports use the same kind)."""
    if len(values) < 2:
        return [median(values), median(values)]
    rng = random.Random(seed)
    meds = sorted(median(rng.choices(values, k=len(values))) for _ in range(resamples))
    lo = meds[int((1 - level) / 2 * resamples)]
    hi = meds[min(resamples - 1, int((1 + level) / 2 * resamples))]
    return [lo, hi]


def main(argv):
    args = parse_args(argv)
    import torch
    import transformers
    from safetensors.torch import load_file

    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        skip(f"device {args.device} asked for, but this torch {torch.__version__} sees no CUDA device")
    if device.type == "cpu" and args.amp == "fp16":
        skip("fp16 autocast with loss scaling is the CUDA variant (the reference's step 3); on CPU use --amp bf16")
    if device.type == "cpu" and args.compile:
        skip("torch.compile is measured on a GPU only (on CPU it needs a C++ toolchain at run time and "
             "minutes of compilation on 2 cores)")
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    model = transformers.DistilBertForSequenceClassification.from_pretrained(
        args.model, attn_implementation=args.attn, dtype=torch.float32)
    model.to(device)
    model.train()
    foreach = {"auto": None, "on": True, "off": False}[args.foreach]
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, foreach=foreach)
    forward_model = torch.compile(model) if args.compile else model
    scaler = torch.amp.GradScaler("cuda") if args.amp == "fp16" else None
    amp_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(args.amp)

    epochs, val, test = group_batches(load_file(args.batches))
    # On the device before the clock starts (ftbench's loader prepares its
    # batches on a thread; neither side's timed step includes tokenization).
    to_dev = lambda b: {k: v.to(device) for k, v in b.items()}  # noqa: E731
    epochs = [[to_dev(b) for b in e] for e in epochs]
    val, test = [to_dev(b) for b in val], [to_dev(b) for b in test]

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    def forward(b):
        with torch.autocast(device.type, dtype=amp_dtype, enabled=amp_dtype is not None):
            logits = forward_model(input_ids=b["input_ids"], attention_mask=b["attention_mask"]).logits
        loss = torch.nn.functional.cross_entropy(logits.float(), b["labels"])
        return loss, logits.argmax(1) == b["labels"]

    def evaluate(batches):
        # hits: each example's 1 (right) or 0, in the batches' order (ftbench
        # places them in the split's order: its per-example test hits).
        model.eval()
        loss_sum, correct, n, hits = 0.0, 0, 0, []
        with torch.no_grad():
            for b in batches:
                loss, right = forward(b)
                k = b["labels"].shape[0]
                loss_sum += loss.item() * k
                correct += int(right.sum().item())
                hits.append("".join("1" if x else "0" for x in right.tolist()))
                n += k
        model.train()
        return {"loss": loss_sum / n if n else 0.0, "acc": correct / n if n else 0.0, "samples": n,
                "hits": "".join(hits)}

    # The untimed warm-up pass ftbench's sweep makes once per process
    # (core/train/warmup.h): a throwaway copy trains 3 steps on the first
    # batch and evaluates once, so neither side's timed steps pay one-time
    # setup (allocator, oneDNN primitive caches, CUDA handles, compilation).
    warmup_s = 0.0
    if epochs and epochs[0]:
        throwaway = copy.deepcopy(model)
        throwaway_forward = torch.compile(throwaway) if args.compile else throwaway
        throwaway_adam = torch.optim.Adam(throwaway.parameters(), lr=args.lr, foreach=foreach)
        b = epochs[0][0]
        sync()
        t0 = time.perf_counter()
        for _ in range(3):
            throwaway_adam.zero_grad()
            with torch.autocast(device.type, dtype=amp_dtype, enabled=amp_dtype is not None):
                logits = throwaway_forward(input_ids=b["input_ids"], attention_mask=b["attention_mask"]).logits
            torch.nn.functional.cross_entropy(logits.float(), b["labels"]).backward()
            throwaway_adam.step()
        throwaway.eval()
        with torch.no_grad(), torch.autocast(device.type, dtype=amp_dtype, enabled=amp_dtype is not None):
            throwaway_forward(input_ids=b["input_ids"], attention_mask=b["attention_mask"])
        sync()
        warmup_s = time.perf_counter() - t0
        del throwaway, throwaway_forward, throwaway_adam
        torch.manual_seed(args.seed)  # the timed run's dropout as without the pass

    steps, epoch_records = [], []
    train_time_s, skipped_steps = 0.0, 0
    sync()
    wall_start = time.perf_counter()
    for e, batches in enumerate(epochs, start=1):
        epoch_start = time.perf_counter()
        loss_sum, correct, samples = 0.0, 0, 0
        for b in batches:
            t1 = time.perf_counter()
            optimizer.zero_grad()
            loss, hits = forward(b)
            if scaler is not None:
                scale = scaler.get_scale()
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                skipped_steps += scaler.get_scale() < scale  # the update halves it after inf/NaN
            else:
                loss.backward()
                optimizer.step()
            sync()  # the step is done when the device is
            t2 = time.perf_counter()
            rec = {"step": len(steps) + 1, "epoch": e, "step_ms": (t2 - t1) * 1e3, "loss": loss.item(),
                   "samples": int(b["labels"].shape[0]), "tokens": int(b["attention_mask"].sum().item()),
                   "seq_len": int(b["input_ids"].shape[1])}
            loss_sum += rec["loss"]
            correct += int(hits.sum().item())
            samples += rec["samples"]
            steps.append(rec)
        time_s = time.perf_counter() - epoch_start
        train_time_s += time_s
        v = evaluate(val)
        n_steps = len(batches)
        epoch_records.append({"epoch": e, "train_loss": loss_sum / n_steps if n_steps else 0.0,
                              "train_acc": correct / samples if samples else 0.0,
                              "val_loss": v["loss"], "val_acc": v["acc"], "time_s": time_s})
    sync()
    wall_time_s = time.perf_counter() - wall_start
    t = evaluate(test)

    timed = [s["step_ms"] for s in steps if s["step"] > args.warmup_steps]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    if device.type == "cuda":
        peak = torch.cuda.max_memory_allocated(device)
    out = {
        "schema": SCHEMA,
        "attn_implementation": model.config._attn_implementation,
        "torch_version": torch.__version__,
        "transformers_version": transformers.__version__,
        "python_version": sys.version.split()[0],
        "device": str(device),
        "threads": torch.get_num_threads(),
        # glibc malloc's thresholds as this process got them (ftbench's allocator=tuned exports them)
        "glibc_tunables": os.environ.get("GLIBC_TUNABLES"),
        "amp": args.amp,
        "compiled": args.compile,
        "optimizer": f"torch.optim.Adam(foreach={foreach})",
        "warmup_steps": args.warmup_steps,
        "warmup_pass_s": warmup_s,
        "steps": steps,
        "epochs": epoch_records,
        "wall_time_s": wall_time_s,
        "train_time_s": train_time_s,
        "train_samples": sum(s["samples"] for s in steps),
        "train_tokens": sum(s["tokens"] for s in steps),
        "step_ms_median": median(timed),
        "step_ms_median_ci95": median_ci(timed, args.seed),
        "test": t,
        "peak_bytes": peak,
        "peak_bytes_source": "cuda_max_allocated" if device.type == "cuda" else "process_max_rss",
        "skipped_steps": skipped_steps,
    }
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
