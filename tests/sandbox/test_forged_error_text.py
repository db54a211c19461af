"""Error text the candidate's process can forge (a load-error frame written to the result pipe itself, megabytes
long) reaches the verdict, and so the run database, as a bounded excerpt; a correct candidate still passes."""

from __future__ import annotations

from spade.records import ExecStatus
from spade.sandbox.pool import MAX_ERROR_BYTES
from tests.sandbox.conftest import CORRECT, secret_task

FORGE = """
import os
_payload = b"X" + b"load_error\\n" + b"E" * 4_000_000
_frame = len(_payload).to_bytes(4, "big") + _payload
for _fd in range(3, 64):
    try:
        os.write(_fd, _frame)
    except OSError:
        pass
def f(x):
    return x
"""


def test_a_forged_load_error_of_megabytes_is_kept_as_a_bounded_excerpt(pool):
    result = pool.score(secret_task(), FORGE)
    assert result.status is not ExecStatus.PASSED
    for text in [result.load_error or ""] + [t.error or "" for t in result.tests]:
        assert len(text.encode()) <= MAX_ERROR_BYTES
    assert pool.score(secret_task(), CORRECT).status is ExecStatus.PASSED
