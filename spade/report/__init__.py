"""`spade report`: one self-contained HTML file with the run's curves, histograms, rollbacks and audit counts."""

from spade.report.command import report_command, write_report

__all__ = ["report_command", "write_report"]
