"""Security audit of generated code (docs/method.md#security-audit): screen code before it runs, and read findings
back."""

from spade.audit.result import audit_result, event_counts, finding_counts, parse_events, parse_screen
from spade.audit.screen import FINDINGS, screen_code

__all__ = ["FINDINGS", "audit_result", "event_counts", "finding_counts", "parse_events", "parse_screen",
           "screen_code"]
