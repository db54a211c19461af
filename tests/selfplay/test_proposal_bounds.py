"""Host work on a proposal is bounded: parsing spends the extractors' parse budget (a few parses, never one per
line), so a 4 KB proposal that never parses costs milliseconds of host CPU; a proposal cut off mid-line still
gives its function and inputs."""

from __future__ import annotations

import time

from spade.selfplay.proposal import MAX_PROPOSAL_CHARS, ParsedProposal, parse_proposal

VALID = ('```python\ndef f(xs):\n    """Triple the items above one."""\n    return [x * 3 for x in xs if x > 1]\n\n'
         'print(f([1, 2, 3]))\nprint(f([4, 0]))\nprint(f([]))\n```')


def test_a_proposal_that_never_parses_costs_a_few_parses_not_one_per_line() -> None:
    for text in ("def f(x):\n    return [\n" + "1,\n" * 2000, "print(f(\n" + "1,\n" * 2000,
                 "def f(x):\n    return x\n" + 'y = """\n' + "a\n" * 2000):
        text = text[:MAX_PROPOSAL_CHARS]
        started = time.process_time()
        for _ in range(5):
            parse_proposal(text, prefilled=False)
        assert time.process_time() - started < 0.5  # one parse per line: ~0.85 s CPU each


def test_a_proposal_cut_off_mid_line_still_gives_its_function_and_inputs() -> None:
    cut = VALID.removesuffix("\n```")[:-6]  # the last call cut mid-line
    parsed = parse_proposal(cut, prefilled=False)
    assert isinstance(parsed, ParsedProposal)
    assert parsed.inputs == (([1, 2, 3],), ([4, 0],)) and parsed.description == "Triple the items above one."
