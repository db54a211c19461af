"""spade status shows the latest evaluation of every suite: the reported split and the gate's dev split apart."""

from spade.pipeline.status import summarise
from spade.records import EvalReport
from spade.store import IterationWrite, RunStore


def _evals(iteration: int, builtin: float, dev: float) -> IterationWrite:
    w = IterationWrite(iteration)
    w.evals = [EvalReport("builtin", 1, 1, {1: builtin}, {}, ()), EvalReport("heldout-dev", 1, 1, {1: dev}, {}, ())]
    return w


def test_status_shows_the_latest_evaluation_of_each_suite_not_only_the_last_row(tmp_path):
    with RunStore(tmp_path, create=True) as store:
        store.commit_iteration(_evals(0, 0.5, 0.2))
        store.commit_iteration(_evals(1, 0.55, 0.25))
        summary = summarise(store)
    latest = {e["suite"]: e["pass_at_k"]["1"] for e in summary.last_evals}
    assert latest == {"builtin": 0.55, "heldout-dev": 0.25}
