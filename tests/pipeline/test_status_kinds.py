"""`spade status` and `spade report` show pass rate and difficulty per task kind as well as per family."""

from __future__ import annotations

from spade.pipeline.status import status_command, summarise
from spade.records import Candidate, ExecResult, ExecStatus, Reward, Rollout, Task, TestCase, TestOutcome, TestStatus
from spade.report import write_report
from spade.store import IterationTask, IterationWrite, RunState, RunStore


def _task(task_id: str, kind: str, family: str, difficulty: float) -> Task:
    return Task(task_id, f"Task {task_id}.", "def f(x: int) -> int:" if kind == "python_function" else "", "f",
                difficulty, test_cases=(TestCase(("1\n",) if kind == "program" else (1,), "1\n"),), family=family,
                kind=kind)


def _rollout(task: Task, k: int, passed: bool) -> Rollout:
    status = TestStatus.PASSED if passed else TestStatus.WRONG_ANSWER
    result = ExecResult(ExecStatus.PASSED if passed else ExecStatus.FAILED, (TestOutcome(0, False, status),),
                        0.01, 9000, 0.02)
    return Rollout(Candidate(f"{task.task_id}:{k}", task.task_id, "x", "x", "m", "h"), result,
                   Reward(total=float(passed), pass_fraction=float(passed)))


def _run(tmp_path):
    tasks = [_task("p1", "program", "program_grid", 0.4), _task("p2", "program", "program_words", 0.2),
             _task("f1", "python_function", "sorting", 0.3)]
    w = IterationWrite(0)
    w.tasks = [IterationTask(t, "generated") for t in tasks]
    w.rollouts = [_rollout(t, k, passed=(t.task_id == "f1" or k == 0)) for t in tasks for k in range(4)]
    families = {"program_grid": 0.5, "program_words": 0.3, "sorting": 0.3}
    w.state = RunState(controller={"steps": 3, "steps_at_last_check": 0, "families": {
        f: {"difficulty": d, "window": [], "streak": 0, "history": [d], "levels": []} for f, d in families.items()}})
    w.metrics = {f"difficulty/{f}": d for f, d in families.items()}
    with RunStore(tmp_path, create=True) as store:
        store.commit_iteration(w)
    return tmp_path


def test_status_summarises_each_kind_and_its_families(tmp_path, capsys):
    run = _run(tmp_path)
    with RunStore(run, read_only=True) as store:
        rows = {(r["kind"], r["family"]): r for r in summarise(store).by_kind}
    assert rows[("program", None)]["pass_rate"] == 0.25 and rows[("program", None)]["target"] == 0.4
    assert rows[("python_function", None)]["pass_rate"] == 1.0
    assert rows[("program", "program_words")]["claimed"] == 0.2
    assert status_command(str(run)) == 0
    out = capsys.readouterr().out
    assert "per kind and family" in out and "program_grid" in out and "python_function" in out


def test_the_report_has_a_per_kind_section(tmp_path):
    html = write_report(_run(tmp_path)).read_text()
    section = html.split("<h2>Per kind and family</h2>", 1)[1].split("<h2>", 1)[0]
    assert "program / program_grid" in section and "<td>program</td>" in section and "0.25" in section
