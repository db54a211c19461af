"""The audit table's `result` field with screening findings: "passed|screen:shell,network".

In: an execution status and the codes from `screen_code`, or stored result strings. Out: the joined string, the
codes parsed back, and counts per code over many results (for the report and the doctor).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

SCREEN_PREFIX = "screen:"


def audit_result(status: str, findings: Iterable[str]) -> str:
    """'passed' with no findings, else 'passed|screen:network,shell' (findings sorted, deduplicated)."""
    codes = sorted(set(findings))
    return f"{status}|{SCREEN_PREFIX}{','.join(codes)}" if codes else status


def parse_screen(result: str) -> tuple[str, ...]:
    """The finding codes stored in one audit result; () when it carries none."""
    for part in result.split("|")[1:]:
        if part.startswith(SCREEN_PREFIX):
            return tuple(code for code in part[len(SCREEN_PREFIX):].split(",") if code)
    return ()


def finding_counts(results: Iterable[str]) -> dict[str, int]:
    """How many results carry each finding code, most frequent first."""
    counts: Counter[str] = Counter()
    for result in results:
        counts.update(set(parse_screen(result)))
    return dict(counts.most_common())
