"""Judging proposals: one path for the loop (spade.selfplay.engine) and the environment API (spade.env.proposer).

In: the proposer's completions with their prompts. Out: each `Judged` set valid or not with its reason, its task
when it is admitted, and the rejections to store. The steps: the text is cut to MAX_PROPOSAL_CHARS before
anything reads it; parsed (spade.selfplay.proposal: f and its literal calls); screened before anything runs it, by
the audit screen every generated code gets (spade.audit.screen_code: a finding makes it invalid, reason
'screened'); one run of the program in the sandbox
leaves out the inputs on which it raises (spade.kinds.code_reasoning.validate.keep_returning); the draft validated
by execution like any task, and screened for contamination by behaviour where the run screens its supply; a
valid proposal that copies the example its prompt showed (spade.selfplay.novelty), or is a near-duplicate of a
recent proposal, of a stored task or of an earlier one in the same batch, is not admitted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spade.audit import screen_code
from spade.records import Rejection, Task
from spade.selfplay.novelty import example_similarity
from spade.selfplay.prompts import prompt_json
from spade.selfplay.proposal import MAX_PROPOSAL_CHARS, draft_of, parse_proposal
from spade.selfplay.reward import proposal_reward
from spade.store import ProposalRecord
from spade.store import proposals as stored

SCREENED = "screened"  # a proposal the audit screen found something in: invalid before it runs

if TYPE_CHECKING:
    from spade.config import GenerationConfig, SelfplayConfig, SpadeConfig
    from spade.dedup import DedupIndex
    from spade.dedup.behaviour import ContaminationScreen
    from spade.store import RunStore


@dataclass
class Judged:
    """A proposal being judged (mutable while it is; a ProposalRecord at the end)."""

    proposal_id: str
    prompt: Task
    completion: str  # bounded, as stored: the text after `def f(` (as the loop's prefilled proposer writes it)
    text: str  # bounded, as parsed
    prefilled: bool
    task: Task | None = None
    valid: bool = False
    reason: str = "not_parsed"
    similarity: float = 0.0
    duplicate: bool = False
    surplus: bool = False  # admissible, but the proposer's slots were full (selfplay.overflow false): not played
    inputs_added: int = 0  # inputs the environment added to the proposer's own (selfplay.complete_inputs)
    by: str | None = None  # the checkpoint whose weights wrote it (None: the base model)

    @property
    def mode(self) -> str:
        return str(self.prompt.params["mode"])

    @property
    def admitted(self) -> bool:
        return self.valid and not self.duplicate and not self.surplus and self.task is not None

    @property
    def task_id(self) -> str | None:
        """The admitted task's id; None for a proposal that was not admitted."""
        return self.task.task_id if self.admitted and self.task is not None else None

    def record(self, iteration: int, checkpoint: str | None, model: str, sp: SelfplayConfig,
               solve_rate: float | None = None) -> ProposalRecord:
        """The proposals table's row; `solve_rate` None while the solver's answers on its task are awaited."""
        learn, reward = proposal_reward(sp, valid=self.valid, solve_rate=solve_rate, similarity=self.similarity,
                                        duplicate=self.duplicate)
        return ProposalRecord(self.proposal_id, iteration, checkpoint, model, self.mode, self.task_id, self.valid,
                              self.reason, self.similarity, solve_rate, learn, reward, prompt_json(self.prompt),
                              self.completion)


def judged(proposal_id: str, prompt: Task, completion: Any, prefilled: bool, by: str | None = None) -> Judged:
    """The completion bounded before anything reads it; text that is not a string proposes nothing. Without the
    prefill, what is stored starts after the answer's first `def f(`. `by`: the checkpoint that wrote it."""
    text = completion[:MAX_PROPOSAL_CHARS] if isinstance(completion, str) else ""
    at = -1 if prefilled else text.find("def f(")
    return Judged(proposal_id, prompt, text[at + len("def f("):] if at >= 0 else text, text, prefilled, by=by)


