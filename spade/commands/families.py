"""`spade families`: every task kind and procedural family, with the knobs difficulty turns and an example task.

In: the registries (spade.registry.KINDS, FAMILIES; plug-ins register on first lookup). Out: one line per kind and
per family (its tags, the knob names its variants carry across difficulties, the start of a task it makes at
difficulty 0.5), or the same as JSON with the example's full wording, signature, knobs and first public input.
Examples are drafts: their expected values come from running the reference in the sandbox, which this never does.
"""

from __future__ import annotations

import json
from typing import Any

from spade.generate.family import Family

EXAMPLE_DIFFICULTY = 0.5
_SPREAD = (0.0, 0.25, 0.5, 0.75, 1.0)  # difficulties whose variants' knobs are listed
_WIDTH = 90  # characters of the example's wording on its line


def family_entry(family: Family) -> dict[str, Any]:
    """A family's name, kind, tags, knob names and an example draft (difficulty 0.5, seed 0, index 0)."""
    from spade.generate.procedural import draft_task

    knobs: dict[str, None] = {}
    for difficulty in _SPREAD:
        for index in range(3):
            knobs.update(dict.fromkeys(draft_task(family, difficulty, 0, index, 0, 0).params))
    draft = draft_task(family, EXAMPLE_DIFFICULTY, 0, 0, 1, 0)
    example = {"difficulty": draft.difficulty, "description": draft.description, "signature": draft.signature,
               "knobs": draft.params, "public_input": list(draft.public_inputs[0]) if draft.public_inputs else None}
    return {"name": family.name, "kind": family.kind, "tags": list(family.tags), "knobs": list(knobs),
            "example": example}


def catalogue() -> list[dict[str, Any]]:
    """Every registered kind, in name order, with its families' entries."""
    from spade.registry import FAMILIES, KINDS

    entries = [family_entry(FAMILIES.get(name)) for name in FAMILIES.names()]
    return [{"kind": kind, "families": [e for e in entries if e["kind"] == kind]} for kind in KINDS.names()]


def families_command(as_json: bool = False) -> int:
    kinds = catalogue()
    if as_json:
        print(json.dumps({"kinds": kinds}, indent=1))
        return 0
    for kind in kinds:
        families = kind["families"]
        count = f"{len(families)} families" if families else "no procedural families (its tasks come from elsewhere)"
        print(f"kind {kind['kind']}: {count}")
        for e in families:
            wording = " ".join(e["example"]["description"].split())
            if len(wording) > _WIDTH:
                wording = wording[: _WIDTH - 1] + "…"
            print(f"  {e['name']:<20} knobs: {', '.join(e['knobs']) or '-'}  e.g. {wording}")
    total = sum(len(k["families"]) for k in kinds)
    print(f"{total} families over {len(kinds)} kinds (--json: each example in full)")
    return 0
