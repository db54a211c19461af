"""Chat prompts for a structured task: the requirements in words (the task's description, which shows the JSON
Schema or not, by difficulty), the public tests that are queries as worked examples, and the answer format.

In: a Task and a variant index. Out: a Prompt whose prefill opens the document's code block (and a JSON
mapping). Constraint checks are never shown as checks: the description states them in words, and the hidden
ones only follow from it.
"""

from __future__ import annotations

import json

from spade.kinds.base import Prompt, prompt_hash
from spade.kinds.structured.execute import checks_of, document_format
from spade.records import Task

MAX_EXAMPLES = 4
_NAMES = {"json": "JSON", "yaml": "YAML"}
_SYSTEM = (
    "You write configuration files and structured documents that satisfy a specification exactly.",
    "You are a careful DevOps engineer. You answer with one valid document and nothing else.",
    "You produce machine-readable documents that pass strict validation.",
)
PROMPT_VARIANTS = len(_SYSTEM)


# A JSON mapping's answer is prefilled up to its first key's quote: with the fence alone the embedded 135M model
# often opened another document (a rule instead of the policy, the template's inner object) or prose.
OBJECT_OPENING = '{\n  "'


def prefill(task: Task) -> str:
    """The opening fence, then for a JSON document that is a mapping (as its reference is) the opening brace and
    the first key's quote, and at the template level the first key."""
    fence = f"```{document_format(task)}\n"
    if document_format(task) == "json" and (task.reference_solution or "").lstrip().startswith("{"):
        return fence + OBJECT_OPENING + (_first_key(task.reference_solution or "") if task.params.get("show_template")
                                         else "")
    return fence


def _first_key(reference: str) -> str:
    """The template's first key and its colon: the template level shows every key in the answer's order; prefilled
    with the brace alone, the 135M model began with keys of its own (`"type": "json"`) half the time."""
    try:
        keys = list(json.loads(reference))
    except ValueError:
        return ""
    return f'{json.dumps(keys[0])[1:]}:' if keys else ""  # no space after the colon: the value's token has one


def build_prompt(task: Task, variant: int = 0) -> Prompt:
    v = variant % PROMPT_VARIANTS
    fmt = _NAMES.get(document_format(task), document_format(task))
    parts = [task.description.strip()]
    # the easiest level states every value (a small model copied the example packets' addresses into `ports`)
    examples = [] if task.params.get("show_template") else _examples(task)
    if examples:
        parts.append("For example:\n" + "\n".join(f"- {e}" for e in examples))
    parts.append((f"Answer with the complete {fmt} document in one ```{document_format(task)} code block.",
                  f"Reply with only the {fmt} document, in a ```{document_format(task)} block.",
                  f"Write the whole {fmt} document inside one ```{document_format(task)} fenced block.")[v])
    messages = ({"role": "system", "content": _SYSTEM[v]}, {"role": "user", "content": "\n\n".join(parts)})
    fill = prefill(task)
    return Prompt(messages=messages, prefill=fill, variant=v, hash=prompt_hash(messages, fill))


def _examples(task: Task) -> list[str]:
    """Public query tests as 'a tcp packet to port 22 from 10.1.2.3 must be denied' lines."""
    lines = []
    for check, case in zip(checks_of(task), task.test_cases):
        if not (isinstance(check, dict) and check.get("op") == "firewall" and isinstance(case.expected, list)):
            continue
        for p, action in zip(check.get("packets", []), case.expected):
            if len(lines) < MAX_EXAMPLES:
                lines.append(f"a {p.get('protocol')} packet to port {p.get('port')} from {p.get('source')} must be "
                             f"{'allowed' if action == 'allow' else 'denied'}")
    return lines

