"""The structured kind's sandbox job: a document and the checks of a task's tests, judged by the judge package
(spade/kinds/structured/judge/, shipped as the job's files; PyYAML's pure-Python modules beside it for YAML).

In: the format, the document text, the checks. Out: a ProgramJob, and `read_reply`, the judge's reply read back
within bounds (size, shape): a malformed or missing reply is a `BadReply`, which the caller turns into a verdict.
The document travels on stdin as JSON data, never inside code.
"""

from __future__ import annotations

import functools
import json
import py_compile
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spade.sandbox.program import ProgramJob, ProgramRun

FORMATS = ("json", "yaml")
MAX_DOCUMENT_CHARS = 64_000  # the judge's own bound (judge/parse.py MAX_CHARS); larger answers are refused unrun
JUDGE_TIME_LIMIT_S = 10.0  # wall clock; the judge needs well under 1 s of CPU, but this machine can be loaded
JUDGE_MEMORY_BYTES = 256 << 20
MAX_REPLY_BYTES = 512 << 10
MAX_VALUE_CHARS = 2_000
_BOOT = ("import os, sys\n"
         "sys.path.insert(0, os.getcwd())\n"
         "from structured_judge.main import main\n"
         "main()\n")


class BadReply(Exception):
    """The judge's reply cannot be read (missing, too large, malformed): the sandbox failed on this job."""


@dataclass(frozen=True, slots=True)
class Reply:
    """What the judge said: `error` when the document was refused, else one result per check, each
    ("value", v) or ("failed", why); `data` is the parsed document when echo was asked."""

    error: str | None
    results: tuple[tuple[str, Any], ...] = ()
    data: Any = None


def judge_job(fmt: str, document: str, checks: list[Any], *, echo: bool = False,
              time_limit_s: float = JUDGE_TIME_LIMIT_S) -> ProgramJob:
    files = _judge_files() + (_yaml_files() if fmt == "yaml" else ())
    stdin = json.dumps({"format": fmt, "document": document, "checks": checks, "echo": echo}).encode()
    return ProgramJob(_BOOT, stdin=stdin, files=files, time_limit_s=time_limit_s, memory_bytes=JUDGE_MEMORY_BYTES,
                      max_output_bytes=MAX_REPLY_BYTES)


def read_reply(run: ProgramRun, n_checks: int) -> Reply:
    """The judge's reply from a run that exited with 0; BadReply when it is not one this judge writes."""
    if run.stdout_bytes > len(run.stdout) or len(run.stdout) > MAX_REPLY_BYTES:
        raise BadReply(f"the judge's reply of {run.stdout_bytes} bytes is too large")
    try:
        reply = json.loads(run.stdout)
    except (ValueError, RecursionError) as exc:
        raise BadReply(f"the judge's reply is not JSON: {str(exc)[:120]}") from None
    if type(reply) is not dict or type(reply.get("parsed")) is not bool:
        raise BadReply("the judge's reply has no 'parsed' verdict")
    if not reply["parsed"]:
        if type(reply.get("error")) is not str:
            raise BadReply("the judge refused the document without a reason")
        return Reply(error=reply["error"][:300])
    results = reply.get("results")
    if type(results) is not list or len(results) != n_checks:
        raise BadReply(f"the judge gave {len(results) if type(results) is list else 'no'} results for {n_checks} checks")
    return Reply(None, tuple(_result(r) for r in results), reply.get("data"))


def _result(result: Any) -> tuple[str, Any]:
    if type(result) is dict and len(result) == 1:
        if type(result.get("failed")) is str:
            return "failed", result["failed"][:300]
        if "value" in result and len(json.dumps(result["value"])) <= MAX_VALUE_CHARS:
            return "value", result["value"]
    raise BadReply(f"a result of the judge has the wrong shape: {json.dumps(result)[:80]}")


@functools.cache
def _judge_files() -> tuple[tuple[str, bytes], ...]:
    return _with_bytecode(Path(__file__).parent / "judge", "structured_judge", ())


@functools.cache
def _yaml_files() -> tuple[tuple[str, bytes], ...]:
    """PyYAML's pure-Python modules (a declared dependency), without the libyaml binding the sandbox cannot load."""
    import yaml

    return _with_bytecode(Path(yaml.__file__).parent, "yaml", ("cyaml.py",))


def _with_bytecode(folder: Path, package: str, skip: tuple[str, ...]) -> tuple[tuple[str, bytes], ...]:
    """The package's sources and, beside them in __pycache__, bytecode the interpreter uses without checking the
    source (unchecked-hash pycs): importing PyYAML from source cost the judge ~45 ms of its ~75 ms per YAML
    answer. The sandbox runs this same interpreter; one of another version ignores the files (their cache tag
    differs) and compiles the sources."""
    files = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(folder.glob("*.py")):
            if path.name in skip:
                continue
            files.append((f"{package}/{path.name}", path.read_bytes()))
            compiled = Path(tmp) / f"{path.stem}.pyc"
            py_compile.compile(str(path), cfile=str(compiled), dfile=f"{package}/{path.name}", doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
            files.append((f"{package}/__pycache__/{path.stem}.{sys.implementation.cache_tag}.pyc",
                          compiled.read_bytes()))
    return tuple(files)
