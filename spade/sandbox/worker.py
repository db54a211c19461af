"""One warm worker: a zygote process (inside bubblewrap unless isolation is 'none') and its control pipes.

in: a Plan, a slot uid and a Job. out: the zygote's result dict for the job (with "recycle": true when the worker
could not empty its /tmp afterwards and should be replaced), or WorkerDied when the zygote (or bwrap) is gone or
silent past the job's deadline. The pool replaces dead workers.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from typing import Any

from spade.errors import SandboxError
from spade.sandbox.inside import codec
from spade.sandbox.job import Job
from spade.sandbox.layers import Plan
from spade.untrusted import MAX_VALUE_DEPTH

codec.configure(MAX_VALUE_DEPTH)  # the host's half of the codec; the zygote's half is set from its settings

START_TIMEOUT_S = 30.0
SLACK_S = 10.0
"""Beyond the job's own total limit, how long the host waits for the zygote before declaring it dead."""
MAX_MESSAGE_BYTES = 64 << 20
"""The largest control message the host reads from a zygote (a job's reply holds every returned value)."""


class WorkerDied(Exception):
    """The zygote stopped answering; internal to the pool, which retries once and then raises SandboxError."""


class Worker:
    """Construct with `Worker.spawn` from a long-lived thread: bwrap's --die-with-parent fires when the
    *thread* that started it exits, so a worker started from a short-lived thread would die with it."""

    def __init__(self, plan: Plan, uid: int, tmpfs_bytes: int) -> None:
        self.plan, self.uid = plan, uid
        self._host_tmp = None if plan.uses_bwrap else tempfile.mkdtemp(prefix="spade-sbx-")
        self._log = tempfile.TemporaryFile()
        self._inbox = bytearray()
        argv = plan.argv(uid, self._host_tmp or "/tmp", tmpfs_bytes)
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
                                     env=plan.env(self._host_tmp or "/tmp"), start_new_session=True, close_fds=True)

    def wait_ready(self) -> None:
        try:
            hello = self._receive(time.monotonic() + START_TIMEOUT_S)
        except WorkerDied:
            tail = self.log_tail()
            self.close()
            raise SandboxError(f"a sandbox worker failed to start: {tail or 'no output'}") from None
        if not hello.get("ready"):
            self.close()
            raise SandboxError(f"a sandbox worker sent an unexpected greeting: {hello!r}")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def run(self, job: Job, inputs: list[str] | None = None) -> dict[str, Any]:
        """Run `job`; `inputs`: its arguments as `encode_inputs` gave them (the pool encodes them first, so that
        arguments the codec refuses are its verdict), else encoded here (Unencodable for the caller)."""
        if inputs is None:
            inputs = self.encode_inputs(job)
        request = {
            "code": job.code, "entry": job.entry_point, "inputs": inputs,
            "limits": list(job.time_limits), "total": job.total_timeout, "mem": job.memory_bytes,
            "out_cap": job.max_output_bytes, "run_all": job.run_all_tests_after_timeout,
        }
        return self.call(request, job.total_timeout)

    @staticmethod
    def encode_inputs(job: Job) -> list[str]:
        """Each test's arguments in the codec's text; Unencodable names the first test the codec refuses."""
        out = []
        for i, args in enumerate(job.inputs):
            try:
                out.append(codec.encode_args(tuple(args)))
            except codec.Unencodable as exc:
                raise codec.Unencodable(f"test {i}'s arguments: {exc}") from None
        return out

    def call(self, request: dict[str, Any], limit_s: float) -> dict[str, Any]:
        """Send one job's control message and wait for its reply, `limit_s` plus slack at most."""
        self._send(request)
        reply = self._receive(time.monotonic() + limit_s + SLACK_S)
        if "fatal" in reply:
            raise WorkerDied(reply["fatal"])
        return reply

    def _send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode()
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(len(data).to_bytes(4, "big") + data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise WorkerDied(f"zygote pipe closed: {exc}") from None

    def _receive(self, deadline: float) -> dict[str, Any]:
        """One length-prefixed message; reads whatever the pipe holds, so a reply usually costs one read."""
        self._fill(4, deadline)
        size = 4 + int.from_bytes(self._inbox[:4], "big")
        if size > 4 + MAX_MESSAGE_BYTES:  # never buffered: the stream is lost, and so is the worker
            raise WorkerDied(f"the zygote sent a {size - 4}-byte message, over the {MAX_MESSAGE_BYTES}-byte limit")
        self._fill(size, deadline)
        with memoryview(self._inbox) as view:  # decoded in place, then the buffer is let go before parsing
            text = str(view[4:size], "utf-8")
        self._inbox = self._inbox[size:]
        return json.loads(text)

    def _fill(self, n: int, deadline: float) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while len(self._inbox) < n:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise WorkerDied("zygote did not answer in time")
            chunk = os.read(fd, max(n - len(self._inbox), 1 << 16))
            if not chunk:
                raise WorkerDied(f"zygote exited: {self.log_tail() or 'no output'}")
            self._inbox += chunk

    def log_tail(self) -> str:
        self._log.seek(0)
        return self._log.read()[-500:].decode(errors="replace").strip()

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self._log.close()
        if self._host_tmp:
            shutil.rmtree(self._host_tmp, ignore_errors=True)
