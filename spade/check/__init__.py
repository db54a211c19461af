"""`spade check`: the pre-flight checklist (docs/method.md#pre-flight-checklist) against a config and this host."""

from spade.check.command import check_command, host_facts, run_checks
from spade.check.items import CheckItem, HostFacts, checklist

__all__ = ["CheckItem", "HostFacts", "check_command", "checklist", "host_facts", "run_checks"]
