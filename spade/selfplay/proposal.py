"""A proposer's answer made a code-reasoning draft: the function f, its calls as inputs, the mode it is asked in.

In: the proposer's completion (the text after `def f(` was prefilled, or the whole answer), a mode, ids. Out: a
`ParsedProposal` (program, inputs, description) or the reason there is none. The text is cut to
MAX_PROPOSAL_CHARS before it is parsed (spade.pycode bounds nesting); inputs are the literal arguments of calls of
f outside its body (`print(f(3, [1]))`), at most MAX_INPUTS of them, each at most MAX_INPUT_CHARS as written; a
call whose argument count f cannot take is left out (the others still make a task). Nothing here runs the program: validation does, in the sandbox (spade.kinds.code_reasoning.validate).
"""

from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from spade.kinds.code_reasoning.proposer_role import PREFILL
from spade.kinds.code_reasoning.validate import split_inputs
from spade.pycode import ParseBudget, longest_parse
from spade.records import TaskDraft
from spade.sandbox.job import to_json_value
from spade.untrusted import clean
from spade.validate.types import are_json_args

MAX_PROPOSAL_CHARS = 4000
MAX_INPUTS = 8
MAX_INPUT_CHARS = 200
ENTRY = "f"


@dataclass(frozen=True, slots=True)
class ParsedProposal:
    program: str
    signature: str
    inputs: tuple[tuple[Any, ...], ...]
    description: str


def parse_proposal(completion: str, *, prefilled: bool = True, need_inputs: bool = True) -> ParsedProposal | str:
    """The proposal in `completion`, or a reason code: no_function, syntax_error, no_inputs, arity_mismatch (calls,
    but none with an argument count f takes). With `need_inputs` false a proposal without usable calls is returned
    with no inputs (the environment completes them: spade.selfplay.inputs)."""
    text = clean(((PREFILL if prefilled else "") + completion[:MAX_PROPOSAL_CHARS])[:MAX_PROPOSAL_CHARS])
    block = text.split("```python", 1)[-1].split("```", 1)[0] if "```" in text else text
    tree = _longest_module(block)
    if tree is None:
        return "syntax_error"
    func = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == ENTRY), None)
    if func is None:
        return "no_function"
    imports = [ast.get_source_segment(block, n) or "" for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    program = "\n".join([*imports, ast.get_source_segment(block, func) or ""]).strip() + "\n"
    inputs: list[tuple[Any, ...]] = []
    seen: set[str] = set()
    fits, misfits = _arity(func), 0
    for node in tree.body:
        if node is func or isinstance(node, (ast.FunctionDef, ast.Import, ast.ImportFrom)):
            continue
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            args = _literal_call(block, call)
            if args is None:
                continue
            if not fits(len(args)):
                misfits += 1
                continue
            key = json.dumps(args)
            if key not in seen and len(inputs) < MAX_INPUTS:
                seen.add(key)
                inputs.append(tuple(args))
    if not inputs and need_inputs:
        return "arity_mismatch" if misfits else "no_inputs"
    doc = ast.get_docstring(func) or ""
    # A docstring is decoded: its escapes (\\ud800) can spell a lone surrogate the raw text did not hold.
    description = clean(doc.strip().splitlines()[0][:200]) if doc.strip() else "Find the function from its examples."
    signature = (ast.get_source_segment(block, func) or "").split("\n", 1)[0].rstrip(":").strip()
    return ParsedProposal(program, signature, tuple(inputs), description)


def draft_of(parsed: ParsedProposal, mode: str, difficulty: float, *, iteration: int, index: int,
             checkpoint: str | None, model: str, n_public: int = 3) -> TaskDraft:
    """The proposal as a code_reasoning draft in `mode` (induction shows the first pairs, at most n_public and at
    most half, and hides the rest)."""
    content = json.dumps([parsed.program, [list(a) for a in parsed.inputs], mode])
    task_id = f"sp-{mode[:3]}-{hashlib.sha256(content.encode()).hexdigest()[:12]}"
    public, hidden = split_inputs(mode, parsed.inputs, n_public)  # induction keeps at least half of the pairs hidden
    return TaskDraft(task_id, parsed.description, parsed.signature, ENTRY, difficulty, ("code_reasoning", mode),
                     public, hidden, parsed.program, family=f"selfplay_{mode}", params={"mode": mode},
                     provenance={"source": "proposer", "iteration": iteration, "index": index,
                                 "checkpoint": checkpoint, "model": model},
                     kind="code_reasoning")


def _arity(func: ast.FunctionDef) -> Any:
    """Whether f takes n positional arguments (keyword-only parameters without a default rule every n out)."""
    a = func.args
    if any(d is None for d in a.kw_defaults):
        return lambda n: False
    most = len(a.posonlyargs) + len(a.args)
    least = most - len(a.defaults)
    return lambda n: least <= n and (a.vararg is not None or n <= most)


def _literal_call(source: str, call: ast.Call) -> list[Any] | None:
    if not (isinstance(call.func, ast.Name) and call.func.id == ENTRY) or call.keywords:
        return None
    if len(ast.get_source_segment(source, call) or "") > MAX_INPUT_CHARS:
        return None
    try:
        args = [to_json_value(ast.literal_eval(a)) for a in call.args]
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None
    return args if are_json_args(args) else None


def _longest_module(block: str) -> ast.Module | None:
    """The block parsed, or its longest parseable prefix of whole lines (a completion cut off mid-line), within the
    extractors' parse budget (spade.pycode.ParseBudget: a few parses cut where each SyntaxError points, never one
    parse per line)."""
    found = longest_parse(block.split("\n"), 0, ParseBudget())
    return None if found is None else found[1]
