"""The watcher's side of a program job: one child runs a whole program with a given stdin, under the limits of a
function candidate, and the watcher feeds its stdin, keeps the first bytes of its stdout and stderr, enforces the
wall-clock limit and has the template reap it (wait4).

in: a program job (code, files, stdin text, time limit, memory, output cap), the template's children, maybe a
spare child, the private /tmp (the program's working directory).
out: a plain dict: {"program": {verdict, exit_code, signal, stdout, stderr, stdout_bytes, stderr_bytes}} plus
kernel-measured CPU time and peak RSS, wall time and events. Verdicts: exited (with its exit code), timeout (the
wall-clock limit, or the CPU limit's SIGXCPU), memory (an uncaught MemoryError), killed (any other signal).
stdout/stderr cross as text decoded with surrogateescape, so the host recovers the exact bytes.
"""

from __future__ import annotations

import os
import select
import signal
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

import watch

CHUNK = 1 << 16


class ProgramRun:
    def __init__(self, job: dict[str, Any], children: watch.Children, spare: watch.Child | None, cwd: str) -> None:
        self.job, self.children, self.spare, self.cwd = job, children, spare, cwd
        self.cap = int(job["out_cap"])
        self.streams = {"stdout": bytearray(), "stderr": bytearray()}
        self.sizes = {"stdout": 0, "stderr": 0}
        self.events: list[str] = []
        self.guarded = self.memory = False
        self.frames = bytearray()

    def execute(self) -> dict[str, Any]:
        child, self.spare = self.spare or self.children.take(), None
        # Asking for the next child now makes the template drop its copies of this child's pipes, so the program
        # sees the end of its stdin once the watcher closes its own end; that child is the next job's spare.
        self.children.ask()
        start = time.monotonic()
        limit = float(self.job["time"])
        child.send({"program": True, "code": self.job["code"], "files": self.job["files"], "cwd": self.cwd,
                    "mem": self.job["mem"], "cpu": limit + 1, "lib": self.job.get("lib") or []})
        timed_out = False
        try:
            timed_out = self._follow(child, start + limit)
        finally:
            status, cpu, maxrss = self.children.finish(child)
            for fd, name in ((child.out_r, "stdout"), (child.err_r, "stderr")):
                _drain(fd, lambda data, name=name: self._take(name, data))
            child.close()
        wall = time.monotonic() - start
        if not self.guarded and not timed_out:  # a limit shorter than the child's start-up is a timeout, not a fault
            raise watch.HardeningFailed(f"a sandbox child failed before running a program ({status:#x})")
        return {"program": self._verdict(status, timed_out), "cpu": cpu, "maxrss": maxrss, "wall": wall,
                "events": sorted(set(self.events))}

    def _follow(self, child: watch.Child, deadline: float) -> bool:
        """Feed stdin and collect output until the child has closed every pipe (it exited); True on timeout."""
        stdin = memoryview(self.job["stdin"].encode("utf-8", "surrogateescape"))
        job_w = child.job_w
        child.job_w = None  # this run closes it
        os.set_blocking(job_w, False)
        poller = select.poll()
        names = {child.res_r: "res", child.out_r: "stdout", child.err_r: "stderr"}
        for fd in names:
            poller.register(fd, select.POLLIN)
        if stdin:
            poller.register(job_w, select.POLLOUT)
        else:
            os.close(job_w)
            job_w = -1
        try:
            while names:
                left = deadline - time.monotonic()
                if left <= 0:
                    return True
                for fd, _ in poller.poll(max(1, int(left * 1000) + 1)):
                    if fd == job_w:
                        stdin = self._feed(job_w, stdin)
                        if not stdin:
                            poller.unregister(job_w)
                            os.close(job_w)
                            job_w = -1
                        continue
                    data = os.read(fd, CHUNK)
                    if not data:
                        poller.unregister(fd)
                        del names[fd]
                    elif names[fd] == "res":
                        self._control(data)
                    else:
                        self._take(names[fd], data)
            return False
        finally:
            if job_w >= 0:
                os.close(job_w)

    @staticmethod
    def _feed(fd: int, rest: memoryview) -> memoryview:
        try:
            return rest[os.write(fd, rest[:CHUNK]):]
        except BlockingIOError:
            return rest
        except OSError:  # the program closed its stdin or exited: the rest is not wanted
            return rest[:0]

    def _control(self, data: bytes) -> None:
        self.frames += data
        while len(self.frames) >= 5:
            size = int.from_bytes(self.frames[:4], "big")
            if size != 1:  # G and M are bare kinds; anything else was written by the program, never a verdict
                self.events.append("protocol_violation")
                self.frames.clear()
                return
            kind = bytes(self.frames[4:5])
            del self.frames[:5]
            if kind == b"G" and not self.guarded:
                self.guarded = True
            elif kind == b"M" and self.guarded and not self.memory:
                self.memory = True
            else:
                self.events.append("protocol_violation")

    def _take(self, name: str, data: bytes) -> None:
        kept = self.streams[name]
        room = self.cap - len(kept)
        if room > 0:
            kept += data[:room]
        self.sizes[name] += len(data)
        if self.sizes[name] > self.cap:
            self.events.append("output_flood")

    def _verdict(self, status: int, timed_out: bool) -> dict[str, Any]:
        exit_code = sig = None
        if timed_out:
            verdict = "timeout"
            self.events.append("test_timeout")
        elif os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            verdict = "timeout" if sig == signal.SIGXCPU else "killed"
            self.events.append(watch._SIGNAL_EVENTS.get(sig, "killed_by_signal"))
        else:
            exit_code = os.WEXITSTATUS(status)
            # A program can forge the M frame, but only to call its own failure (exit code 1) a memory failure.
            verdict = "memory" if self.memory and exit_code == 1 else "exited"
        text = {name: bytes(data).decode("utf-8", "surrogateescape") for name, data in self.streams.items()}
        return {"verdict": verdict, "exit_code": exit_code, "signal": sig, "stdout": text["stdout"],
                "stderr": text["stderr"], "stdout_bytes": self.sizes["stdout"], "stderr_bytes": self.sizes["stderr"]}


def _drain(fd: int, take: Any) -> None:
    os.set_blocking(fd, False)
    try:
        while data := os.read(fd, CHUNK):
            take(data)
    except BlockingIOError:
        pass
