"""The watcher's side of one job: take children from the template, hand them the job, enforce per-test deadlines,
have the template reap them (wait4).

in: a job (code, entry, encoded inputs, per-test limits, total limit, memory, run_all), the template's children
(see Children), maybe a spare child.
out: a plain dict: per-test outcomes (kind, encoded value, error), load status, kernel-measured CPU time and
peak RSS (wait4 rusage), wall time, output bytes, events. The first per-test timeout ends the candidate (its
untried tests stay not_run) unless the job asks for every test; a test that dies costs one re-fork and the
remaining tests run in a fresh child. Clocks here are the watcher's, out of the candidate's reach.
"""

from __future__ import annotations

import marshal
import os
import select
import signal
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

import codec
import program
import runner

MAX_FRAME = 4_100_000
LOAD_GRACE_S = 1.0
_KINDS = {b"V": "value", b"E": "exception", b"M": "memory", b"U": "unencodable"}
_AUDIT_EVENTS = {name.encode(): name for name in ("file_access", "socket", "process_spawn")}
_SIGNAL_EVENTS = {signal.SIGSYS: "syscall_denied", signal.SIGXCPU: "cpu_limit", signal.SIGXFSZ: "file_size_limit"}


class HardeningFailed(RuntimeError):
    """The child could not lock itself down: an infrastructure failure, never the candidate's doing."""


def fork_child(guard: Any) -> tuple[int, int, int, int, int]:
    """In the template: fork a child that hardens itself (process group, fds, uid, filter) and blocks reading its
    job. Returns the child's pid and the template's ends of its pipes (job to write; results, output and error
    output to read), which the template keeps until the watcher has opened them; the template also reaps the
    child (wait4) when the watcher asks, so the kernel-measured usage reaches the watcher without a job ever
    reaching the template. The error pipe carries a whole program's stderr (program jobs); a function job's
    child closes it and sends stderr with stdout."""
    job_r, job_w = os.pipe()
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        _child(guard, (job_w, res_r, out_r, err_r), (job_r, res_w, out_w, err_w))
    for fd in (job_r, res_w, out_w, err_w):
        os.close(fd)
    return pid, job_w, res_r, out_r, err_r


def _child(guard: Any, parent_ends: tuple[int, ...], own: tuple[int, int, int, int]) -> None:
    code = 70  # hardening failed: die before any candidate code runs
    try:
        for fd in parent_ends:
            os.close(fd)
        job_r, res_w, out_w, err_w = own
        guard.harden(own)
        task = _read_job(job_r)
        if task is None:  # the watcher went away, or dropped this child unused
            code = 0
        elif task.get("program"):  # a whole program: job_r stays open as its stdin
            guard.limit(int(task["mem"]), float(task["cpu"]))
            program.run(task, job_r, res_w, out_w, err_w)
        else:
            os.close(job_r)
            os.close(err_w)
            guard.limit(task["mem"], task["cpu"])
            runner.run(task["code"], task["entry"], task["inputs"], task["start"], res_w, out_w)
    except BaseException:
        import traceback

        traceback.print_exc()  # fd 2 is still the worker's log here
    finally:
        os._exit(code)


