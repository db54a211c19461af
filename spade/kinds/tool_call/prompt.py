"""How a tool-call task is shown and how its answer is taken from a completion.

In: a Task (the request in `description`, the offered tool names in `signature`) and a variant. Out: a `Prompt`
whose user message holds the tools as OpenAI tools-format JSON and the answer format (a JSON list of calls, "$N.path"
for a field of an earlier call's result), prefilled with a ```json fence; `extract_plan` returns the JSON text of
the answer ('' when there is none), never parsing it beyond finding its brackets: the judge in the sandbox parses.
"""

from __future__ import annotations

import json

from spade.kinds.base import Prompt, prompt_hash
from spade.kinds.tool_call.examples import example_for
from spade.kinds.tool_call.simtools import TOOLS, definitions, offered
from spade.records import Task
from spade.untrusted import MAX_COMPLETION_BYTES, clip

# The prefill opens the list of calls: prefilling only the fence, the embedded 135M model copied the tool
# definitions shown above it (0 of 80 samples answered with a call). One call a line, as in the worked example:
# with `[{"name": "` on one line it often closed the list with `}}}` instead of `}}]`.
PREFILL = '```json\n[\n  {"name": "'
FENCE = "```"

_SYSTEM = (
    "You are an assistant that answers requests by calling tools.",
    "You plan tool calls. You never answer from memory when a tool can tell you.",
    "You are a careful agent: you call exactly the tools a request needs, with exact arguments.",
)
_FORMAT = (
    "Answer with the calls to make, in order, as a JSON list in one ```json block. "
    'To use a field of an earlier call\'s result, write the string "$N.field" as the argument value, where N '
    'counts calls from 0: "$0.id" is the id in the first call\'s result, "$1.events.0.id" the id of the first event '
    "in the second's. The last call's result is your answer."
)
PROMPT_VARIANTS = len(_SYSTEM)


def build_prompt(task: Task, variant: int = 0) -> Prompt:
    """The tools as OpenAI tools-format JSON, one definition a line, the answer format with a worked example, and
    the request last (the model answers what it read last)."""
    v = variant % PROMPT_VARIANTS
    names = [n for n in offered(task.signature, task.params) if n in TOOLS]
    tools = "\n".join(json.dumps(d) for d in definitions(names))
    request = task.description.strip()
    answer = _FORMAT + _example(names)
    if v == 0:
        user = f"Tools (OpenAI tools format, one a line):\n{tools}\n\n{answer}\n\nRequest: {request}"
    elif v == 1:
        user = f"You can call these tools (OpenAI tools format, one a line):\n{tools}\n\n{answer}\n\n{request}"
    else:
        user = (f"Available tools (OpenAI tools format, one a line):\n{tools}\n\n{answer}\n\nReply with the JSON only."
                f"\n\nRequest: {request}")
    messages = ({"role": "system", "content": _SYSTEM[v]}, {"role": "user", "content": user})
    return Prompt(messages=messages, prefill=PREFILL, variant=v, hash=prompt_hash(messages, PREFILL))


def _example(names: list[str]) -> str:
    """A worked example with the first offered tool (spade.kinds.tool_call.examples): another request's values as
    its arguments. With distractors offered (harder levels, shuffled), it is as often a tool the answer does not use."""
    found = example_for(names)
    if found is None:
        return ""
    request, call = found
    return f"\n\nFor example, the request \"{request}\" is answered with:\n```json\n[\n  {json.dumps(call)}\n]\n```"


def extract_plan(completion: str, *, prefilled: bool = True) -> str:
    """The first fenced block (closed or cut off) that starts like JSON, else the text from the first '[' or '{'
    to the last closing bracket; '' when there is none. A `prefilled` completion that opens its answer itself
    (a chat server cannot prefill: its own fence is dropped and it starts with the list or a call) continues only
    the fence, not the prefilled opening of the list."""
    completion = clip(completion, MAX_COMPLETION_BYTES).replace("\r\n", "\n")
    prefix = ""
    if prefilled:
        prefix = PREFILL if completion.lstrip()[:1] not in ("[", "{") else PREFILL.partition("\n")[0] + "\n"
    text = prefix + completion
    segments = text.split(FENCE)
    for segment in segments[1::2]:
        first, _, rest = segment.partition("\n")
        body = (rest if first.strip().isalpha() or not first.strip() else segment).strip()
        if body[:1] in ("[", "{"):
            return body
    starts = [i for i in (text.find("["), text.find("{")) if i >= 0]
    if not starts:
        return ""
    start = min(starts)
    end = max(text.rfind("]"), text.rfind("}"))
    return text[start:end + 1].strip() if end > start else ""
