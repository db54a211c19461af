"""`spade doctor`: read a run and name the write-up's §6.1 failure patterns it shows, with evidence and fixes."""

from spade.doctor.command import doctor_command
from spade.doctor.rules import Checkup, Diagnosis, diagnose

__all__ = ["Checkup", "Diagnosis", "diagnose", "doctor_command"]