class Child:
    """A hardened child the template forked ahead, blocked reading its job; the watcher holds its pipes."""

    def __init__(self, pid: int, job_w: int | None, res_r: int, out_r: int, err_r: int) -> None:
        self.pid, self.job_w, self.res_r, self.out_r, self.err_r = pid, job_w, res_r, out_r, err_r

    def give(self, job: dict[str, Any], inputs: list[Any], limits: list[float], start: int) -> None:
        """Hand over the job (tests start.. onwards), length-prefixed; the child starts once it has it all. The
        inputs go decoded (see `send`)."""
        if self.job_w is None:  # it died before the watcher could open its pipe: the watch sees it gone
            return
        task = {"code": job["code"], "entry": job["entry"], "inputs": inputs, "start": start,
                "mem": int(job["mem"]), "cpu": float(sum(limits[start:]) + max(limits))}
        try:
            self.send(task)
        finally:
            os.close(self.job_w)
            self.job_w = None

    def send(self, task: dict[str, Any]) -> None:
        """Write the task length-prefixed on the job pipe (left open: a program reads its stdin after it), in
        marshal's format: the child rebuilds it in C, running no codec code and copying fewer of the template's
        pages than a JSON parse and a decode per input did (the watcher decodes the host's encoding instead)."""
        data = marshal.dumps(task)
        view = memoryview(len(data).to_bytes(4, "big") + data)
        try:
            while view:
                view = view[os.write(self.job_w, view):]
        except BrokenPipeError:  # it died waiting: the watch sees it end before confirming its hardening
            pass

    def close(self) -> None:
        for fd in (self.job_w, self.res_r, self.out_r, self.err_r):
            if fd is not None:
                os.close(fd)
        self.job_w = None


