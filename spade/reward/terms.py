"""The built-in reward terms, in the order reward.terms lists them by default: the pass term, the difficulty
bonus, and the efficiency, interference, format and memory penalties.

Hidden tests decide the pass term; public tests are what the policy saw, so passing all public tests while
failing hidden ones flags suspected hard-coding (docs/method.md#hidden-tests-and-hard-coding). The interference
and memory terms use what the sandbox observed (its events, its kernel-measured peak memory). Each term is
reported separately.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from spade.records import ExecResult, ExecStatus, Task
from spade.reward.base import Outcome, RewardTerm, register_term

if TYPE_CHECKING:
    from spade.config import RewardConfig

# Behaviour the sandbox observed that counts as interference (docs/method.md#interference: reading system files,
# reaching the network, spawning processes, printing beside the return value, flooding output).
INTERFERENCE_EVENTS = frozenset({
    "output_flood", "stray_output", "syscall_denied", "file_access", "process_spawn", "socket",
    # What the pre-execution screen (spade.audit) found in the code: shell-outs, network, credential paths,
    # destructive file operations, reads of the host's files. The sandbox refuses these calls (EPERM) without
    # reporting each one.
    "screen:shell", "screen:network", "screen:credentials", "screen:destructive_fs", "screen:system_read",
})
FORMAT_FAILURES = frozenset({ExecStatus.SYNTAX_ERROR, ExecStatus.NO_ENTRY_POINT})


def passed(o: Outcome, cfg: RewardConfig) -> float:
    """The fraction of hidden tests passed (reward.partial_credit), else 1 when solved."""
    return o.pass_fraction


def difficulty_bonus(o: Outcome, cfg: RewardConfig) -> float:
    return cfg.difficulty_bonus * o.task.difficulty if o.solved else 0.0


def efficiency(o: Outcome, cfg: RewardConfig) -> float:
    return efficiency_penalty(o.task, o.result, cfg) if o.pass_fraction > 0 else 0.0


def interference(o: Outcome, cfg: RewardConfig) -> float:
    return cfg.interference_penalty if INTERFERENCE_EVENTS.intersection(o.result.events) else 0.0


def format_(o: Outcome, cfg: RewardConfig) -> float:
    """No code, or code that does not parse or define the entry point."""
    return cfg.format_penalty if (not o.code.strip() or o.result.status in FORMAT_FAILURES) else 0.0


def memory(o: Outcome, cfg: RewardConfig) -> float:
    return memory_penalty(o.result, cfg)


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


register_term(RewardTerm("pass", passed, field="pass_fraction"))
register_term(RewardTerm("difficulty_bonus", difficulty_bonus, field="difficulty_bonus"))
register_term(RewardTerm("efficiency", efficiency, penalty=True, field="efficiency_penalty"))
register_term(RewardTerm("interference", interference, penalty=True, field="interference_penalty"))
register_term(RewardTerm("format", format_, penalty=True, field="format_penalty"))
register_term(RewardTerm("memory", memory, penalty=True, field="memory_penalty"))
