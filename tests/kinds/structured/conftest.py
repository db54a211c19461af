"""Small hand-written structured tasks for the grading, evaluator, task-file and adversarial tests."""

from __future__ import annotations

import pytest

from spade.records import Task, TestCase

SCHEMA = {"type": "object", "required": ["name", "port", "limits"], "additionalProperties": False,
          "properties": {"name": {"type": "string"}, "port": {"type": "integer", "minimum": 1024, "maximum": 65535},
                         "limits": {"type": "object", "required": ["min", "max"],
                                    "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}}}}}
CHECKS = [
    {"op": "schema", "schema": SCHEMA},
    {"op": "equals", "path": ["name"], "value": "web"},
    {"op": "compare", "left": ["limits", "min"], "cmp": "<=", "right": ["limits", "max"]},
]
GOOD_JSON = '{"name": "web", "port": 8080, "limits": {"min": 1, "max": 4}}'
GOOD_YAML = "name: web\nport: 8080\nlimits:\n  min: 1\n  max: 4\n"


def service_task(fmt: str = "yaml", task_id: str = "structured/web") -> Task:
    return Task(task_id, "Configure the service `web`: a port from 1024 to 65535 and limits with min <= max.",
                f"a {fmt.upper()} document", fmt, 0.4,
                test_cases=tuple(TestCase((c,), True) for c in CHECKS[:2]),
                hidden_test_cases=(TestCase((CHECKS[2],), True),),
                reference_solution=GOOD_YAML if fmt == "yaml" else GOOD_JSON, kind="structured")


@pytest.fixture
def yaml_task() -> Task:
    return service_task("yaml")


@pytest.fixture
def json_task() -> Task:
    return service_task("json", "structured/web-json")
