#!/usr/bin/env bash
# `ftbench predict`: model folders (safetensors, config.json, heads, layouts) and the golden predictions.
#   tests/cli/predict.sh FTBENCH FIXTURES CASE
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case "$case_name" in
  missing_safetensors)
    model_copy; rm "$tmp/m/model.safetensors"
    echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    expect_error 2 model.safetensors "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" ;;
  truncated_safetensors)
    model_copy; truncate -s 50000 "$tmp/m/model.safetensors"
    echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    expect_error 2 model.safetensors "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" ;;
  config_missing_key)
    model_copy; python3 -c "import json,sys; p=sys.argv[1]; c=json.load(open(p)); del c['dim']; json.dump(c,open(p,'w'))" "$tmp/m/config.json"
    echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    expect_error 2 '"dim"' "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" ;;
  shape_mismatch)
    model_copy; python3 -c "import json,sys; p=sys.argv[1]; c=json.load(open(p)); c['hidden_dim']=64; json.dump(c,open(p,'w'))" "$tmp/m/config.json"
    echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    expect_error 2 'shape' "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" ;;
  predict_without_head)
    # A checkpoint without our head would predict from random weights: refused, nothing printed.
    model_copy; echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    safetensors_edit "$fixtures/golden_model/model.safetensors" "$tmp/m/model.safetensors" 'classifier\.'
    expect_error 2 'model.safetensors: missing tensors classifier.weight, classifier.bias (' \
      "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl"
    [ ! -s "$tmp/out" ] || fail "printed logits: $(cat "$tmp/out")"
    safetensors_edit "$fixtures/golden_model/model.safetensors" "$tmp/m/model.safetensors" '(pre_)?classifier\.'
    expect_error 2 'missing tensors pre_classifier.weight, pre_classifier.bias, classifier.weight and 1 more' \
      "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" ;;
  model_type_unknown)
    model_copy; python3 -c "import json,sys; p=sys.argv[1]; c=json.load(open(p)); c['model_type']='gpt2'; json.dump(c,open(p,'w'))" "$tmp/m/config.json"
    echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    expect_error 2 'config.json: key "model_type" is "gpt2"; supported: distilbert, bert' \
      "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" ;;
  checkpoint_neither_layout)
    model_copy
    safetensors_edit "$fixtures/golden_model/model.safetensors" "$tmp/m/model.safetensors" 'distilbert\.' gpt.wte.weight=101x32
    echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    expect_error 2 'model.safetensors: tensors fit neither the distilbert task layout nor the bare body layout (no key "distilbert.embeddings.word_embeddings.weight"' \
      "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" ;;
  predict_matches_golden)
    python3 - "$fixtures/golden_model/golden.json" >"$tmp/in.jsonl" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
for ids, mask in zip(g["input_ids"], g["attention_mask"]):
    print(json.dumps({"input_ids": ids, "attention_mask": mask}))
PY
    "$ftbench" predict --model "$fixtures/golden_model" --input "$tmp/in.jsonl" >"$tmp/out" || fail "predict failed"
    python3 - "$fixtures/golden_model/golden.json" "$tmp/out" <<'PY' || fail "logits differ from Hugging Face"
import json, sys
g = json.load(open(sys.argv[1]))
rows = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == len(g["eval_logits"]), len(rows)
for want, got in zip(g["eval_logits"], rows):
    d = max(abs(a - b) for a, b in zip(want, got["logits"]))
    assert d <= 1e-5, d
    assert got["label"] == max(range(len(want)), key=lambda i: want[i])
PY
    ;;
  huge_safetensors_header)
    # A header claiming 10 GB in an 11 GB (sparse) file: refused before reading.
    model_copy; echo '{"input_ids":[1,2,3]}' >"$tmp/in.jsonl"
    rss_of "$tmp/rss0" "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl" >/dev/null || fail "predict failed"
    python3 -c 'import struct,sys; open(sys.argv[1],"wb").write(struct.pack("<Q", 10 << 30))' "$tmp/m/model.safetensors"
    truncate -s 11G "$tmp/m/model.safetensors"
    start=$SECONDS
    expect_error 2 'model.safetensors: header length 10737418240 is out of bounds (1 byte to the 100 MiB limit)' \
      rss_of "$tmp/rss1" "$ftbench" predict --model "$tmp/m" --input "$tmp/in.jsonl"
    [ $((SECONDS - start)) -le 10 ] || fail "took $((SECONDS - start)) s"
    rss_within "$tmp/rss0" "$tmp/rss1" 64 ;;
  *) fail "unknown case" ;;
esac
echo "ok [$case_name]"
