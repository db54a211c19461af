"""bench/data/seed_functions.jsonl, the seed-task lever's file: it is what its script writes, and it loads as seeds."""

import runpy
from pathlib import Path

from spade.generate.seeds import load_seeds
from spade.generate.variants import seed_variant

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "bench" / "data" / "seed_functions.jsonl"


def test_the_committed_file_is_what_the_script_writes(tmp_path):
    out = tmp_path / "seeds.jsonl"
    runpy.run_path(str(ROOT / "bench" / "data" / "seed_functions.py"))["main"](str(out))
    assert out.read_text() == SEEDS.read_text()


def test_every_seed_loads_and_makes_a_variant():
    seeds = load_seeds(SEEDS)
    assert len(seeds) == 32 and len({t.entry_point for t in seeds}) == 32
    for t in seeds:
        assert t.test_cases and t.hidden_test_cases
        draft = seed_variant(t, 0, 0)
        assert draft.reference_solution and draft.entry_point != t.entry_point  # renamed, as variants are
