"""What an update trains on, by method: GRPO this iteration's tasks, DPO preference pairs, RFT (and any other
method) the verified buffer; nothing to train on is a skip with its reason and the buffer's counts."""

from spade.config import SpadeConfig
from spade.records import Task, TestCase
from spade.train.dpo import PreferencePair
from spade.train.rft import TrainExample
from spade.train.selection import Sources, select_batch
from tests.train.test_buffer import A1, WRONG, _rollout, _store_with

CFG = SpadeConfig()
TASK = Task("mixed", "d", "def f(x):", "f", 0.3, test_cases=(TestCase((1,), 2),))


def test_each_method_gets_its_batch_from_this_iterations_rollouts_and_tasks(tmp_path):
    fresh = [_rollout("mixed", 1, 0, A1, True), _rollout("mixed", 1, 1, WRONG, False)]
    with _store_with(tmp_path, [[]]) as store:
        src = Sources(fresh, [TASK], store, CFG, seed=7, iteration=1)
        grpo = select_batch("grpo", src)
        assert grpo.batch is not None and grpo.batch.tasks == (TASK,) and grpo.details is None
        assert (grpo.batch.seed, grpo.batch.iteration) == (7, 1)
        dpo = select_batch("dpo", src)
        assert dpo.batch.pairs == (PreferencePair(TASK, fresh[0].candidate.completion, fresh[1].candidate.completion),)
        assert dpo.details == {"pairs": 1, "pair_tasks": 1}
        for method in ("rft", "a_registered_trainer_without_a_selector"):
            rft = select_batch(method, src)
            assert rft.batch.examples == (TrainExample(TASK, fresh[0].candidate.completion, 0),)
            assert rft.details is not None and rft.details["fresh"] == 1


def test_nothing_to_train_on_is_a_skip_that_says_why(tmp_path):
    failing = [_rollout("mixed", 1, 0, WRONG, False)]
    with _store_with(tmp_path, [[]]) as store:
        assert select_batch("grpo", Sources(failing, [], store, CFG, 0, 1)).skipped == "no tasks this iteration"
        rft = select_batch("rft", Sources(failing, [TASK], store, CFG, 0, 1))
        assert rft.batch is None and rft.skipped == "no passing samples yet" and rft.details["fresh"] == 0
        dpo = select_batch("dpo", Sources(failing, [TASK], store, CFG, 0, 1))
        assert dpo.batch is None and dpo.skipped.startswith("no task with both") and dpo.details == {"pairs": 0,
                                                                                                    "pair_tasks": 0}


def test_family_share_caps_one_familys_examples_in_an_rft_update_newest_first(tmp_path):
    from spade.store import IterationTask, IterationWrite, RunStore

    def task(tid, family):
        return Task(tid, "d", "def f(x):", "f", 0.3, test_cases=(TestCase((1,), 2),), family=family)

    older = [task(f"p{k}", "selfplay_induction") for k in range(5)] + [task("loose", None)]
    fresh_tasks = [task("p9", "selfplay_induction"), task("q1", "sorting")]
    with RunStore(tmp_path / "run", create=True) as store:
        w = IterationWrite(0)
        w.tasks.extend(IterationTask(t, "generated") for t in older)
        w.rollouts.extend(_rollout(t.task_id, 0, 0, A1, True) for t in older)
        store.commit_iteration(w)
        fresh = [_rollout("p9", 1, 0, A1, True), _rollout("q1", 1, 0, A1, True)]
        training = CFG.training.model_copy(update={"max_examples": 6})
        uncapped = select_batch("rft", Sources(fresh, fresh_tasks, store, CFG.model_copy(
            update={"training": training}), 0, 1))
        assert sum(e.task.family == "selfplay_induction" for e in uncapped.batch.examples) == 5
        capped_cfg = CFG.model_copy(update={"training": training.model_copy(update={"family_share": 0.5})})
        capped = select_batch("rft", Sources(fresh, fresh_tasks, store, capped_cfg, 0, 1))
        ids = [e.task.task_id for e in capped.batch.examples]
        # ceil(0.5 * 6) = 3 of the proposals (this iteration's first, then the newest earlier ones); the sorting
        # task and the task without a family (a family of its own) are not held back.
        assert sum(e.task.family == "selfplay_induction" for e in capped.batch.examples) == 3
        assert ids[:2] == ["p9", "q1"] and "loose" in ids
        assert capped.details["family_capped"] == 3
