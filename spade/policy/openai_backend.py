"""The OpenAI-compatible policy: sampling from any chat-completions server (vLLM, SGLang, llama.cpp, a hosted API).

In: tasks and n. Out: n `Completion`s per task, like `EmbeddedPolicy.sample`. Chat completions cannot prefill the
answer, so the opening fence is not forced; a leading fence the model writes itself is removed from the text, which
then reads like the embedded policy's (it continues after the fence) and the forgiving extractor takes it from there.
Tokens per second come from the server's `usage` counts. The server's weights are not trained from here.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence

from spade.config import SamplingConfig
from spade.errors import ModelError
from spade.policy.embedded import Completion
from spade.policy.prompts import Prompt, build_prompt, variant_for
from spade.records import Task
from spade.serving.client import ChatClient, ChatRequest, ChatResult

ProgressFn = Callable[[int, int], None]
_LEADING_FENCE = re.compile(r"\A\s*```[A-Za-z0-9_+.-]*[ \t]*\n")


class OpenAIPolicy:
    """Samples completions over HTTP; one request per (task, prompt variant), with `n` answers each."""

    def __init__(self, sampling: SamplingConfig | None = None, client: ChatClient | None = None) -> None:
        self.sampling = sampling or SamplingConfig(backend="openai")
        self.client = client or ChatClient.from_sampling(self.sampling)
        self.last_tokens_per_s = 0.0
        self.total_new_tokens = 0
        self.total_generate_seconds = 0.0
        self.total_sequences = 0

    @property
    def name(self) -> str:
        return f"openai:{self.client.model}"

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
        groups = _groups(tasks, n)
        requests = [
            ChatRequest(
                messages=prompt.messages, n=len(indices), temperature=temp, top_p=self.sampling.top_p,
                max_tokens=self.sampling.max_new_tokens, seed=_request_seed(seed, t, prompt.variant),
            )
            for t, prompt, indices in groups
        ]
        started = time.perf_counter()
        results = self._run(requests, on_progress)
        elapsed = time.perf_counter() - started
        out: list[list[Completion | None]] = [[None] * n for _ in tasks]
        tokens = 0
        for (t, prompt, indices), result in zip(groups, results):
            counts = _per_choice_tokens(result)
            tokens += sum(counts)
            for i, text, count in zip(indices, result.texts, counts):
                out[t][i] = Completion(_after_opening_fence(text), count, prompt.variant, prompt.hash)
        self.last_tokens_per_s = tokens / elapsed if elapsed > 0 else 0.0
        self.total_new_tokens += tokens
        self.total_generate_seconds += elapsed
        self.total_sequences += len(tasks) * n
        return [[c for c in row if c is not None] for row in out]

    def _run(self, requests: list[ChatRequest], on_progress: ProgressFn | None) -> list[ChatResult]:
        if on_progress is None:
            return self.client.chat_many(requests)
        # Report progress per chunk of `concurrency` requests; the server sees the same load either way.
        results: list[ChatResult] = []
        step = self.client.concurrency
        for first in range(0, len(requests), step):
            results += self.client.chat_many(requests[first : first + step])
            on_progress(len(results), len(requests))
        return results


def _groups(tasks: Sequence[Task], n: int) -> list[tuple[int, Prompt, list[int]]]:
    """(task index, prompt, sample indices) per distinct prompt variant: one request asks for all its samples."""
    groups = []
    for t, task in enumerate(tasks):
        by_variant: dict[int, list[int]] = {}
        for i in range(n):
            by_variant.setdefault(variant_for(i), []).append(i)
        for v, indices in sorted(by_variant.items()):
            groups.append((t, build_prompt(task, v), indices))
    return groups


def _request_seed(seed: int, task_index: int, variant: int) -> int:
    # Distinct per (run seed, task, variant) so a redone iteration asks the same questions with the same seeds.
    return (seed * 1_000_003 + task_index * 31 + variant) % (2**31 - 1)


def _per_choice_tokens(result: ChatResult) -> list[int]:
    """The server reports usage per request; split it over that request's choices."""
    k = len(result.texts)
    if not k:
        return []
    if not result.usage_reported:
        # No usage from the server: about four characters per token, so throughput is still roughly right.
        return [max(1, len(t) // 4) for t in result.texts]
    base, extra = divmod(result.completion_tokens, k)
    return [base + (1 if i < extra else 0) for i in range(k)]


def _after_opening_fence(text: str) -> str:
    """The answer as if the fence had been prefilled: drop a leading ```lang line the model wrote itself."""
    match = _LEADING_FENCE.match(text)
    return text[match.end():] if match else text
