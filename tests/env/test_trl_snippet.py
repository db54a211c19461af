"""The documented TRL snippet runs as written: TRL 1.16's own GRPOTrainer, TRL's default shuffle_dataset=True, the
embedded model loaded as the snippet loads it, device-appropriate args on this CPU host. The block is read from
docs/integrations.md (and from README.md's environment-API section, when it shows one) and executed unchanged in
an empty folder (the config comes by name, from the package). Slow: about a minute on 2 cores."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spade.store import RunStore

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def snippets() -> list[tuple[str, str]]:
    out = []
    for name in ("docs/integrations.md", "README.md"):
        for code in BLOCK.findall((ROOT / name).read_text()):
            if "GRPOTrainer(" in code and "live_dataset(" in code:
                out.append((name, code))
    return out


@pytest.mark.parametrize("source,code", snippets(), ids=[s for s, _ in snippets()])
def test_the_documented_trl_snippet_trains_on_the_live_curriculum(source: str, code: str, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    torch.set_num_threads(1)  # a shared 2-core host; not part of the snippet
    namespace: dict = {"__name__": "__snippet__"}
    exec(compile(code, source, "exec"), namespace)  # noqa: S102 - the documented code, as a user runs it
    trainer, env = namespace["trainer"], namespace["env"]
    env.close()

    assert trainer.state.global_step == trainer.args.max_steps
    assert trainer.args.shuffle_dataset  # TRL's default, not turned off
    with RunStore(tmp_path / "runs" / "trl", read_only=True) as store:
        reports = store.last_iteration() + 1
        models = {m for (m,) in store.query("SELECT DISTINCT model FROM candidates")}
        tasks = store.query("SELECT COUNT(*) FROM tasks")[0][0]
    assert reports == trainer.args.max_steps  # one committed iteration per reward call
    assert models == {"trl"}
    # Drawn as read: a generation batch of prompts per step plus TRL's read-ahead, not a 1,000-row shuffle buffer.
    assert tasks <= 4 * trainer.args.max_steps
