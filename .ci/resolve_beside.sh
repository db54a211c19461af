#!/usr/bin/env bash
# SPADE's extras resolve beside the GPU trainers' own pins: `pip install --dry-run` (resolution only; it downloads
# metadata, installs nothing) of SPADE with its extras plus verl 0.9.1, then plus OpenRLHF 0.11.2.
# OpenRLHF pins flash-attn and deepspeed, published as source only: reading their metadata runs their setup.py,
# which imports torch, so it runs without build isolation in .venv (which has torch) and skips their CUDA builds.
set -euo pipefail
cd "$(dirname "$0")/.."
PIP=".venv/bin/python -m pip --disable-pip-version-check"
EXTRAS=".[model,train,export,service,ray,wandb,report,eval,test]"
for trainer in verl==0.9.1 openrlhf==0.11.2; do
    FLASH_ATTENTION_SKIP_CUDA_BUILD=TRUE DS_BUILD_OPS=0 $PIP install -q --dry-run --ignore-installed \
        --no-build-isolation --report - "$EXTRAS" "$trainer" 2>/dev/null \
        | .venv/bin/python -c 'import json, sys
report = json.load(sys.stdin)
got = {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in report["install"]}
print("resolve_beside: " + sys.argv[1] + " resolves with " + ", ".join(
    f"{k} {got[k]}" for k in ("spade-coevolution", "transformers", "torch", "trl", "ray") if k in got))' "$trainer"
done
