"""Evaluation on independent fixed sets: suites by name, pass@k of a policy, grading of external samples.

load_suite('builtin' | 'humaneval' | path) -> tasks; evaluate(policy, pool, tasks, ...) -> EvalReport;
grade_samples(pool, tasks, samples.jsonl) -> EvalReport. The builtin set never feeds training.
"""

from spade.evaluate.evaluator import evaluate, grade_samples, program_from_completion
from spade.evaluate.report import EvalReport
from spade.evaluate.suites import load_suite, suite_names

__all__ = ["EvalReport", "evaluate", "grade_samples", "load_suite", "program_from_completion", "suite_names"]