class Children:
    """The watcher's side of the template, which forks every child (so no child is a copy of a process that held
    job data) and reaps it. Over two pipes, one request a byte: `n` asks for a child, which the template announces
    ("pid fd fd fd") and the watcher opens through /proc; `r` and a pid asks the template to reap that (killed)
    child, which answers with its wait status and kernel-measured usage. The template closes its copies of a
    child's pipes when the next request comes, by which time the watcher has opened its own: a child announced
    while a reap was due is opened before the reap is asked for. Asking ahead lets the fork and the hardening
    overlap the host's turn."""

    def __init__(self, from_template: int, to_template: int, template: int) -> None:
        self.inbox, self.outbox, self.template, self.asked = from_template, to_template, template, False
        self._ready: Child | None = None

    def ask(self) -> None:
        if not self.asked:
            os.write(self.outbox, b"n")
            self.asked = True

    def take(self) -> Child:
        self.ask()
        self.asked = False
        child, self._ready = self._ready or self._open(), None
        return child

    def _open(self) -> Child:
        fields = os.read(self.inbox, 256).split()  # one short write: it arrives whole
        if len(fields) != 5:
            raise RuntimeError(f"the template sent {fields!r} where a child was due")
        pid, fds = int(fields[0]), [int(x) for x in fields[1:]]
        try:
            # Non-blocking open: opening a pipe through /proc is a FIFO open, which would wait for the other end.
            job_w = os.open(f"/proc/{self.template}/fd/{fds[0]}", os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            os.set_blocking(job_w, True)
        except OSError:  # ENXIO: no reader left, the child already died
            job_w = None
        res_r, out_r, err_r = (os.open(f"/proc/{self.template}/fd/{fd}", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
                               for fd in fds[1:])
        os.set_blocking(res_r, True)
        return Child(pid, job_w, res_r, out_r, err_r)

    def finish(self, child: Child) -> tuple[int, float, int]:
        """Kill the child's process group and have the template reap it: its wait status, CPU seconds and peak
        RSS (KiB)."""
        for target in (-child.pid, child.pid):
            try:
                os.kill(target, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.asked and self._ready is None:
            self._ready = self._open()  # the child asked for ahead comes first on the pipe
        os.write(self.outbox, b"r" + child.pid.to_bytes(4, "big"))
        fields = os.read(self.inbox, 256).split()
        if len(fields) != 3:
            raise RuntimeError(f"the template sent {fields!r} where a reaped child's usage was due")
        return int(fields[0]), float(fields[1]), int(fields[2])


def _read_job(fd: int) -> dict[str, Any] | None:
    """The job, length-prefixed (the template may still hold a copy of the pipe's write end, so no end of file
    marks it); None when the pipe closes first. Reads exactly the job: what follows is a program's stdin."""
    head = read_exact(fd, 4)
    body = None if head is None else read_exact(fd, int.from_bytes(head, "big"))
    return None if body is None else marshal.loads(body)  # written by the watcher alone


def read_exact(fd: int, n: int) -> bytes | None:
    """Exactly n bytes from fd, or None when it closes first."""
    parts, left = [], n
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


class JobRun:
    """Accumulates one job's outcomes across children; `spare` is a child forked ahead for it, if any (left there
    when the job had no test to run)."""

    def __init__(self, job: dict[str, Any], children: Children, spare: Child | None = None) -> None:
        self.job, self.children, self.spare = job, children, spare
        self.n = len(job["inputs"])
        self.limits = [float(limit) for limit in job["limits"]]
        self.inputs: list[Any] = []
        self.outcomes: list[dict[str, Any]] = [{"kind": "not_run"} for _ in range(self.n)]
        self.load: dict[str, str] | None = None
        self.cpu = 0.0
        self.maxrss = 0
        self.out_bytes = 0
        self.out_head = bytearray()
        self.events: list[str] = []
        self.run_all = bool(job.get("run_all"))
        self.start = time.monotonic()
        self.deadline = self.start + float(job["total"])

    def execute(self) -> dict[str, Any]:
        self.inputs = [codec.decode(text) for text in self.job["inputs"]]  # the host's encoding: Unencodable is fatal
        i = 0
        while i < self.n and self.load is None:
            if time.monotonic() >= self.deadline:
                self._total_timeout(i)
                break
            i = self._run_from(i)
        if self.out_bytes:
            self.events.append("stray_output")  # a pure function prints nothing; what it printed is never a verdict
        return {
            "tests": self.outcomes, "load": self.load, "cpu": self.cpu, "maxrss": self.maxrss,
            "wall": time.monotonic() - self.start, "out_bytes": self.out_bytes,
            "output": self.out_head.decode("utf-8", "replace"), "events": sorted(set(self.events)),
        }

    def _total_timeout(self, i: int) -> None:
        for j in range(i, self.n):
            self.outcomes[j] = {"kind": "timeout", "error": "the candidate's total time limit was reached"}
        self.events.append("total_timeout")

    def _run_from(self, start: int) -> int:
        """Run tests start.. in one child; return the index to resume from (n when done)."""
        child, self.spare = self.spare or self.children.take(), None
        watch = _Watch(self, start, child.res_r, child.out_r)
        child.give(self.job, self.inputs, self.limits, start)
        try:
            resume = watch.follow()
        finally:
            status, cpu, maxrss = self.children.finish(child)
            if not watch.out_closed:
                _drain(self, child.out_r)
            child.close()
        self.cpu += cpu
        self.maxrss = max(self.maxrss, maxrss)
        return watch.settle(resume, status)

    def take_output(self, data: bytes) -> None:
        self.out_bytes += len(data)
        room = int(self.job["out_cap"]) - len(self.out_head)
        if room > 0:
            self.out_head += data[:room]
        if self.out_bytes > int(self.job["out_cap"]):
            self.events.append("output_flood")


class _Watch:
    """Follows one child's frames: G (hardened), then X (load failed) or L (loaded: the first test starts),
    then one outcome per test (V value, E exception, M memory, U unencodable), each starting the next test.
    After G, an I frame (interference the child's audit hook saw: an event name) may come at any point."""

    def __init__(self, run: JobRun, start: int, res_r: int, out_r: int) -> None:
        self.run, self.res_r, self.out_r = run, res_r, out_r
        self.next = start  # the test running once loaded: its outcome is the next frame
        self.guarded = False  # the child confirmed its hardening, before any candidate code ran
        self.loaded = False
        self.finished = False
        self.out_closed = False  # the output pipe reached end of file: nothing left to drain
        self.reason = ""
        self.buf = bytearray()
        self.poller = select.poll()
        self.poller.register(res_r, select.POLLIN)
        self.poller.register(out_r, select.POLLIN)
        # Loading gets a second of grace on top of a test's limit: a fork on a busy host can be slow to start.
        self.deadline = min(time.monotonic() + max(run.limits) + LOAD_GRACE_S, run.deadline)

    def follow(self) -> int:
        poller, open_fds = self.poller, {self.res_r, self.out_r}
        while self.res_r in open_fds and not self.finished:
            left = self.deadline - time.monotonic()
            if left <= 0:
                self.reason = "timeout"
                break
            for fd, _ in poller.poll(max(1, int(left * 1000) + 1)):
                data = os.read(fd, 1 << 16)
                if not data:
                    poller.unregister(fd)
                    open_fds.discard(fd)
                elif fd == self.out_r:
                    self.run.take_output(data)
                else:
                    self.buf += data
                    self._frames()
        if not self.reason and not self.finished:
            self.reason = "died"
        self.out_closed = self.out_r not in open_fds
        return self.next

    def _frames(self) -> None:
        buf = self.buf
        while len(buf) >= 4 and not self.finished and not self.reason:
            size = int.from_bytes(buf[:4], "big")
            if size < 1 or size > MAX_FRAME:
                self.reason = "protocol"
                return
            if len(buf) < 4 + size:
                return
            kind, payload = bytes(buf[4:5]), bytes(buf[5 : 4 + size])
            del buf[: 4 + size]
            self._handle(kind, payload)

    def _handle(self, kind: bytes, payload: bytes) -> None:
        run = self.run
        if kind == b"I" and self.guarded:
            name = _AUDIT_EVENTS.get(payload)
            if name is None:
                self.reason = "protocol"
            elif name not in run.events:
                run.events.append(name)
        elif self.loaded:  # the running test's outcome; the next test starts now
            outcome = _KINDS.get(kind)
            if outcome is None:
                self.reason = "protocol"
            elif kind == b"V":
                run.outcomes[self.next] = {"kind": outcome, "value": payload.decode("utf-8", "surrogatepass")}
            else:
                run.outcomes[self.next] = {"kind": outcome, "error": payload.decode("utf-8", "replace")}
            if outcome is not None:
                self.next += 1
                self.finished = self.next == run.n
                if not self.finished:
                    self.deadline = min(time.monotonic() + run.limits[self.next], run.deadline)
        elif not self.guarded:
            self.guarded = kind == b"G"
            if not self.guarded:
                self.reason = "protocol"
        elif kind == b"L":
            self.loaded = True
            self.deadline = min(time.monotonic() + run.limits[self.next], run.deadline)
        elif kind == b"X":
            status, _, text = payload.decode("utf-8", "replace").partition("\n")
            run.load = {"status": status, "error": text}
            self.finished = True
        else:
            self.reason = "protocol"

    def settle(self, resume: int, status: int) -> int:
        """Record how this child ended; return where the next child starts."""
        run = self.run
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) != signal.SIGKILL:
            run.events.append("killed_by_signal")
            run.events.append(_SIGNAL_EVENTS.get(os.WTERMSIG(status), "killed_by_signal"))
        if self.finished:
            return run.n
        if not self.guarded:
            raise HardeningFailed(f"a sandbox child failed before running candidate code ({_how(status)})")
        if not self.loaded:
            what = "timed out" if self.reason == "timeout" else "died"
            run.load = {"status": "load_error", "error": f"the module {what} while loading ({_how(status)})"}
            return run.n
        if self.reason == "protocol":
            run.events.append("protocol_violation")
        failed = self.next
        if self.reason == "timeout":
            run.outcomes[failed] = {"kind": "timeout", "error": "the per-test time limit was reached"}
            run.events.append("test_timeout")
            if not run.run_all:  # a timed-out candidate scores 0 anyway: its untried tests stay not_run
                return run.n
        else:
            run.outcomes[failed] = {"kind": "killed", "error": _how(status)}
        return failed + 1


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exited with code {os.WEXITSTATUS(status)} before reporting"


def _drain(run: JobRun, fd: int) -> None:
    os.set_blocking(fd, False)
    try:
        while data := os.read(fd, 1 << 16):
            run.take_output(data)
    except BlockingIOError:
        pass
