"""When a sampled answer is complete: the stop rule a kind's prompt names (`Prompt.stop`), as the decoders test it.

In: a rule's name and the completion so far (the text after the prompt's prefill). Out: whether the row may end.
A rule is tested only after a token whose text holds the rule's trigger character, so a row is decoded to text
a few times per answer rather than at every step. Without a rule that fits its kind, a row whose answer is done
keeps writing to `max_new_tokens` (a math answer line followed by 250 tokens of commentary).
- `code`: a Python function's block is closed (a fence after a `def`); Python-function and repair prompts;
- `fence`: the prefilled block is closed (any fence: the prefill opened it); programs, SQL, documents, tool calls;
- `line`: the prefilled line is finished (a newline after its first non-blank character); math's "Answer: ".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

StopTest = Callable[[str], bool]
FENCE = "```"


@dataclass(frozen=True, slots=True)
class StopRule:
    """`test(completion)` says the answer is complete; it is asked only after a token holding `trigger`."""

    name: str
    trigger: str
    test: StopTest


def closed_after_code(text: str) -> bool:
    start = text.find("def ")
    return start >= 0 and FENCE in text[start:]


def closed_fence(text: str) -> bool:
    return FENCE in text


def line_ended(text: str) -> bool:
    return "\n" in text.lstrip()


RULES = {rule.name: rule for rule in (StopRule("code", "`", closed_after_code), StopRule("fence", "`", closed_fence),
                                      StopRule("line", "\n", line_ended))}
DEFAULT_RULE = RULES["code"]


def stop_rule(name: str) -> StopRule:
    """The rule called `name`; an unknown name is a kind's bug (it raises, naming the known ones)."""
    try:
        return RULES[name]
    except KeyError:
        raise ValueError(f"stop rule {name!r} is not one of {sorted(RULES)}") from None


def as_rule(stop: StopRule | StopTest) -> StopRule:
    """A rule as given, or a bare test wrapped as one triggered by a backtick (how decoders were first given one)."""
    return stop if isinstance(stop, StopRule) else StopRule("custom", "`", stop)


class TriggerTokens:
    """The token ids whose text holds a given character, per tokenizer, computed on first use of each character
    (byte-level vocabularies spell a newline 'Ċ', so the ids are found by decoding, not by reading the pieces)."""

    def __init__(self, tokenizer: Any) -> None:
        self.tok = tokenizer
        self._ids: dict[str, frozenset[int]] = {}

    def ids(self, char: str) -> frozenset[int]:
        if char not in self._ids:
            if char.isprintable() and not char.isspace():
                found = (i for piece, i in self.tok.get_vocab().items() if char in piece)
            else:
                found = (i for i in range(len(self.tok)) if char in self.tok.decode([i]))
            self._ids[char] = frozenset(found)
        return self._ids[char]
