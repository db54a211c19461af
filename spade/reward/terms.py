"""The reward: a pure function of (task, candidate code, execution result, config) -> `Reward`.

Hidden tests decide the pass term; public tests are what the policy saw, so passing all public tests while
failing hidden ones flags suspected hard-coding (write-up §5.2). The interference and memory terms use what the
sandbox observed (its events, its kernel-measured peak memory). Each term is reported separately.
"""

from __future__ import annotations

import math

from spade.config import RewardConfig
from spade.records import ExecResult, ExecStatus, Reward, Task

# Behaviour the sandbox observed that counts as interference (write-up §3.5: reading system files, reaching
# the network, spawning processes, printing beside the return value, flooding output).
INTERFERENCE_EVENTS = frozenset({
    "output_flood", "stray_output", "syscall_denied", "file_access", "process_spawn", "socket",
    # What the pre-execution screen (spade.audit) found in the code: shell-outs, network, credential paths,
    # destructive file operations. The sandbox refuses these calls (EPERM) without reporting each one.
    "screen:shell", "screen:network", "screen:credentials", "screen:destructive_fs",
})
FORMAT_FAILURES = frozenset({ExecStatus.SYNTAX_ERROR, ExecStatus.NO_ENTRY_POINT})


def compute_reward(task: Task, code: str, result: ExecResult, cfg: RewardConfig) -> Reward:
    """Reward in [-(interference + format + efficiency + memory), 1 + difficulty_bonus]."""
    format_penalty = cfg.format_penalty if (not code.strip() or result.status in FORMAT_FAILURES) else 0.0
    interference = cfg.interference_penalty if INTERFERENCE_EVENTS.intersection(result.events) else 0.0
    hidden = result.hidden_score if task.hidden_test_cases else result.score
    solved = hidden == 1.0 and result.score == 1.0
    pass_fraction = hidden if cfg.partial_credit else float(solved)
    hardcoding = bool(task.hidden_test_cases) and result.public_score == 1.0 and result.hidden_score < 1.0
    if result.timed_out:
        # A timeout scores 0 on the pass term: an endless loop must never be a way to skip hard tests.
        pass_fraction = 0.0
        solved = False
    bonus = cfg.difficulty_bonus * task.difficulty if solved else 0.0
    efficiency = efficiency_penalty(task, result, cfg) if pass_fraction > 0 else 0.0
    memory = memory_penalty(result, cfg)
    total = pass_fraction + bonus - efficiency - interference - format_penalty - memory
    return Reward(
        total=round(total, 6),
        pass_fraction=pass_fraction,
        difficulty_bonus=bonus,
        efficiency_penalty=efficiency,
        interference_penalty=interference,
        format_penalty=format_penalty,
        hardcoding_suspected=hardcoding,
        memory_penalty=memory,
    )


def efficiency_penalty(task: Task, result: ExecResult, cfg: RewardConfig) -> float:
    """Grows with log(candidate CPU / reference CPU) beyond the free ratio, capped at the weight."""
    reference = (task.reference_cpu_s or 0.0) * max(1, len(task.all_tests))
    if reference <= 0 or cfg.efficiency_weight == 0:
        return 0.0
    ratio = result.cpu_time_s / max(reference, 1e-4)
    if ratio <= cfg.efficiency_free_ratio:
        return 0.0
    excess = math.log(ratio / cfg.efficiency_free_ratio) / math.log(100.0)
    return cfg.efficiency_weight * min(1.0, excess)


def memory_penalty(result: ExecResult, cfg: RewardConfig) -> float:
    """Zero up to memory_free_fraction of the memory limit the candidate ran under, then linear up to
    memory_weight at the limit. Applies whether or not it passed: holding memory is a cost either way."""
    limit = result.memory_limit_kb
    free = cfg.memory_free_fraction * limit
    if limit <= 0 or cfg.memory_weight == 0 or result.peak_memory_kb <= free or free >= limit:
        return 0.0
    return cfg.memory_weight * min(1.0, (result.peak_memory_kb - free) / (limit - free))


def learnability(solve_rate: float) -> float:
    """The proposer's reward for a task in self-play: 1 - solve rate while the policy sometimes solves it,
    0 when it always or never does (nothing to learn from either)."""
    if not 0.0 <= solve_rate <= 1.0:
        raise ValueError(f"solve rate {solve_rate} is not a fraction")
    return 1.0 - solve_rate if 0.0 < solve_rate < 1.0 else 0.0
