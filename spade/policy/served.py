"""A policy sampled on an OpenAI-compatible server and trained here: the server reloads the LoRA adapter.

In: the config (sampling.backend openai, sampling.lora_reload vllm). The same model is loaded locally
(`EmbeddedPolicy`, on training.device) for the in-loop trainer, which updates it in place; sampling goes to the
server. Out: after each update (`push`, called by `spade.train.methods`) and each checkpoint load (a rollback), the
LoRA adapter is saved to a new folder under sampling.adapter_dir and the server is asked to load it under a new
name (vLLM: `POST {base_url}/load_lora_adapter {"lora_name", "lora_path"}`, the previous one unloaded); later
samples name it as their model. Until the first update the server's own model is sampled, which is the base
(the adapter starts at zero).
"""

from __future__ import annotations

import json
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from spade.config import SpadeConfig
from spade.errors import ModelError
from spade.policy.embedded import EmbeddedPolicy
from spade.policy.openai_backend import OpenAIPolicy
from spade.serving.client import ChatClient

ADAPTER_PREFIX = "spade-adapter-"


class ServedPolicy:
    """Trainable like `EmbeddedPolicy` (model, tokenizer, prompts, adapters), sampled like `OpenAIPolicy`."""

    def __init__(self, cfg: SpadeConfig) -> None:
        self.sampling = cfg.sampling
        self.training = cfg.training
        self.local = EmbeddedPolicy(cfg.sampling, cfg.training)
        self.remote = OpenAIPolicy(cfg.sampling)
        self.adapter_dir = Path(cfg.sampling.adapter_dir or tempfile.mkdtemp(prefix="spade-adapters-"))
        self.pushes = 0
        self.served: str | None = None  # the adapter name the server samples, once one was pushed

    # -- the trainer's side: the local model ------------------------------------------------------------
    @property
    def model(self) -> Any:
        return self.local.model

    @model.setter
    def model(self, value: Any) -> None:
        self.local.model = value

    @property
    def tokenizer(self) -> Any:
        return self.local.tokenizer

    @property
    def dtype(self) -> str:
        return self.local.dtype

    def prompt_text(self, task: Any, variant: int) -> str:
        return self.local.prompt_text(task, variant)

    def training_target(self, task: Any, completion: str) -> str:
        return self.local.training_target(task, completion)

    def load_adapter(self, path: str | Path) -> None:
        """A checkpoint's adapter (a rollback or a resume): loaded here, then onto the server."""
        self.local.load_adapter(path)
        self.push()

    # -- the sampler's side: the server -----------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.remote.name

    @property
    def last_tokens_per_s(self) -> float:
        return self.remote.last_tokens_per_s

    def sample(self, *args: Any, **kwargs: Any) -> Any:
        return self.remote.sample(*args, **kwargs)

    def push(self) -> str:
        """Save the local LoRA adapter and have the server load it; return the name samples now use."""
        from peft import PeftModel

        if not isinstance(self.local.model, PeftModel):
            raise ModelError("sampling.lora_reload: the policy has no LoRA adapter to push (training.lora_r is 0?)")
        self.pushes += 1
        name = f"{ADAPTER_PREFIX}{self.pushes}"
        path = (self.adapter_dir / name).resolve()
        self.local.model.save_pretrained(str(path))
        base = self.sampling.base_url.rstrip("/")
        _post(f"{base}/load_lora_adapter", {"lora_name": name, "lora_path": str(path)}, self.sampling)
        previous, self.served = self.served, name
        self.remote = OpenAIPolicy(self.sampling, ChatClient.from_sampling(self.sampling, model=name))
        if previous is not None:
            _post(f"{base}/unload_lora_adapter", {"lora_name": previous}, self.sampling)
        return name


def _post(url: str, payload: dict[str, str], sampling: Any) -> None:
    """One JSON POST to the inference server's adapter API; a refusal is a one-line ModelError."""
    import os

    headers = {"Content-Type": "application/json"}
    key = os.environ.get(sampling.api_key_env)
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url, data=json.dumps(payload).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=sampling.request_timeout_s) as resp:
            resp.read(65536)
    except urllib.error.HTTPError as exc:
        detail = exc.read(300).decode("utf-8", "replace").strip().splitlines()
        raise ModelError(f"sampling.lora_reload: {url} answered HTTP {exc.code} ({detail[0] if detail else ''}); "
                         "start vLLM with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True") from None
    except (urllib.error.URLError, OSError) as exc:
        raise ModelError(f"sampling.lora_reload: cannot reach {url} ({getattr(exc, 'reason', exc)}); check "
                         "sampling.base_url") from None
