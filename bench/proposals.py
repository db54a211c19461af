"""Benchmark: the proposer's validity as judged then and as the current judging judges the same completions.

Reads every proposal a run stored (its completion and prompt, the reason it got), judges the completions again
with spade.selfplay.judging in the real sandbox, and prints, per mode, the valid share as stored and now, and the
reasons before and after. No model runs: this measures a change of judging (parsing, the inputs kept) on the
proposals a self-play arm actually wrote, not a change of the proposer. Duplicates are judged against nothing
here, so "valid" is validity before deduplication (the stored duplicates count as valid on both sides).
Run: .venv/bin/python bench/proposals.py RUN_DIR [RUN_DIR ...]   (a self-play arm's run, e.g. runs/sp-s0/selfplay)
With --complete-inputs the completions are judged as under `selfplay.complete_inputs: true` (the environment adds
inputs where the proposal's own calls are too few: spade.selfplay.inputs); the last column then also counts the
valid proposals that are new among the replayed ones (each judged against the earlier ones, as the loop would).

With --sample N instead: the config's model (the embedded base by default) writes N proposals under the proposer
prompt (modes in turn, the built-in example, selfplay.proposer_temperature, --seed), and they are judged as the
loop judges them; prints per mode the valid share, the copies (valid, but a copy of the example the prompt
showed: spade.selfplay.novelty) and the admitted share (valid, not a copy, not a near-duplicate of an earlier
proposal of the batch), and the reasons. This measures the prompt and the model.
Run: .venv/bin/python bench/proposals.py --sample 48 [--config configs/tiny.yaml] [--threads 1] [--seed 0]
"""

from __future__ import annotations

import argparse
import platform
import sqlite3
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spade.config import ExecutorConfig, GenerationConfig, load_config  # noqa: E402
from spade.dedup import DedupIndex  # noqa: E402
from spade.kinds.code_reasoning.prompt import MODES  # noqa: E402
from spade.kinds.code_reasoning.proposer_role import proposer_task  # noqa: E402
from spade.sandbox import SandboxPool  # noqa: E402
from spade.selfplay.judging import Judged, admit, judge, judged  # noqa: E402
from spade.selfplay.prompts import prompt_task  # noqa: E402


def stored(run: Path) -> list[tuple[str, str, str, str, int]]:
    with sqlite3.connect(f"file:{run / 'spade.sqlite'}?mode=ro", uri=True) as db:
        return list(db.execute("SELECT proposal_id, prompt, completion, reason, valid FROM proposals"))


def sampled(args: argparse.Namespace) -> list[Judged]:
    from spade.policy.embedded import EmbeddedPolicy

    cfg = load_config(args.config)
    policy = EmbeddedPolicy(cfg.sampling.model_copy(update={"threads": args.threads}), cfg.training)
    prompts = [proposer_task(f"proposer-b-{k}", cfg.evolution.initial_difficulty, [], MODES[k % len(MODES)])
               for k in range(args.sample)]
    started = time.perf_counter()
    samples = policy.sample(prompts, 1, temperature=cfg.selfplay.proposer_temperature, seed=args.seed)
    print(f"sampled {len(prompts)} proposals in {time.perf_counter() - started:.0f} s ({policy.name}, "
          f"{args.threads} thread(s), {platform.processor() or platform.machine()})")
    return [judged(p.task_id, p, a[0].text if a else "", True) for p, a in zip(prompts, samples)]


def report_sampled(entries: list[Judged]) -> None:
    by: dict[str, list[Judged]] = defaultdict(list)
    for e in entries:
        by[e.mode].append(e)
        by["all"].append(e)

    def share(got: list[Judged], count: int) -> str:
        return f"{count / len(got):.2f} ({count})"

    print("mode | proposals | valid | copies of the shown example | admitted")
    for mode in sorted(by, key=lambda m: (m == "all", m)):
        got = by[mode]
        copies = sum(e.reason == "duplicate_example" for e in got)
        print(f"{mode} | {len(got)} | {share(got, sum(e.valid for e in got))} | {share(got, copies)} | "
              f"{share(got, sum(e.admitted for e in got))}")
    print("reasons: " + ", ".join(f"{r} {n}" for r, n in Counter(e.reason for e in entries).most_common()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="*", type=Path)
    ap.add_argument("--sample", type=int, default=0, help="proposals to sample from the config's model instead")
    ap.add_argument("--config", default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--complete-inputs", action="store_true",
                    help="judge as under selfplay.complete_inputs: true (the environment completes too few inputs)")
    args = ap.parse_args()
    complete = bool(args.complete_inputs)
    if args.sample:
        entries = sampled(args)
        with SandboxPool(ExecutorConfig()) as pool:
            judge(entries, pool, GenerationConfig(), iteration=0, checkpoint=None, model="sampled", complete=complete)
        threshold = GenerationConfig().dedup_threshold
        admit(entries, DedupIndex(threshold), DedupIndex(threshold))
        report_sampled(entries)
        return
    if not args.runs:
        sys.exit("give a run directory, or --sample N")
    rows = [r for run in args.runs for r in stored(run)]
    if not rows:
        sys.exit("no proposals stored in " + ", ".join(map(str, args.runs)))
    entries = [judged(pid, prompt_task(prompt), completion, True) for pid, prompt, completion, _, _ in rows]
    with SandboxPool(ExecutorConfig()) as pool:
        judge(entries, pool, GenerationConfig(), iteration=0, checkpoint=None, model="replay", complete=complete)
    threshold = GenerationConfig().dedup_threshold
    admit(entries, DedupIndex(threshold), DedupIndex(threshold))
    before: dict[str, list[bool]] = defaultdict(list)
    after: dict[str, list[bool]] = defaultdict(list)
    new: dict[str, list[bool]] = defaultdict(list)
    reasons: dict[str, Counter[str]] = {"stored": Counter(), "now": Counter()}
    for (_, _, _, reason, valid), e in zip(rows, entries):
        was = bool(valid) or reason.startswith("duplicate")
        for mode in (e.mode, "all"):
            before[mode].append(was)
            after[mode].append(e.valid)
            new[mode].append(e.admitted)
        reasons["stored"][reason if not reason.startswith("duplicate") else "ok"] += 1
        reasons["now"][e.reason] += 1
    print(f"{len(rows)} proposals from {', '.join(map(str, args.runs))}")
    print(f"mode | proposals | valid as stored | valid now{' (inputs completed)' if complete else ''} | "
          "new among the replayed now")
    for mode in sorted(before, key=lambda m: (m == "all", m)):
        b, a, n = before[mode], after[mode], new[mode]
        print(f"{mode} | {len(b)} | {sum(b) / len(b):.2f} ({sum(b)}) | {sum(a) / len(a):.2f} ({sum(a)}) | "
              f"{sum(n) / len(n):.2f} ({sum(n)})")
    for side, got in reasons.items():
        print(f"reasons {side}: " + ", ".join(f"{r} {n}" for r, n in got.most_common()))


if __name__ == "__main__":
    main()
