"""The proposer role learns under every in-loop trainer (RFT, DPO, GRPO) with the embedded model: the due update
trains the shared adapter on the iteration's proposals as that trainer takes them (spade.selfplay.proposer_update),
saves a checkpoint and leaves a proposer_update audit line in the store. DPO used to end the run with an
AttributeError, GRPO to skip every update."""

from __future__ import annotations

import pytest

from spade.config import load_config
from spade.curriculum import Controller
from spade.dedup import DedupIndex
from spade.kinds.code_reasoning.proposer_role import proposer_task
from spade.pipeline.stages import Engine
from spade.policy.embedded import EmbeddedPolicy
from spade.registry import TRAINERS
from spade.selfplay.engine import SelfPlay
from spade.selfplay.prompts import prompt_json
from spade.selfplay.proposer_update import advantages, preference_rows
from spade.store import IterationWrite, ProposalRecord, RunStore

GOOD = "n):\n    return n * n - 1\n\nprint(f(2))\nprint(f(3))\nprint(f(5))\n```"
MIDDLING = "n):\n    return n + 1\n\nprint(f(2))\nprint(f(3))\n```"
BAD = "n):\n    return\n```"


def _proposals() -> list[ProposalRecord]:
    same = prompt_json(proposer_task("proposer-0-0", 0.3, [], "induction"))
    other = prompt_json(proposer_task("proposer-0-1", 0.3, [], "deduction"))
    rows = [(same, GOOD, 0.75, True), (same, BAD, -0.5, False), (other, MIDDLING, 0.25, True),
            (other, BAD, -0.5, False)]
    return [ProposalRecord(f"p0-{k}", 0, None, "m", "induction", None, valid, "ok" if valid else "syntax_error",
                           0.0, 0.5 if valid else None, max(reward, 0.0), reward, prompt, completion)
            for k, (prompt, completion, reward, valid) in enumerate(rows)]


@pytest.mark.slow
@pytest.mark.parametrize(("method", "says"), [("rft", "RFT on 2 proposals"),
                                              ("dpo", "DPO on 2 pairs of proposals answered to one prompt"),
                                              ("grpo", "advantage-weighted step on 4 proposals")])
def test_each_trainer_updates_the_proposer_role_and_the_store_shows_it(tmp_path, method, says):
    cfg = load_config(None, {"training.update_method": method, "training.batch_size": 2,
                             "training.grpo_generations": 2, "training.steps_per_update": 1, "training.epochs": 0,
                             "training.max_seq_len": 384, "sampling.dtype": "float32", "sampling.threads": 1,
                             "selfplay.proposer_period": 1, "selfplay.proposer_min_reward": 0.1,
                             "selfplay.proposer_min_examples": 1, "executor.workers": 1})
    store = RunStore(tmp_path / "run", create=True)
    policy = EmbeddedPolicy(cfg.sampling, cfg.training)
    trainer = TRAINERS.get(method)(cfg, policy, None)
    e = Engine(cfg=cfg, store=store, pool=None, policy=policy, trainer=trainer,  # type: ignore[arg-type]
               controller=Controller(cfg.evolution, ["cr_induction"]), dedup=DedupIndex(), eval_tasks=[],
               families=["cr_induction"])
    trainer.prepare()
    before = {n: p.detach().clone() for n, p in policy.model.named_parameters() if p.requires_grad}
    sp = SelfPlay.build(cfg, store, None)
    w = IterationWrite(iteration=0)
    w.proposals.extend(_proposals())
    sp._train_proposer_when_due(e, w)
    [line] = [a for a in w.audit if a.kind == "proposer_update"]
    assert line.result.startswith(says), line.result
    assert e.checkpoint is not None and (store.run_dir / e.checkpoint).is_dir()
    moved = [n for n, p in policy.model.named_parameters() if p.requires_grad and not p.equal(before[n])]
    assert moved, "the adapter did not change"
    store.commit_iteration(w)
    assert store.query("SELECT ref FROM audit WHERE kind = 'proposer_update'") == [(e.checkpoint,)]
    store.close()


def test_pairs_share_a_prompt_and_advantages_are_per_mode():
    rows = [(r.prompt, r.completion, r.reward) for r in _proposals()]
    pairs = preference_rows(rows, lambda p: p, 10)
    assert [(chosen, rejected) for _, chosen, rejected in pairs] == [(GOOD, BAD), (MIDDLING, BAD)]
    weighted = advantages(rows, 10)
    # Two proposals a mode: each is one spread above or below its mode's mean, whatever the mode's reward scale.
    assert sorted(round(a, 6) for *_, a in weighted) == [-1.0, -1.0, 1.0, 1.0]
    assert advantages([rows[0], rows[0]], 10) == []  # rewards all alike: no advantage
