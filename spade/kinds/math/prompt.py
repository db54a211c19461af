"""Chat prompts for a math task. In: a Task and a variant. Out: a Prompt whose system message says how to answer (the
answer's form, with an example, and the closing "Answer: ..." line) and whose user message is the problem alone,
prefilled with "Answer: " (measured: without the prefill the embedded 135M model rambled and answered 0 of 120
samples; with the form and answer-line instructions after the problem it answered 3 of 40 easy number problems
correctly, with them in the system message and the problem last 10 of 40). A chat server that cannot prefill works
first and ends with its own answer line, which the extractor takes."""

from __future__ import annotations

from spade.kinds.base import Prompt, prompt_hash
from spade.kinds.math.extract import PREFILL
from spade.kinds.math.grammar import Form, parse_form
from spade.records import Task

_SYSTEM = (
    "You are a careful mathematician. Work step by step, then give the final answer.",
    "You solve math problems exactly, without decimals unless asked.",
    "You are a helpful assistant who is good at algebra and arithmetic.",
)
_ENDING = ("End with a last line of the form `Answer: <your answer>` (or put it in \\boxed{}), using +, -, *, /, ^ "
           "and parentheses.")


def form_hint(form: Form) -> str:
    """How the answer should be written, in words, with an example."""
    unknown = form.variables[0] if form.variables else "x"
    return {
        "number": "The answer is one number: an integer or a fraction in lowest terms, such as -7/4.",
        "numbers": f"Give every solution, separated by commas, such as `{unknown} = 2, {unknown} = -1/3`.",
        "constant": "The answer is one exact value, such as (3 + sqrt(5))/2.",
        "constants": f"Give every solution exactly, separated by commas, such as `{unknown} = 1 + sqrt(2), "
                     f"{unknown} = 1 - sqrt(2)`.",
        "polynomial": f"Write the answer as an expanded polynomial in {', '.join(form.variables)} with like terms "
                      "combined, such as 3*x^2 - x/2 + 4.",
        "expression": f"Write the answer as an expression in {', '.join(form.variables)}, such as 2*n + 1.",
    }[form.name]


def build_prompt(task: Task, variant: int) -> Prompt:
    v = variant % len(_SYSTEM)
    try:
        hint = form_hint(parse_form(task.signature))
    except ValueError:
        hint = ""
    system = " ".join(part for part in (_SYSTEM[v], hint, _ENDING) if part)
    messages = ({"role": "system", "content": system}, {"role": "user", "content": task.description.strip()})
    return Prompt(messages=messages, prefill=PREFILL, variant=v, hash=prompt_hash(messages, PREFILL), stop="line")
