"""The judge's entry point inside the sandbox: read one job from stdin, parse the document, run every check, print
one JSON line. Job: {"format": "json"|"yaml", "document": text, "checks": [check, ...], "echo": bool}.
Reply: {"parsed": false, "error": why} or {"parsed": true, "results": [{"value": v} | {"failed": why}, ...]},
plus "data" (the parsed document) when echo is asked. What the host reads back is bounded by the host.
"""

from __future__ import annotations

import json
import sys

from .checks import CheckFailed, run
from .parse import Refused, parse_document

MAX_REASON_CHARS = 240


def judge(job: dict) -> dict:
    try:
        doc = parse_document(job["document"], job["format"])
    except Refused as exc:
        return {"parsed": False, "error": str(exc)[:MAX_REASON_CHARS]}
    results = []
    for check in job["checks"]:
        try:
            results.append({"value": run(check, doc)})
        except CheckFailed as exc:
            results.append({"failed": str(exc)[:MAX_REASON_CHARS]})
        except RecursionError:
            results.append({"failed": "the check ran out of stack on this document"})
    reply = {"parsed": True, "results": results}
    if job.get("echo"):
        reply["data"] = doc
    return reply


def main() -> None:
    job = json.loads(sys.stdin.buffer.read())
    sys.stdout.write(json.dumps(judge(job)) + "\n")
