#!/usr/bin/env bash
# `pip install .` (no extras) into a clean virtualenv, then the core's smoke test from outside the source tree:
# the light install (environment API, reward functions, exports, CLI) must work without torch.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(mktemp -d /tmp/spade-light.XXXXXX)
trap 'rm -rf "$venv"' EXIT
"${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/python" -m pip --disable-pip-version-check -q install .
cp .ci/light_smoke.py "$venv/smoke.py"
cp README.md "$venv/README.md"  # its snippets run from there
(cd "$venv" && ./bin/python smoke.py)
