"""training.device: auto picks CUDA when torch sees one, else the CPU, for the embedded sampler and the trainers.
These run the real CPU path on this host (no GPU is faked); scripts/gpu_smoke.sh runs the CUDA path on a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from spade.config import SamplingConfig, TrainingConfig, load_config
from spade.errors import ConfigError
from spade.policy.device import Device, load_dtype, model_device, resolve_device

CPU_HOST = not torch.cuda.is_available()
needs_cpu_host = pytest.mark.skipif(not CPU_HOST, reason="this host has a GPU; the CPU path is tested on CPU hosts")


@needs_cpu_host
def test_auto_is_the_cpu_here_and_its_trainer_args_are_what_trl_accepts_on_a_cpu() -> None:
    from trl import GRPOConfig

    device = resolve_device("auto")
    assert device == Device("cpu", bf16=False) and resolve_device("cpu") == device
    args = GRPOConfig(output_dir="unused", report_to=[], **device.trainer_args())
    assert args.use_cpu and not args.bf16 and str(args.device) == "cpu"


@needs_cpu_host
def test_cuda_on_a_host_without_one_is_one_line_naming_the_field() -> None:
    with pytest.raises(ConfigError) as err:
        resolve_device("cuda")
    assert "training.device = 'cuda'" in str(err.value) and "\n" not in str(err.value)


def test_an_unknown_device_is_refused_when_the_config_loads() -> None:
    with pytest.raises(ConfigError) as err:
        load_config(None, {"training.device": "gpu"})
    assert "training.device" in str(err.value) and "\n" not in str(err.value).strip()
    assert load_config(None, {"training.device": "cpu"}).training.device == "cpu"


def test_dtype_auto_on_a_gpu_follows_its_bf16_support() -> None:
    assert load_dtype("auto", Device("cuda", bf16=True)) == "bfloat16"
    assert load_dtype("auto", Device("cuda", bf16=False)) == "float32"
    assert load_dtype("float32", Device("cuda", bf16=True)) == "float32"


@needs_cpu_host
@pytest.mark.parametrize("engine", ["static", "hf"])
def test_the_embedded_policy_loads_and_samples_on_the_device_auto_picks(engine: str) -> None:
    from spade.evaluate import load_suite
    from spade.policy.embedded import EmbeddedPolicy

    task = load_suite("builtin")[0]
    policy = EmbeddedPolicy(SamplingConfig(max_new_tokens=8, engine=engine, dtype="float32"),
                            TrainingConfig(device="auto"))
    out = policy.sample([task], 2, seed=1)
    assert policy.device == Device("cpu", bf16=False)
    assert model_device(policy.model).type == "cpu"
    assert len(out[0]) == 2 and all(c.new_tokens >= 1 for c in out[0])
