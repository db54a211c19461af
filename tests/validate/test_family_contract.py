"""Every registered family, at easy, middle and hard settings: its drafts validate and the reference scores 1.0."""

from spade.config import GenerationConfig
from spade.generate import draft_task
from spade.generate.registry import resolve_families
from spade.validate.dynamic import validate_drafts


def test_every_family_validates_and_its_reference_scores_one(pool):
    drafts = [draft_task(name, d, 11, 0, 3, 5) for name in [f.name for f in resolve_families([])]
              for d in (0.0, 0.5, 1.0)]
    outcomes = validate_drafts(drafts, pool, GenerationConfig())
    rejected = [(d.family, d.difficulty, o.reasons, o.details) for d, o in zip(drafts, outcomes) if not o.accepted]
    assert rejected == []
    tasks = [o.task for o in outcomes]
    for task in tasks:
        assert len(task.hidden_test_cases) >= len(task.test_cases) >= 1
        assert task.reference_cpu_s > 0
    results = pool.score_many([(t, t.reference_solution) for t in tasks])
    assert [t.task_id for t, r in zip(tasks, results) if r.score != 1.0] == []
