#!/usr/bin/env bash
# A short SPADE loop on a CUDA GPU: the embedded policy samples and trains there (training.device=cuda), with RFT
# and then GRPO, one iteration each on the tiny config. On a host without a GPU it prints "skipped: no GPU" and
# exits 0, so CI (CPU only) may call it. Usage: bash scripts/gpu_smoke.sh [PYTHON [--set KEY=VALUE ...]]
# (default .venv/bin/python; the --set pairs go to every `spade run`, e.g. training.model=/path/to/model.gguf).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-.venv/bin/python}
EXTRA=("${@:2}")
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1 \
   || ! "$PY" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    echo "skipped: no GPU"
    exit 0
fi
nvidia-smi -L
"$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0),
"bf16", torch.cuda.is_bf16_supported())'
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for method in ${SMOKE_METHODS:-rft grpo}; do
    start=$(date +%s)
    "$PY" -m spade run --config configs/tiny.yaml --run-dir "$out/$method" --iterations 1 \
        --set training.device=cuda --set training.update_method=$method --set eval.every=0 "${EXTRA[@]}"
    "$PY" - "$out/$method" "$method" "$start" <<'PY'
import sys, time
from spade.store import RunStore
with RunStore(sys.argv[1], read_only=True) as store:
    iterations = store.last_iteration() + 1
    models = {m for (m,) in store.query("SELECT DISTINCT model FROM candidates")}
assert iterations == 1, f"{sys.argv[2]}: {iterations} iterations committed"
assert models and all(m.endswith(":cuda") for m in models), f"{sys.argv[2]}: sampled by {models}"
print(f"gpu_smoke: {sys.argv[2]} ok, 1 iteration in {time.time() - float(sys.argv[3]):.0f} s, models {sorted(models)}")
PY
done
echo "gpu_smoke: done"
