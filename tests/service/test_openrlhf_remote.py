"""OpenRLHF's remote reward (`--reward.remote_url`) against a real `spade serve` on 127.0.0.1: OpenRLHF 0.11.2's own
request function (`SingleTurnAgentExecutor._fetch_rewards_via_http`, aiohttp) posts its {query, prompts, labels}
and reads SPADE's {rewards, scores, extra_logs} as its rollout code does.

OpenRLHF is installed --no-deps beside aiohttp in a folder of its own (as for verl's client):
  pip install --target DIR aiohttp && pip install --no-deps --target DIR openrlhf==0.11.2
with DIR the venv's openrlhf-client folder or $SPADE_OPENRLHF_CLIENT. Only its agent module and its logging helper
are loaded, by path: the package root imports torch.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
import types
from pathlib import Path

import pytest

from spade.export.reward_fn import reward_func
from spade.groundtruth import ground_truth
from spade.policy.prompts import build_prompt
from spade.taskio import task_from_dict
from tests.service.helpers import Service

TASK = {"task_id": "double", "description": "double it", "signature": "def double(x: int) -> int:",
        "difficulty": 0.4, "test_cases": [{"input": [2], "expected": 4}],
        "hidden_test_cases": [{"input": [5], "expected": 10}, {"input": [-1], "expected": -2}]}


def _openrlhf_agent() -> types.ModuleType:
    folder = Path(os.environ.get("SPADE_OPENRLHF_CLIENT") or Path(sys.prefix) / "openrlhf-client")
    source = folder / "openrlhf" / "utils" / "agent.py"
    if not source.is_file():
        pytest.skip(f"OpenRLHF's client is not at {folder}: pip install --target {folder} aiohttp && "
                    f"pip install --no-deps --target {folder} openrlhf==0.11.2")
    if "openrlhf.utils.agent" not in sys.modules:
        if str(folder) not in sys.path:
            sys.path.append(str(folder))  # after the venv's own packages: only what it lacks (aiohttp) comes from here
        for name, path in (("openrlhf", folder / "openrlhf"), ("openrlhf.utils", folder / "openrlhf" / "utils")):
            package = types.ModuleType(name)
            package.__path__ = [str(path)]  # the package without its __init__ (which imports torch)
            sys.modules.setdefault(name, package)
        spec = importlib.util.spec_from_file_location("openrlhf.utils.agent", source)
        module = importlib.util.module_from_spec(spec)
        sys.modules["openrlhf.utils.agent"] = module
        spec.loader.exec_module(module)
    return sys.modules["openrlhf.utils.agent"]


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    svc = Service(tmp_path_factory.mktemp("openrlhf"), {"executor": {"workers": 2, "memory_limit": "256m"}})
    yield svc
    svc.stop()


def test_openrlhfs_remote_reward_client_gets_spades_rewards(service):
    agent = _openrlhf_agent()
    executor = agent.SingleTurnAgentExecutor(remote_rm_url=f"{service.url}/v1/openrlhf/reward")
    task = task_from_dict(TASK)
    label = ground_truth(task)
    prompt = "<|user|>double it<|assistant|>" + build_prompt(task).prefill  # ends inside the opening fence
    answers = {"def double(x):\n    return 2 * x\n```": 1.0,
               "def double(x):\n    return {2: 4}.get(x, 0)\n```": 0.0,  # hard-codes the public test
               "I cannot help with that.": 0.0}
    for response, score in answers.items():
        [info] = asyncio.run(executor._fetch_rewards_via_http([prompt + response], [prompt], [label]))
        assert set(info) == {"rewards", "scores", "extra_logs"}
        assert info["scores"] == [pytest.approx(score)], (response, info)
        local = reward_func([prompt + response], [prompt], [label])  # the same answer through SPADE's reward file
        assert info["rewards"] == [pytest.approx(float(local["rewards"][0]))], (info, local)
        assert info["scores"] == [pytest.approx(float(local["scores"][0]))], (info, local)
        assert all(isinstance(v, float) for v in info["extra_logs"].values())
        assert info["extra_logs"]["spade/acc"] == float(score == 1.0)


def test_a_batch_in_openrlhfs_format_is_graded_in_order_and_a_bad_label_names_its_row(service):
    task = task_from_dict(TASK)
    label = ground_truth(task)
    body = {"query": ["```python\ndef double(x):\n    return x + x\n```", "```python\ndef double(x):\n    return 0\n```"],
            "prompts": ["q1", "q2"], "labels": [label, label]}
    status, _, answer = service.request("POST", "/v1/openrlhf/reward", body)
    assert status == 200 and answer["scores"] == [1.0, 0.0] and answer["rewards"][0] > answer["rewards"][1]
    status, _, answer = service.request("POST", "/v1/openrlhf/reward", {**body, "labels": [label, "not json"]})
    assert status == 422 and answer["detail"].startswith("labels[1]: ground_truth is not JSON"), answer
    status, _, answer = service.request("POST", "/v1/openrlhf/reward", {**body, "prompts": ["q1"]})
    assert status == 422 and "give one each" in str(answer["detail"])