def judge(entries: Sequence[Judged], pool: Any, cfg: GenerationConfig, *, iteration: int, checkpoint: str | None,
          model: str, screen: ContaminationScreen | None = None, complete: bool = False) -> list[Rejection]:
    """Parse each entry, leave out the inputs its program raises on (with `complete`, also add inputs where fewer
    than spade.selfplay.inputs.WANT remain), validate the drafts by execution and, with a `screen`, refuse those
    that behave as a reserved evaluation task (entries set in place); the rejections."""
    from spade.kinds import validate_drafts
    from spade.kinds.code_reasoning.validate import keep_returning
    from spade.selfplay.inputs import complete_inputs

    drafts, parsed_entries, rejections = [], [], []
    for k, e in enumerate(entries):
        parsed = parse_proposal(e.text, prefilled=e.prefilled, need_inputs=not complete)
        if isinstance(parsed, str):
            e.reason = parsed
            continue
        draft = draft_of(parsed, e.mode, e.prompt.difficulty, iteration=iteration, index=k, checkpoint=checkpoint,
                         model=model)
        found = screen_code(parsed.program)  # its docstring, the description, is inside it
        if found:  # generated code is screened before it runs: what it tried is the proposal's verdict
            e.reason = SCREENED
            rejections.append(Rejection(draft.task_id, draft.family, draft.difficulty, SCREENED,
                                        f"the audit screen found {', '.join(found)} in the program"))
            continue
        drafts.append(draft)
        parsed_entries.append(e)
    if drafts:
        drafts = complete_inputs(drafts, pool, cfg) if complete else keep_returning(drafts, pool, cfg)
    pairs = []
    for draft, e in zip(drafts, parsed_entries):
        e.inputs_added = int(draft.provenance.get("inputs_added", 0))
        if draft.all_inputs:
            pairs.append((draft, e))
        else:  # no call of its own, and none of the environment's candidates answered
            e.reason = "no_inputs"
    if not pairs:
        return rejections
    drafts, parsed_entries = [d for d, _ in pairs], [e for _, e in pairs]
    outcomes = validate_drafts(drafts, pool, cfg)
    if screen is not None:
        outcomes = screen.exclude(outcomes, pool)
    for draft, outcome, e in zip(drafts, outcomes, parsed_entries):
        if outcome.accepted and outcome.task is not None:
            e.valid, e.reason, e.task = True, "ok", outcome.task
        else:
            e.reason = outcome.reasons[0] if outcome.reasons else "invalid"
            rejections.append(Rejection(draft.task_id, draft.family, draft.difficulty, e.reason,
                                        "; ".join(outcome.details)[:500]))
    return rejections


def admit(entries: Sequence[Judged], recent: DedupIndex, known: DedupIndex) -> list[Rejection]:
    """Valid entries that copy their prompt's shown example (similarity at or above the index's threshold), or
    duplicate a recent proposal, a stored task (`known`) or an earlier entry, are not admitted; the admitted ones
    join `recent` (the caller adds them to `known` when it stores them)."""
    rejections = []
    for e in entries:
        if not e.valid or e.task is None:
            continue
        copied = example_similarity(e.task.reference_solution or "", e.prompt.params.get("examples", ()))
        if copied >= recent.threshold:
            mark_duplicate(e, "example", copied)
            rejections.append(Rejection(e.task.task_id, e.task.family, e.task.difficulty, e.reason,
                                        f"copies the example its prompt showed (similarity {copied:.2f})"))
            continue
        near, seen = recent.check(e.task), known.check(e.task)
        verdict = near if near.duplicate else seen
        if verdict.duplicate:
            mark_duplicate(e, verdict.kind or "exact", verdict.similarity)
            rejections.append(Rejection(e.task.task_id, e.task.family, e.task.difficulty, e.reason,
                                        f"duplicate of {verdict.of}"))
        else:
            recent.add(e.task)
    return rejections


def bound_admitted(entries: Sequence[Judged], slots: int) -> int:
    """The first `slots` admitted entries stay admitted; the rest become surplus (reason 'surplus': valid and new,
    but neither played nor rewarded). The number made surplus."""
    extra = [e for e in entries if e.admitted][max(0, slots):]
    for e in extra:
        e.surplus, e.reason = True, "surplus"
    return len(extra)


def mark_duplicate(e: Judged, kind: str, similarity: float | None) -> None:
    """Not admitted as a duplicate of `kind` ('exact', 'near' or 'example': its prompt's shown example)."""
    e.duplicate, e.reason = True, f"duplicate_{kind}"
    e.similarity = float(similarity if similarity is not None else 1.0)


def recent_index(cfg: SpadeConfig, store: RunStore) -> DedupIndex:
    """The run's last selfplay.recent_window valid proposals, indexed for near-duplicates."""
    from spade.dedup import DedupIndex

    recent = stored.recent_programs(store, cfg.selfplay.recent_window)
    return DedupIndex.from_tasks([store.task(t) for t, _ in recent], threshold=cfg.generation.dedup_threshold)


__all__ = ["SCREENED", "Judged", "admit", "bound_admitted", "judge", "judged", "mark_duplicate", "recent_index"]
