"""`spade doctor`: read a run and name the failure patterns it shows (docs/method.md#failure-patterns), with evidence
and fixes."""

from spade.doctor.command import doctor_command
from spade.doctor.rules import Checkup, Diagnosis, diagnose

__all__ = ["Checkup", "Diagnosis", "diagnose", "doctor_command"]
