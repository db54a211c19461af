"""sampling.backend openai with an in-loop trainer (sampling.lora_reload: vllm): a real RFT update of the local copy
on CPU, then the adapter is written and the server is asked to load it (vLLM's /v1/load_lora_adapter), and later
samples name it. The server here is a small HTTP server on 127.0.0.1 that records requests: no inference server
that runs here can load an adapter by path at run time (llama.cpp's /lora-adapters only rescales adapters given
at its start; vLLM needs a GPU)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytest.importorskip("peft")

from spade.config import load_config
from spade.errors import ConfigError
from spade.evaluate import load_suite
from spade.policy.backends import openai as openai_backend
from spade.train.base import UpdateBatch
from spade.train.methods import rft

SUM_EVENS = next(t for t in load_suite("builtin") if t.task_id == "builtin/sum_evens")
RIGHT = "def sum_evens(nums):\n    return sum(n for n in nums if n % 2 == 0)\n```"


class Recorder(BaseHTTPRequestHandler):
    requests: list[tuple[str, dict]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append((self.path, body))
        if self.path.endswith("/chat/completions"):
            answer = {"choices": [{"index": i, "message": {"role": "assistant", "content": "```python\n" + RIGHT},
                                   "finish_reason": "stop"} for i in range(body.get("n", 1))],
                      "usage": {"prompt_tokens": 10, "completion_tokens": 12}}
            self._send(200, json.dumps(answer).encode(), "application/json")
        else:
            self._send(200, b"Success: LoRA adapter updated", "text/plain")

    def _send(self, code: int, data: bytes, kind: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server():
    Recorder.requests = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.slow  # loads the model and runs two RFT steps: about a minute on 2 shared cores
def test_each_update_writes_the_adapter_and_the_server_loads_it_for_later_samples(server: str, tmp_path: Path) -> None:
    import torch

    torch.manual_seed(0)
    cfg = load_config(None, {"sampling.backend": "openai", "sampling.base_url": server, "sampling.api_model": "base",
                             "sampling.lora_reload": "vllm", "sampling.adapter_dir": str(tmp_path / "adapters"),
                             "sampling.dtype": "float32", "training.update_method": "rft", "training.lora_r": 4,
                             "training.epochs": 0, "training.steps_per_update": 1, "training.batch_size": 1,
                             "training.kl_beta": 0.0, "training.device": "cpu"})
    policy = openai_backend(cfg)
    trainer = rft(cfg, policy, None)
    trainer.prepare()
    policy.sample([SUM_EVENS], 1)
    assert Recorder.requests[-1][1]["model"] == "base"  # before any update: the server's own model

    trainer.update(UpdateBatch(seed=0, examples=((SUM_EVENS, RIGHT),)))
    path, body = Recorder.requests[-1]
    assert path == "/v1/load_lora_adapter" and body["lora_name"] == "spade-adapter-1"
    saved = Path(body["lora_path"])
    assert (saved / "adapter_config.json").is_file() and (saved / "adapter_model.safetensors").is_file()
    assert trainer.updates == 1  # read through to the real trainer
    policy.sample([SUM_EVENS], 2)
    assert Recorder.requests[-1][1]["model"] == "spade-adapter-1"

    trainer.update(UpdateBatch(seed=1, examples=((SUM_EVENS, RIGHT),)))
    assert [(p, b["lora_name"]) for p, b in Recorder.requests[-2:]] == [
        ("/v1/load_lora_adapter", "spade-adapter-2"), ("/v1/unload_lora_adapter", "spade-adapter-1")]
    # The adapter pushed is the one trained: its weights moved between the two updates.
    from safetensors.torch import load_file

    first, second = (load_file(str(tmp_path / "adapters" / f"spade-adapter-{i}" / "adapter_model.safetensors"))
                     for i in (1, 2))
    assert any(not torch.equal(first[k], second[k]) for k in first)


def test_an_in_loop_trainer_with_a_server_needs_lora_reload() -> None:
    with pytest.raises(ConfigError, match="sampling.lora_reload: vllm"):
        load_config(None, {"sampling.backend": "openai", "training.update_method": "rft"})
    with pytest.raises(ConfigError, match="training.lora_r = 0"):
        load_config(None, {"sampling.backend": "openai", "training.update_method": "rft",
                           "sampling.lora_reload": "vllm", "training.lora_r": 0})
