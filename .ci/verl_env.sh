#!/usr/bin/env bash
# verl 0.9.1 in its own virtualenv (its pins clash with SPADE's [model] extra), for the tests that drive verl's
# own reward loop and dataset code with SPADE's scorer and dataset (tests/env/test_verl_*.py).
# CPU only: torch is installed first from the CPU wheel, so verl's dependencies never pull a CUDA build.
# Idempotent: an existing venv with verl 0.9.1 importable is kept. Usage: bash .ci/verl_env.sh [VENV_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-${SPADE_VERL_VENV:-.venv-verl}}
PY=${PYTHON:-python3}
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import verl, sys; sys.exit(verl.__version__ != "0.9.1")' 2>/dev/null; then
    echo "verl_env: $VENV ready (kept)"
    exit 0
fi
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
PIP="$VENV/bin/python -m pip --disable-pip-version-check -q"
$PIP install torch==2.13.0
$PIP install -c constraints/verl.txt verl==0.9.1
# SPADE itself without its extras (the light install): the scorer and SpadeDataset need only the core and torch.
$PIP install --no-deps -e .
$PIP install -c constraints/verl.txt "pydantic>=2.7,<3" pyyaml rich pyseccomp sympy
echo "verl_env: $VENV ready"
