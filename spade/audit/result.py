"""The audit table's `result` field with screening findings and sandbox events:
"passed|screen:network,shell|events:file_access,socket".

In: an execution status, the codes from `screen_code` and the events the sandbox observed, or stored result
strings. Out: the joined string, the codes or events parsed back, and counts per code or event over many results
(for the report and the doctor).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

SCREEN_PREFIX = "screen:"
EVENTS_PREFIX = "events:"


def audit_result(status: str, findings: Iterable[str], events: Iterable[str] = ()) -> str:
    """'passed' with no findings or events, else 'passed|screen:network,shell|events:socket' (each part sorted,
    deduplicated, present only when not empty). Events already recorded as screen findings are left out."""
    codes = sorted(set(findings))
    seen = sorted({e for e in events if not e.startswith(SCREEN_PREFIX) and e.replace("_", "").isalnum()})
    parts = [status]
    if codes:
        parts.append(SCREEN_PREFIX + ",".join(codes))
    if seen:
        parts.append(EVENTS_PREFIX + ",".join(seen))
    return "|".join(parts)


def parse_screen(result: str) -> tuple[str, ...]:
    """The finding codes stored in one audit result; () when it carries none."""
    return _part(result, SCREEN_PREFIX)


def parse_events(result: str) -> tuple[str, ...]:
    """The sandbox events stored in one audit result; () when it carries none."""
    return _part(result, EVENTS_PREFIX)


def _part(result: str, prefix: str) -> tuple[str, ...]:
    for part in result.split("|")[1:]:
        if part.startswith(prefix):
            return tuple(code for code in part[len(prefix):].split(",") if code)
    return ()


def finding_counts(results: Iterable[str]) -> dict[str, int]:
    """How many results carry each finding code, most frequent first."""
    return _counts(results, parse_screen)


def event_counts(results: Iterable[str]) -> dict[str, int]:
    """How many results carry each sandbox event, most frequent first."""
    return _counts(results, parse_events)


def _counts(results: Iterable[str], parse: Callable[[str], tuple[str, ...]]) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for result in results:
        counts.update(set(parse(result)))
    return dict(counts.most_common())
