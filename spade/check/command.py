"""`spade check [--config FILE]`: the §8.2 checklist against a config and this host, ✓ or ✗ per line.

In: a `SpadeConfig`. Out: a table on the terminal; exit 0 when every line passes, 1 otherwise. Probes the host
for real: `check_isolation` verifies each sandbox layer from inside a child, and a candidate is scored twice.
"""

from __future__ import annotations

from spade.check.items import CheckItem, HostFacts, checklist
from spade.config import SpadeConfig
from spade.records import Task, TestCase

_PROBE_TASK = Task(task_id="check_probe", description="Add one.", signature="def inc(x: int) -> int:",
                   entry_point="inc", difficulty=0.1, test_cases=(TestCase((1,), 2),),
                   hidden_test_cases=(TestCase((2,), 3), TestCase((5,), 7)))
_PROBE_CODE = "def inc(x):\n    return x + 1\n"  # passes two tests, fails the last: a mixed verdict to repeat


def host_facts(cfg: SpadeConfig) -> HostFacts:
    """Probe this host: isolation layers, verdict determinism, and the evaluation suite."""
    from spade.errors import SandboxError, SpadeError
    from spade.evaluate.suites import load_suite
    from spade.sandbox import SandboxPool, check_isolation

    isolation = check_isolation(cfg.executor)
    try:
        with SandboxPool(cfg.executor.model_copy(update={"workers": 2})) as pool:
            first, second = pool.score(_PROBE_TASK, _PROBE_CODE), pool.score(_PROBE_TASK, _PROBE_CODE)
        verdicts = [(r.status, tuple((t.status, t.got) for t in r.tests)) for r in (first, second)]
        same = verdicts[0] == verdicts[1]
        detail = f"one candidate scored twice: {'identical' if same else 'different'} verdicts"
    except SandboxError as exc:
        same, detail = False, f"the sandbox did not start: {exc}"
    try:
        eval_tasks = len(load_suite(cfg.eval.suite, cfg.generation.withhold_families))
    except SpadeError:
        eval_tasks = 0
    return HostFacts(isolation, same, detail, eval_tasks)


def run_checks(cfg: SpadeConfig) -> list[CheckItem]:
    return checklist(cfg, host_facts(cfg))


def check_command(cfg: SpadeConfig) -> int:
    from rich.console import Console
    from rich.table import Table

    items = run_checks(cfg)
    table = Table(title="SPADE checklist (write-up §8.2)")
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
