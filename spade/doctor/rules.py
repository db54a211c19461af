"""The doctor's rules: one function per failure pattern of docs/method.md#failure-patterns (plus the two rates of
docs/method.md#generator-health).

In: a `RunView`. Out: a `Checkup` holding a `Diagnosis` (evidence from the run, the likely cause, the fix to try,
with the config keys that change it) for each pattern the run shows, and a note for each rule the run is too short
to judge. Thresholds are module constants, chosen so a run inside the method's healthy ranges triggers none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from statistics import mean
from typing import Any

from spade.store.views import RunView, Series

ZERO_PASS = 0.02  # a pass rate at or below this is "reward ≈ 0"
LONG = 3  # iterations a symptom must last to count as "for long"
FLAT_ITERATIONS = 6  # iterations with no family's difficulty rising before "difficulty flat"
OSCILLATION_REVERSALS = 3  # direction reversals of one family's difficulty within the recent window
OSCILLATION_WINDOW = 12
DUPLICATE_SHARE = 0.2  # of all drafts
TIMEOUT_SHARE = 0.2  # of rollouts, averaged over the last LONG iterations
HACK_RISE, HACK_FALL = 0.05, 0.05  # training pass rate up by at least, while eval pass@1 down by at least
DIVERSITY_DROP, DIVERSITY_FLOOR = 0.25, 0.5  # distinct-program share fell by at least, to below
NEAR_DUPLICATE_CEILING = 0.8  # self-play: near-duplicate sample pairs rose (by DIVERSITY_DROP) to at least
PARSE_FAILURE = 0.10  # docs/method.md#generator-health: JSON parse failure rate of the generator above this
REFERENCE_PASS = 0.80  # docs/method.md#generator-health: share of drafts whose reference runs cleanly, below this
MIN_DRAFTS = 10
PROPOSAL_PARSE_FAILURES = frozenset({"not_parsed", "syntax_error", "no_function", "arity_mismatch", "no_inputs"})


@dataclass(frozen=True)
class Diagnosis:
    code: str
    title: str  # the symptom, as docs/method.md#failure-patterns names it
    evidence: str
    cause: str
    fix: str
    section: str


@dataclass(frozen=True)
class Checkup:
    diagnoses: tuple[Diagnosis, ...]
    not_judged: tuple[str, ...] = field(default=())  # rules the run is too short (or lacks the data) to judge

    def to_dict(self) -> dict[str, Any]:
        return {"diagnoses": [asdict(d) for d in self.diagnoses], "not_judged": list(self.not_judged)}


Rule = Callable[[RunView], "Diagnosis | str | None"]  # a diagnosis, a not-judged note, or None (healthy)


def _values(series: Series) -> list[float]:
    return [v for _, v in series]


def _fmt(values: list[float]) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


def _thirds(values: list[float]) -> tuple[float, float]:
    k = max(1, len(values) // 3)
    return mean(values[:k]), mean(values[-k:])


def all_tasks_fail(view: RunView) -> Diagnosis | str | None:
    rates = view.series("pass_rate")
    if len(rates) < LONG:
        return f"all tasks fail: needs {LONG} iterations, the run has {len(rates)}"
    recent = rates[-LONG:]
    if max(v for _, v in recent) > ZERO_PASS:
        return None
    rewards = _values(view.series("mean_reward")[-LONG:])
    return Diagnosis(
        "all_tasks_fail", "All tasks fail (reward ≈ 0 for long)",
        f"pass rate {_fmt(_values(recent))} in iterations {recent[0][0]}–{recent[-1][0]}"
        + (f"; mean reward {_fmt(rewards)}" if rewards else ""),
        "tasks too hard for the policy, or their tests are wrong",
        "check that references pass their tests (`spade validate` on exported tasks); lower "
        "evolution.initial_difficulty and evolution.difficulty_low so some rollouts succeed",
        "docs/method.md#failure-patterns")


def difficulty_flat(view: RunView) -> Diagnosis | str | None:
    families = view.families()
    if view.iterations < FLAT_ITERATIONS or not families:
        return f"difficulty flat: needs {FLAT_ITERATIONS} iterations, the run has {view.iterations}"
    rises = {f: _values(view.series(f"difficulty/{f}")[-FLAT_ITERATIONS:]) for f in families}
    if any(vals[-1] > vals[0] + 1e-9 for vals in rises.values()):
        return None
    reward = _values(view.series("mean_reward")[-FLAT_ITERATIONS:])
    lowest = min(families, key=lambda f: rises[f][-1])
    return Diagnosis(
        "difficulty_flat", "Difficulty curve not rising for long",
        f"no family's difficulty rose in the last {FLAT_ITERATIONS} iterations (e.g. {lowest}: "
        f"{_fmt(rises[lowest])}); mean reward {_fmt(reward)}",
        "policy updates too rare or too weak, or the raise threshold is out of reach",
        "update more often (training.update_every, training.steps_per_update, training.lr); lower "
        "evolution.success_high so the difficulty rises sooner", "docs/method.md#failure-patterns")


def _reversals(values: list[float]) -> int:
    moves = [b - a for a, b in zip(values, values[1:]) if abs(b - a) > 1e-9]
    return sum(1 for a, b in zip(moves, moves[1:]) if (a > 0) != (b > 0))


def difficulty_oscillating(view: RunView) -> Diagnosis | str | None:
    families = view.families()
    if not families:
        return "difficulty oscillating: no difficulty series recorded"
    counts = {f: _reversals(_values(view.series(f"difficulty/{f}")[-OSCILLATION_WINDOW:])) for f in families}
    worst = max(families, key=lambda f: counts[f])
    if counts[worst] < OSCILLATION_REVERSALS:
        return None
    return Diagnosis(
        "difficulty_oscillating", "Difficulty curve oscillating",
        f"{worst}: {counts[worst]} reversals of direction in the last {OSCILLATION_WINDOW} iterations "
        f"({_fmt(_values(view.series(f'difficulty/{worst}')[-OSCILLATION_WINDOW:]))})",
        "difficulty adjusted too often; environment and policy drift together",
        "raise evolution.patience (hysteresis) and evolution.coevolve_every, enlarge evolution.window, or widen "
        "the dead zone between evolution.success_low and evolution.success_high", "docs/method.md#failure-patterns")


def duplicate_tasks(view: RunView) -> Diagnosis | str | None:
    dup = sum(n for reason, n in view.rejections.items() if reason.startswith("duplicate"))
    drafts = view.drafts
    if drafts < MIN_DRAFTS:
        return f"duplicate tasks: needs {MIN_DRAFTS} drafts, the run has {drafts}"
    share = dup / drafts
    if share <= DUPLICATE_SHARE and view.duplicate_accepted == 0:
        return None
    return Diagnosis(
        "duplicate_tasks", "Generated tasks repeat",
        f"{dup} of {drafts} drafts ({share:.0%}) rejected as duplicates; {view.duplicate_accepted} accepted tasks "
        "repeat an earlier description and signature",
        "the generator keeps proposing the same tasks (too few families or parameters, a prompt without variety)",
        "draw from more families (generation.families empty = all), keep near-duplicate filtering on "
        "(generation.dedup_threshold), and for the LLM proposer raise generation.proposer_temperature",
        "docs/method.md#failure-patterns")


def many_timeouts(view: RunView) -> Diagnosis | str | None:
    shares = view.series("timeout_share")
    if len(shares) < LONG:
        return f"many timeouts: needs {LONG} iterations, the run has {len(shares)}"
    recent = _values(shares[-LONG:])
    if mean(recent) <= TIMEOUT_SHARE:
        return None
    return Diagnosis(
        "many_timeouts", "Many sandbox timeouts",
        f"timeout share {_fmt(recent)} in the last {LONG} iterations (mean {mean(recent):.0%})",
        "the policy writes endless loops, or the time limit is too short for honest code",
        "inspect timed-out candidates; if honest code is slow raise executor.timeout, executor.time_floor_s or "
        "executor.time_factor; endless loops already score 0", "docs/method.md#failure-patterns")


def reward_hacking(view: RunView) -> Diagnosis | str | None:
    rates = _values(view.series("pass_rate"))
    by_suite: dict[str, list[tuple[int, float]]] = {}
    for point in view.evals:
        if "1" in point.pass_at_k:
            by_suite.setdefault(point.base_suite, []).append((point.iteration, point.pass_at_k["1"]))
    judged = {s: pts for s, pts in by_suite.items() if len(pts) >= 2}
    if len(rates) < LONG or not judged:
        return "reward hacking: needs 3 iterations and 2 evaluations of one suite"
    early, late = _thirds(rates)
    for suite, pts in sorted(judged.items()):
        fall = pts[0][1] - pts[-1][1]
        if late - early >= HACK_RISE and fall >= HACK_FALL:
            hard = sum(_values(view.series("hardcoding_suspected")))
            return Diagnosis(
                "reward_hacking", "Pass rate rises while real ability falls (reward hacking)",
                f"training pass rate {early:.2f} → {late:.2f} while {suite} pass@1 fell {pts[0][1]:.2f} → "
                f"{pts[-1][1]:.2f} (iterations {pts[0][0]}–{pts[-1][0]}); "
                f"{hard:.0f} rollouts suspected of hard-coding",
                "the policy found a reward shortcut, e.g. hard-coding the visible tests",
                "add hidden tests (generation.hidden_tests, generation.min_hidden_share), keep rollback on "
                "(eval.every, eval.rollback_margin) and lower reward.difficulty_bonus",
                "docs/method.md#failure-patterns")
    return None


def diversity_collapse(view: RunView) -> Diagnosis | str | None:
    """Distinct programs per task falling (the store's measure), or, in a self-play run, near-duplicate sample pairs
    rising to NEAR_DUPLICATE_CEILING (the loop's own measure, selfplay/completion_near_duplicate_rate); the
    evidence names the loop's responses (selfplay/collapse: temperature raised, league consulted)."""
    shares = _values(view.diversity)
    near = _values(view.series("selfplay/completion_near_duplicate_rate"))
    responses = len(_values(view.series("selfplay/collapse")))
    if len(shares) < 2 * LONG and len(near) < 2 * LONG:
        return f"diversity collapse: needs {2 * LONG} iterations with several samples per task, has {len(shares)}"
    early, late = _thirds(shares) if len(shares) >= 2 * LONG else (1.0, 1.0)
    near_early, near_late = _thirds(near) if len(near) >= 2 * LONG else (0.0, 0.0)
    distinct_fell = early - late >= DIVERSITY_DROP and late < DIVERSITY_FLOOR
    near_rose = near_late - near_early >= DIVERSITY_DROP and near_late >= NEAR_DUPLICATE_CEILING
    if not (distinct_fell or near_rose):
        return None
    evidence = (f"distinct programs per task fell from {early:.0%} to {late:.0%} of the samples" if distinct_fell
                else f"distinct programs per task {late:.0%} of the samples")
    if near:
        evidence += f"; near-duplicate sample pairs rose from {near_early:.0%} to {near_late:.0%}"
    if responses:
        evidence += f"; the self-play loop responded {responses} times (temperature raised, league consulted)"
    return Diagnosis(
        "diversity_collapse", "Self-play collapse: samples all alike", evidence,
        "sampling temperature too low, or the policy over-fitted its own past solutions",
        "raise sampling.temperature or sampling.top_p, lower training.lr, and replay older tasks "
        "(evolution.replay_ratio); restore an earlier checkpoint as an opponent (selfplay.enabled brings past "
        "proposals back as a league and raises the temperature by itself: selfplay.collapse_distinct, "
        "selfplay.collapse_boost)", "docs/method.md#failure-patterns")


def parse_failures(view: RunView) -> Diagnosis | str | None:
    rates = _values(view.series("generator_parse_failure_rate"))
    if not rates:
        return ("generator parse failures: the run records no generator_parse_failure_rate (no LLM proposer; "
                "self-play's proposer is judged by proposer health)")
    recent = rates[-LONG:]
    if mean(recent) <= PARSE_FAILURE:
        return None
    return Diagnosis(
        "generator_parse_failures", "Generator output fails to parse (> 10%)",
        f"generator parse failure rate {_fmt(recent)} in the last {len(recent)} iterations",
        "the proposer's prompt or model cannot produce the task format reliably",
        "use generation.proposer_mode code_first for small models, show more examples "
        "(generation.proposer_examples), lower generation.proposer_temperature", "docs/method.md#generator-health")


def reference_failures(view: RunView) -> Diagnosis | str | None:
    bad = sum(n for reason, n in view.rejections.items() if reason.startswith("reference_"))
    drafts = view.drafts
    if drafts < MIN_DRAFTS:
        return f"reference pass rate: needs {MIN_DRAFTS} drafts, the run has {drafts}"
    rate = 1 - bad / drafts
    if rate >= REFERENCE_PASS:
        return None
    reasons = ", ".join(f"{r} {n}" for r, n in view.rejections.items() if r.startswith("reference_"))
    return Diagnosis(
        "reference_failures", "Reference solutions fail (< 80% pass)",
        f"{bad} of {drafts} drafts rejected because the reference failed ({reasons}): reference pass rate {rate:.0%}",
        "the task schema or generator produces unsolvable or inconsistent tasks",
        "fix the generator's references; if they only time out raise generation.reference_time_limit_s",
        "docs/method.md#generator-health")


def proposer_health(view: RunView) -> Diagnosis | str | None:
    """Self-play's proposer held to the generator-health lines (docs/method.md#generator-health) over the last third
    of its iterations: at most PARSE_FAILURE of its proposals out of format, and at least REFERENCE_PASS of those
    in format whose program validates by execution."""
    reasons = view.selfplay.recent_reasons if view.selfplay is not None else {}
    n = sum(reasons.values())
    if n < MIN_DRAFTS:
        return f"proposer health: needs {MIN_DRAFTS} self-play proposals in the last third of the run, has {n}"
    unparsed = sum(k for r, k in reasons.items() if r in PROPOSAL_PARSE_FAILURES)
    parsed = n - unparsed
    # Duplicates and surplus proposals validated; the rest of the parsed ones were refused by the screen or validation.
    passing = sum(k for r, k in reasons.items() if r in ("ok", "surplus") or r.startswith("duplicate_"))
    parse_rate, pass_rate = unparsed / n, passing / parsed if parsed else 0.0
    if parse_rate <= PARSE_FAILURE and pass_rate >= REFERENCE_PASS:
        return None
    refused = ", ".join(f"{r} {k}" for r, k in reasons.items() if r not in ("ok", "surplus")
                        and not r.startswith("duplicate_"))
    return Diagnosis(
        "proposer_health", "Self-play proposals fail the generator-health lines (> 10% unparsed or < 80% valid)",
        f"last third of the run: {unparsed} of {n} proposals out of format ({parse_rate:.0%}), {passing} of {parsed} "
        f"in format validated ({pass_rate:.0%}); refused: {refused}",
        "the policy writes proposals its prompt's format or the validator does not accept (a small model early on)",
        "let the environment add inputs (selfplay.complete_inputs), lower selfplay.proposer_temperature, show "
        "learnable worked examples (selfplay.learnable_examples), or lower selfplay.proposer_share until the "
        "proposer role has trained (selfplay.proposer_period)", "docs/method.md#generator-health")


RULES: tuple[Rule, ...] = (
    all_tasks_fail, difficulty_flat, difficulty_oscillating, duplicate_tasks, many_timeouts, reward_hacking,
    diversity_collapse, parse_failures, reference_failures, proposer_health,
)


def diagnose(view: RunView) -> Checkup:
    """Apply every rule; collect diagnoses and the notes of rules that could not judge this run."""
    found: list[Diagnosis] = []
    notes: list[str] = []
    for rule in RULES:
        verdict = rule(view)
        if isinstance(verdict, Diagnosis):
            found.append(verdict)
        elif isinstance(verdict, str):
            notes.append(verdict)
    return Checkup(tuple(found), tuple(notes))
