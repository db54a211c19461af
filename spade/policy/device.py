"""Where the policy runs and trains: `training.device` (auto | cpu | cuda) resolved against this host.

In: the configured setting. Out: a `Device` record (torch device name, whether bf16 arithmetic is native there)
and the Hugging Face `TrainingArguments` fields that match it, so SPADE's own trainers (RFT, DPO, GRPO), the
embedded sampler and a user's TRL script (`spade.env.trl.device_args`) agree. auto picks CUDA when
`torch.cuda.is_available()`, else the CPU; cuda on a host without one is refused in one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spade.errors import ConfigError

DEVICES = ("auto", "cpu", "cuda")


@dataclass(frozen=True, slots=True)
class Device:
    """A resolved device: `name` is torch's ('cpu' or 'cuda'); `bf16` whether bfloat16 is native there."""

    name: str
    bf16: bool

    @property
    def cuda(self) -> bool:
        return self.name == "cuda"

    def trainer_args(self) -> dict[str, Any]:
        """`TrainingArguments` / `GRPOConfig` / `DPOConfig` fields for this device: CPU training in float32
        (use_cpu, no mixed precision: TRL's bf16 default refuses a CPU host), CUDA with bf16 where supported."""
        if not self.cuda:
            return {"use_cpu": True, "bf16": False, "fp16": False}
        return {"use_cpu": False, "bf16": self.bf16, "fp16": False}


def resolve_device(setting: str = "auto") -> Device:
    """`training.device` -> a Device on this host."""
    if setting not in DEVICES:
        raise ConfigError(f"training.device = {setting!r}: use one of {', '.join(DEVICES)}")
    import torch

    has_cuda = torch.cuda.is_available()
    if setting == "cuda" and not has_cuda:
        raise ConfigError("training.device = 'cuda' but torch sees no CUDA device on this host (torch "
                          f"{torch.__version__}); use 'auto' or 'cpu'")
    if setting == "cpu" or not has_cuda:
        return Device("cpu", bf16=False)
    return Device("cuda", bf16=bool(torch.cuda.is_bf16_supported()))


def model_device(model: Any) -> Any:
    """The torch device a model's weights are on (the CPU for a model without parameters)."""
    import torch

    first = next(iter(model.parameters()), None)
    return first.device if first is not None else torch.device("cpu")


def load_dtype(sampling_dtype: str, device: Device) -> str:
    """sampling.dtype for loading on `device`: auto on CUDA is bfloat16 where the GPU supports it, else float32;
    on the CPU auto follows the CPU's native bf16 support (spade.policy.model_files.resolve_dtype)."""
    if sampling_dtype != "auto" or not device.cuda:
        from spade.policy.model_files import resolve_dtype

        return resolve_dtype(sampling_dtype)
    return "bfloat16" if device.bf16 else "float32"
