"""The embedded policy: SmolLM2-135M-Instruct through transformers, sampled in large left-padded batches.

In: tasks and n. Out: n `Completion`s per task, deterministic for a given seed and thread count (an interrupted
iteration can be redone exactly; `sampling.threads` 0 picks the count by load, spade.policy.threads). The
`model`/`tokenizer` pair is shared with the trainer, which updates it in place; LoRA adapters saved by training
can be loaded for sampling with `load_adapter`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spade.config import SamplingConfig, TrainingConfig
from spade.errors import ModelError
from spade.kinds.python_function.extract import extract_code
from spade.policy.batching import available_bytes, batch_size, row_bytes
from spade.policy.model_files import resolve_dtype
from spade.policy.prompts import FENCE_CLOSE, Prompt, build_prompt, render_chat, variant_for
from spade.policy.stops import stop_rule
from spade.records import PYTHON_FUNCTION, Completion, Task

ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class _Job:
    task_index: int
    sample_index: int
    prompt: Prompt
    text: str


class EmbeddedPolicy:
    """Samples completions from the embedded model; the model loads on first use (lazy torch import)."""

    def __init__(self, sampling: SamplingConfig | None = None, training: TrainingConfig | None = None) -> None:
        self.sampling = sampling or SamplingConfig()
        self.training = training or TrainingConfig()
        from spade.policy.model_files import EMBEDDED, resolve_model

        if self.training.model != EMBEDDED:
            resolve_model(self.training.model)  # a model that is not on disk is named now, before any work
        self.dtype = resolve_dtype(self.sampling.dtype)
        self.name = f"embedded:{self.training.model}:{self.dtype}"
        self._model: Any = None
        self._tokenizer: Any = None
        self._decoder: Any = None  # the sampling.engine's decoder, rebuilt when the model object changes
        self._thread_fit: Any = None  # spade.policy.threads.ThreadFit under sampling.threads 0
        self.device: Any = None  # spade.policy.device.Device, resolved from training.device when the model loads
        self.last_tokens_per_s = 0.0
        self.threads_in_use = 0  # torch threads of the last sampling call or update (0: none yet)
        self.total_new_tokens = 0
        self.total_generate_seconds = 0.0
        self.total_sequences = 0

    # -- the shared model -------------------------------------------------------------------------------
    @property
    def model(self) -> Any:
        self._ensure_loaded()
        return self._model

    @model.setter
    def model(self, value: Any) -> None:
        self._model = value

    @property
    def tokenizer(self) -> Any:
        self._ensure_loaded()
        return self._tokenizer

    def _ensure_loaded(self) -> None:
        if self._model is not None:
            return
        import torch

        from spade.policy.device import load_dtype, resolve_device
        from spade.policy.model_files import load_model
        from spade.policy.threads import torch_default_threads

        torch_default_threads()  # read before any count is set in this process
        if self.sampling.threads > 0:
            torch.set_num_threads(self.sampling.threads)
        self.device = resolve_device(self.training.device)
        if self.device.cuda:  # the name recorded with each sample says where and in what precision it ran
            self.dtype = load_dtype(self.sampling.dtype, self.device)
            self.name = f"embedded:{self.training.model}:{self.dtype}:cuda"
        self._model, self._tokenizer = load_model(self.dtype, self.training.model)
        if self.device.cuda:
            self._model.to(self.device.name)

    def load_adapter(self, path: str | Path) -> None:
        """Apply a LoRA adapter saved by training. Loads into the existing adapter in place when there is one,
        so an optimizer holding those parameters stays valid."""
        from peft import PeftModel, load_peft_weights, set_peft_model_state_dict

        path = Path(path)
        if not (path / "adapter_config.json").is_file():
            raise ModelError(f"adapter path {path} holds no adapter_config.json; pass a directory saved by training")
        if isinstance(self.model, PeftModel):
            result = set_peft_model_state_dict(self.model, load_peft_weights(str(path)))
            if getattr(result, "unexpected_keys", None):
                raise ModelError(f"adapter at {path} does not fit the loaded adapter (rank or targets differ)")
        else:
            self.model = PeftModel.from_pretrained(self.model, str(path), is_trainable=True)
        self.model.eval()

    # -- prompts shared with training ------------------------------------------------------------------
    def prompt_text(self, task: Task, variant: int) -> str:
        """The exact text the model continues for `task` in prompt `variant` (chat template + prefilled fence)."""
        return render_chat(self.tokenizer, build_prompt(task, variant))

    def training_target(self, task: Task, completion: str) -> str:
        """What training teaches after the prompt: for a Python function task the extracted code, then a closing
        fence (see spade.train.rft); for other kinds the completion as sampled (it continues the kind's own prefill,
        and the Python extractor would cut a program, a query or an answer line)."""
        if task.kind != PYTHON_FUNCTION:
            return completion
        code = extract_code(completion, task.entry_point)
        return (code.rstrip("\n") + FENCE_CLOSE) if code else completion

    @property
    def thread_fit(self) -> Any:
        """The spade.policy.threads.ThreadFit choosing torch's thread count under sampling.threads 0, else None."""
        if self._thread_fit is None and self.sampling.threads == 0:
            from spade.policy.threads import ThreadFit

            self._thread_fit = ThreadFit()
        return self._thread_fit

    def fit_threads(self) -> int:
        """torch's thread count for the work about to run (sampling or an update): sampling.threads, or under 0
        the cores other processes leave idle (spade.policy.threads), re-measured at most every 30 s."""
        import torch

        self._ensure_loaded()  # which reads torch's default count before any is set
        fit = self.thread_fit
        if fit is not None:
            self.threads_in_use = fit.apply()
        else:  # the configured count, again: another model in this process may have set its own since
            self.threads_in_use = self.sampling.threads
            if torch.get_num_threads() != self.threads_in_use:
                torch.set_num_threads(self.threads_in_use)
        return self.threads_in_use

    # -- sampling --------------------------------------------------------------------------------------
    def sample(
        self,
        tasks: Sequence[Task],
        n: int,
        *,
        temperature: float | None = None,
        seed: int = 0,
        on_progress: ProgressFn | None = None,
    ) -> list[list[Completion]]:
        """n completions per task, in task order. temperature 0 is greedy; None takes the config's."""
        if n < 1:
            raise ModelError(f"sampling n = {n} must be at least 1")
        temp = self.sampling.temperature if temperature is None else temperature
        self.fit_threads()
        jobs = self._jobs(tasks, n)
        # Greedy decoding gives one answer per distinct prompt: generate each once and copy it.
        unique: dict[tuple[int, int], _Job] = {}
        for job in jobs:
            key = (job.task_index, job.prompt.variant) if temp == 0 else (job.task_index, job.sample_index)
            unique.setdefault(key, job)
        to_run = sorted(unique.values(), key=lambda j: (len(j.text), j.task_index, j.sample_index))
        outputs = self._generate_all(to_run, temp, seed, on_progress)
        result: list[list[Completion]] = [[] for _ in tasks]
        for job in jobs:
            key = (job.task_index, job.prompt.variant) if temp == 0 else (job.task_index, job.sample_index)
            text, count = outputs[id(unique[key])]
            result[job.task_index].append(Completion(text, count, job.prompt.variant, job.prompt.hash))
        return result

    def _jobs(self, tasks: Sequence[Task], n: int) -> list[_Job]:
        jobs = []
        for t, task in enumerate(tasks):
            prompts = {}
            for i in range(n):
                v = variant_for(i)
                if v not in prompts:
                    prompts[v] = build_prompt(task, v)
                jobs.append(_Job(t, i, prompts[v], render_chat(self.tokenizer, prompts[v])))
        return jobs

    def _generate_all(
        self, jobs: list[_Job], temp: float, seed: int, on_progress: ProgressFn | None
    ) -> dict[int, tuple[str, int]]:
        size = self.batch_size_for([j.text for j in jobs])
        outputs: dict[int, tuple[str, int]] = {}
        started = time.perf_counter()
        tokens = 0
        for b, first in enumerate(range(0, len(jobs), size)):
            batch = jobs[first : first + size]
            for job, (text, count) in zip(batch, self._generate(batch, temp, _batch_seed(seed, b))):
                outputs[id(job)] = (text, count)
                tokens += count
            if on_progress is not None:
                on_progress(min(first + size, len(jobs)), len(jobs))
        elapsed = time.perf_counter() - started
        self.last_tokens_per_s = tokens / elapsed if elapsed > 0 else 0.0
        self.total_new_tokens += tokens
        self.total_generate_seconds += elapsed
        self.total_sequences += len(jobs)
        return outputs

    def batch_size_for(self, texts: list[str]) -> int:
        """Rows per generate call for these prompt texts (sorted by length, as sampling sorts them):
        sampling.batch_size, or under `auto` what fits (spade.policy.batching), sized by the longest prompts."""
        if self.sampling.batch_size != "auto" or not texts:
            return batch_size(self.sampling.batch_size, len(texts), 0, 0)
        longest = max(len(self.tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts[-4:])
        elem = 2 if self.dtype == "bfloat16" else 4
        need = row_bytes(self.model.config, longest, self.sampling.max_new_tokens, elem)
        return batch_size("auto", len(texts), need, _free_bytes(self.model))

    def _generate(self, batch: list[_Job], temp: float, seed: int) -> list[tuple[str, int]]:
        if self._decoder is None or self._decoder.model is not self.model:
            self._decoder = make_decoder(self.sampling.engine, self.model, self.tokenizer)
        self.model.eval()
        return self._decoder.generate([j.text for j in batch], max_new_tokens=self.sampling.max_new_tokens,
                                      temperature=temp, top_p=self.sampling.top_p, seed=seed,
                                      stops=[stop_rule(j.prompt.stop) for j in batch])


def make_decoder(engine: str, model: Any, tokenizer: Any) -> Any:
    """The decoder named by `sampling.engine` over the shared model (see SamplingConfig.engine); under `auto`, the
    static one where it runs the model's architecture, else transformers' forward. A model on a GPU always gets
    transformers' forward (the static decoder allocates and samples on the CPU)."""
    from spade.policy.device import model_device

    if engine == "auto":
        from spade.policy.live_weights import static_unsupported

        engine = "hf" if static_unsupported(model) is not None else "static"
    if engine == "hf" or model_device(model).type != "cpu":
        from spade.policy.decode import Decoder

        return Decoder(model, tokenizer)
    from spade.policy.static_decode import StaticDecoder

    return StaticDecoder(model, tokenizer)


def _free_bytes(model: Any) -> int:
    """Memory a sampling batch may use: free GPU memory for a model on a GPU, else the host's available memory."""
    from spade.policy.device import model_device

    device = model_device(model)
    if device.type == "cuda":
        import torch

        return int(torch.cuda.mem_get_info(device)[0])
    return available_bytes()


def _batch_seed(seed: int, batch_index: int) -> int:
    # Distinct per batch and per seed (for fewer than 100003 batches), so reruns repeat exactly.
    return seed * 100_003 + batch_index

