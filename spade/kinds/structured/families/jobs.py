"""structured_jobs: a scheduler's job list, sorted by priority (highest first), each job with a unique id, its
given priority and schedule (hour and minute in range), retries under a cap and soft < hard timeouts.

The order, the distinct ids and the timeout rule are stated in words and checked only by hidden (edge) tests;
the shown facts (each job's priority and start time) are public checks; the schema holds the ids to the given
jobs. Difficulty adds jobs (one, with the template, at the easiest level), the timeout and retry rules, hides the
JSON Schema and moves from JSON to YAML.
"""

from __future__ import annotations

import random
from typing import Any

from spade.generate.family import Variant
from spade.generate.registry import register
from spade.kinds.structured.families.common import (
    FORMAT_NAMES,
    CheckFamily,
    pick_blanks,
    pick_format,
    render,
    schema_block,
    show_schema,
    show_template,
    signature,
    template_block,
)

_JOBS = ("backup", "report", "cleanup", "reindex", "billing-run", "cache-warm", "log-rotate", "digest-mail",
         "sync-users", "vacuum")


class JobQueue(CheckFamily):
    name = "structured_jobs"
    tags = ("structured", "config", "ordering", "cross_field")

    def variant(self, difficulty: float, rng: random.Random) -> Variant:
        fmt = pick_format(difficulty, rng)
        template = show_template(difficulty)
        n_jobs = 1 if template else 2 + round(difficulty * 4)  # the easiest level: one job to fill in, no order
        with_timeouts, with_retries = difficulty >= 0.3, difficulty >= 0.5
        max_retries = rng.randint(2, 5)
        names = rng.sample(_JOBS, n_jobs)
        priorities = sorted(rng.sample(range(1, 101), n_jobs), reverse=True)
        given = {n: {"priority": p, "hour": rng.randint(0, 23), "minute": rng.choice((0, 5, 15, 30, 45, 50))}
                 for n, p in zip(names, priorities)}
        shown = names[:]
        rng.shuffle(shown)  # the description lists them out of order; the document must sort them
        jobs = []
        for n in names:
            job: dict[str, Any] = {"id": n, "priority": given[n]["priority"],
                                   "schedule": {"hour": given[n]["hour"], "minute": given[n]["minute"]}}
            if with_retries:
                job["retries"] = rng.randint(0, max_retries)
            if with_timeouts:
                soft = rng.choice((60, 120, 300, 600))
                job["timeout_s"] = {"soft": soft, "hard": soft * rng.choice((2, 3))}
            jobs.append(job)
        schema = _schema(names, with_timeouts, with_retries)
        show = show_schema(difficulty)
        checks: list[Any] = [{"op": "each", "path": ["jobs", "*"], "check": {"op": "implies", "if": {
            "op": "equals", "path": ["id"], "value": n}, "then": {"op": "all", "checks": [
                {"op": "equals", "path": ["priority"], "value": given[n]["priority"]},
                {"op": "equals", "path": ["schedule"], "value": {"hour": given[n]["hour"],
                                                                  "minute": given[n]["minute"]}}]}}}
            for n in shown]
        checks.append({"op": "count", "path": ["jobs"], "min": n_jobs, "max": n_jobs})
        implied: list[Any] = [
            {"op": "schema", "schema": schema},
            {"op": "all", "checks": [{"op": "sorted", "items": ["jobs", "*"], "key": ["priority"], "order": "desc",
                                      "strict": True},
                                     {"op": "distinct", "path": ["jobs", "*", "id"]}]},
        ]
        if with_timeouts:
            implied.append({"op": "each", "path": ["jobs", "*", "timeout_s"], "check": {
                "op": "compare", "left": ["soft"], "cmp": "<", "right": ["hard"]}})
        if with_retries:
            implied.append({"op": "range", "path": ["jobs", "*", "retries"], "min": 0, "max": max_retries})
        description = _description(fmt, shown, given, with_timeouts, with_retries, max_retries, template)
        blanks = pick_blanks({"jobs": jobs}, [("jobs", 0, "priority"), ("jobs", 0, "schedule", "hour"),
                              ("jobs", 0, "schedule", "minute")], difficulty, rng) if template else []
        description += schema_block(schema, show) + template_block({"jobs": jobs}, blanks, fmt, template)
        knobs = {"format": fmt, "jobs": n_jobs, "timeouts": with_timeouts, "retries": with_retries,
                 "show_schema": show, "show_template": template, "checks": checks, "implied": implied}
        return Variant(description, signature(fmt), fmt, render({"jobs": jobs}, fmt), knobs)


def _schema(names: list[str], with_timeouts: bool, with_retries: bool) -> dict[str, Any]:
    """The ids are the given jobs' (with the count and distinct ids: exactly those jobs); a pattern alone let any
    unknown id pass, the per-job facts only applying to the given ids."""
    n_jobs = len(names)
    props: dict[str, Any] = {
        "id": {"enum": sorted(names)},
        "priority": {"type": "integer", "minimum": 1, "maximum": 100},
        "schedule": {"type": "object", "required": ["hour", "minute"], "additionalProperties": False,
                     "properties": {"hour": {"type": "integer", "minimum": 0, "maximum": 23},
                                    "minute": {"type": "integer", "minimum": 0, "maximum": 59}}},
    }
    if with_retries:
        props["retries"] = {"type": "integer", "minimum": 0}
    if with_timeouts:
        props["timeout_s"] = {"type": "object", "required": ["soft", "hard"], "additionalProperties": False,
                              "properties": {"soft": {"type": "integer", "minimum": 1},
                                             "hard": {"type": "integer", "minimum": 1, "maximum": 3600}}}
    job = {"type": "object", "required": list(props), "additionalProperties": False, "properties": props}
    return {"type": "object", "required": ["jobs"], "additionalProperties": False,
            "properties": {"jobs": {"type": "array", "items": job, "minItems": n_jobs, "maxItems": n_jobs}}}


def _description(fmt: str, shown: list[str], given: dict[str, dict[str, int]], with_timeouts: bool,
                 with_retries: bool, max_retries: int, keyed: bool) -> str:
    """keyed: each start time also by its keys (the template level: a small model does not split 19:50)."""
    lines = [f"Write the job list of a scheduler as a {FORMAT_NAMES[fmt]} document: a mapping with one key, "
             "`jobs`, a list in which the scheduler tries jobs in order, so it must be sorted from the highest "
             "priority to the lowest. Each job has a unique `id`, an integer `priority` (1-100) and `schedule` "
             "with the integer `hour` (0-23) and `minute` (0-59) it starts at.",
             f"The jobs ({len(shown)}, no others):"]
    for n in shown:
        g = given[n]
        at = f" (hour {g['hour']}, minute {g['minute']})" if keyed else ""
        lines.append(f"- `{n}`: priority {g['priority']}, starts at {g['hour']:02d}:{g['minute']:02d}{at}.")
    if with_retries:
        lines.append(f"Each job also has `retries`, an integer from 0 to {max_retries}.")
    if with_timeouts:
        lines.append("Each job also has `timeout_s` with integer `soft` and `hard` timeouts in seconds; the soft "
                     "timeout comes strictly before the hard one, and no hard timeout exceeds an hour.")
    return "\n".join(lines)


register(JobQueue())
