"""Benchmark: the proposer's validity as judged then and as the current judging judges the same completions.

Reads every proposal a run stored (its completion and prompt, the reason it got), judges the completions again
with spade.selfplay.judging in the real sandbox, and prints, per mode, the valid share as stored and now, and the
reasons before and after. No model runs: this measures a change of judging (parsing, the inputs kept) on the
proposals a self-play arm actually wrote, not a change of the proposer. Duplicates are judged against nothing
here, so "valid" is validity before deduplication (the stored duplicates count as valid on both sides).
Run: .venv/bin/python bench/proposals.py RUN_DIR [RUN_DIR ...]   (a self-play arm's run, e.g. runs/sp-s0/selfplay)
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spade.config import ExecutorConfig, GenerationConfig  # noqa: E402
from spade.sandbox import SandboxPool  # noqa: E402
from spade.selfplay.judging import judge, judged  # noqa: E402
from spade.selfplay.prompts import prompt_task  # noqa: E402


def stored(run: Path) -> list[tuple[str, str, str, str, int]]:
    with sqlite3.connect(f"file:{run / 'spade.sqlite'}?mode=ro", uri=True) as db:
        return list(db.execute("SELECT proposal_id, prompt, completion, reason, valid FROM proposals"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path)
    args = ap.parse_args()
    rows = [r for run in args.runs for r in stored(run)]
    if not rows:
        sys.exit("no proposals stored in " + ", ".join(map(str, args.runs)))
    entries = [judged(pid, prompt_task(prompt), completion, True) for pid, prompt, completion, _, _ in rows]
    with SandboxPool(ExecutorConfig()) as pool:
        judge(entries, pool, GenerationConfig(), iteration=0, checkpoint=None, model="replay")
    before: dict[str, list[bool]] = defaultdict(list)
    after: dict[str, list[bool]] = defaultdict(list)
    reasons: dict[str, Counter[str]] = {"stored": Counter(), "now": Counter()}
    for (_, _, _, reason, valid), e in zip(rows, entries):
        was = bool(valid) or reason.startswith("duplicate")
        for mode in (e.mode, "all"):
            before[mode].append(was)
            after[mode].append(e.valid)
        reasons["stored"][reason if not reason.startswith("duplicate") else "ok"] += 1
        reasons["now"][e.reason] += 1
    print(f"{len(rows)} proposals from {', '.join(map(str, args.runs))}")
    print("mode | proposals | valid as stored | valid now")
    for mode in sorted(before, key=lambda m: (m == "all", m)):
        b, a = before[mode], after[mode]
        print(f"{mode} | {len(b)} | {sum(b) / len(b):.2f} ({sum(b)}) | {sum(a) / len(a):.2f} ({sum(a)})")
    for side, got in reasons.items():
        print(f"reasons {side}: " + ", ".join(f"{r} {n}" for r, n in got.most_common()))


if __name__ == "__main__":
    main()
