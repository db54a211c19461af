"""`spade families`: every kind and family, one line each with its knobs and an example task; --json in full."""

from __future__ import annotations

import json

from spade.cli import main
from spade.generate.procedural import draft_task
from spade.registry import FAMILIES, KINDS


def test_every_kind_and_family_is_listed_once_on_its_own_line(capsys) -> None:
    assert main(["families"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for kind in KINDS.names():
        assert sum(line.startswith(f"kind {kind}: ") for line in lines) == 1, kind
    for name in FAMILIES.names():
        mine = [line for line in lines if line.split()[:1] == [name]]
        assert len(mine) == 1 and " knobs: " in mine[0] and " e.g. " in mine[0], name
    assert lines[-1].startswith(f"{len(FAMILIES.names())} families over {len(KINDS.names())} kinds")


def test_the_json_catalogue_holds_each_familys_knobs_and_a_drawable_example(capsys) -> None:
    assert main(["families", "--json"]) == 0
    kinds = json.loads(capsys.readouterr().out)["kinds"]
    assert [k["kind"] for k in kinds] == KINDS.names()
    entries = {e["name"]: e for k in kinds for e in k["families"]}
    assert sorted(entries) == sorted(FAMILIES.names())
    for name, entry in entries.items():
        family = FAMILIES.get(name)
        assert entry["kind"] == family.kind and entry["tags"] == list(family.tags)
        example = entry["example"]
        draft = draft_task(family, 0.5, 0, 0, 1, 0)  # the example is the task the family makes: same draw, same task
        assert (example["description"], example["signature"]) == (draft.description, draft.signature)
        assert set(example["knobs"]) <= set(entry["knobs"]) and example["knobs"]
