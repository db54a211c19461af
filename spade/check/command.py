"""`spade check [--config FILE]`: the pre-flight checklist against a config and this host, ✓ or ✗ per line.

In: a `SpadeConfig`. Out: a table on the terminal; exit 0 when every line passes, 1 otherwise. Probes the host
for real: `check_isolation` verifies each sandbox layer from inside a child, a candidate is scored twice, a sound
and a raising reference are validated, an incomplete task file is loaded, a run database is written and read back.
"""

from __future__ import annotations

from spade.check.items import CheckItem, HostFacts, checklist
from spade.config import SpadeConfig
from spade.records import Task, TestCase

_PROBE_TASK = Task(task_id="check_probe", description="Add one.", signature="def inc(x: int) -> int:",
                   entry_point="inc", difficulty=0.1, test_cases=(TestCase((1,), 2),),
                   hidden_test_cases=(TestCase((2,), 3), TestCase((5,), 7)))
_PROBE_CODE = "def inc(x):\n    return x + 1\n"  # passes two tests, fails the last: a mixed verdict to repeat
_SOUND = Task(task_id="check_sound", description="Add one.", signature="def inc(x: int) -> int:", entry_point="inc",
              difficulty=0.1, test_cases=(TestCase((1,), 2),), hidden_test_cases=(TestCase((2,), 3), TestCase((5,), 6)),
              reference_solution=_PROBE_CODE)
_RAISING = Task(task_id="check_raising", description="Add one.", signature="def inc(x: int) -> int:",
                entry_point="inc", difficulty=0.1, test_cases=(TestCase((1,), 2),),
                hidden_test_cases=(TestCase((2,), 3),), reference_solution="def inc(x):\n    raise ValueError(x)\n")


def host_facts(cfg: SpadeConfig) -> HostFacts:
    """Probe this host: isolation layers, verdict determinism, and the evaluation suite."""
    from spade.errors import SandboxError, SpadeError
    from spade.evaluate.suites import load_suite
    from spade.sandbox import SandboxPool, check_isolation

    isolation = check_isolation(cfg.executor)
    validation = (False, "the sandbox did not start")
    try:
        with SandboxPool(cfg.executor.model_copy(update={"workers": 2})) as pool:
            first, second = pool.score(_PROBE_TASK, _PROBE_CODE), pool.score(_PROBE_TASK, _PROBE_CODE)
            validation = _validation(pool, cfg)
        verdicts = [(r.status, tuple((t.status, t.got) for t in r.tests)) for r in (first, second)]
        same = verdicts[0] == verdicts[1]
        detail = f"one candidate scored twice: {'identical' if same else 'different'} verdicts"
    except SandboxError as exc:
        same, detail = False, f"the sandbox did not start: {exc}"
    try:
        eval_tasks = len(load_suite(cfg.eval.suite, cfg.generation.withhold_families))
    except SpadeError:
        eval_tasks = 0
    return HostFacts(isolation, same, detail, eval_tasks, validation, _task_schema(), _store())


def _validation(pool: object, cfg: SpadeConfig) -> tuple[bool, str]:
    """A sound reference accepted and a raising one rejected, by the validator the loop uses."""
    from spade.validate.dynamic import validate_tasks

    sound, raising = validate_tasks([_SOUND, _RAISING], pool, cfg.generation)  # type: ignore[arg-type]
    ok = sound.accepted and not raising.accepted and "reference_raises" in raising.reasons
    return ok, (f"probe references: a sound one {'accepted' if sound.accepted else 'rejected'}, a raising one "
                f"{'rejected as ' + ', '.join(raising.reasons) if not raising.accepted else 'accepted'}")


def _task_schema() -> tuple[bool, str]:
    """A task file lacking its tests is refused in one line; the complete one loads."""
    from spade.errors import TaskFormatError
    from spade.taskio import task_from_dict, task_to_dict

    complete = task_to_dict(_PROBE_TASK)
    try:
        task_from_dict({k: v for k, v in complete.items() if k != "test_cases"})
    except TaskFormatError:
        refused = True
    else:
        refused = False
    try:
        loaded = task_from_dict(complete) == _PROBE_TASK
    except TaskFormatError:
        loaded = False
    return refused and loaded, (f"a probe task without test_cases {'refused' if refused else 'accepted'}, the "
                                f"complete one {'loaded' if loaded else 'refused'} (spade.taskio)")


def _store() -> tuple[bool, str]:
    """A run database created in a temporary directory, written and read back."""
    import sqlite3
    import tempfile

    from spade.errors import SpadeError
    from spade.store import RunStore

    try:
        with tempfile.TemporaryDirectory(prefix="spade-check-") as tmp:
            with RunStore(tmp, create=True) as store:
                store.set_meta("check", "written")
            with RunStore(tmp, read_only=True) as store:
                ok = store.meta("check") == "written"
    except (OSError, sqlite3.Error, SpadeError) as exc:
        return False, f"a run database could not be written here: {str(exc)[:120]}"
    return ok, "a probe run database written and read back" if ok else "a probe run database read back wrong"


def run_checks(cfg: SpadeConfig) -> list[CheckItem]:
    return checklist(cfg, host_facts(cfg))


def check_command(cfg: SpadeConfig) -> int:
    from rich.console import Console
    from rich.table import Table

    items = run_checks(cfg)
    table = Table(title="SPADE pre-flight checklist (docs/method.md#pre-flight-checklist)")
    for column in ("", "stage", "check", "detail"):
        table.add_column(column)
    table.add_column("config key", overflow="fold")
    for it in items:
        mark = "[green]✓[/green]" if it.ok else "[red]✗[/red]"
        table.add_row(mark, it.stage, it.name, it.detail, it.key)
    console = Console()
    console.print(table)
    failed = [it.name for it in items if not it.ok]
    if failed:
        console.print(f"[red]{len(failed)} of {len(items)} checks fail:[/red] {', '.join(failed)}")
        return 1
    console.print(f"[green]all {len(items)} checks pass[/green]")
    return 0
