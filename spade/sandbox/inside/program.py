"""The candidate side of a program job: run a whole Python program as `__main__`, as `python main.py` would.

in: the task (code, files to place in the working directory, which is the private /tmp), the job pipe (the
program's stdin follows the task on it), and the result, output and error fds.
out: a G frame once hardened (before any candidate code); the program's stdout on the output fd and its stderr on
the error fd; an M frame if it ends by an uncaught MemoryError. The exit status is the kernel's (wait4, read by
the template), never a frame. What the program writes is never a verdict; it only compares as output.
"""

from __future__ import annotations

import binascii
import io
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

import runner

# Bound before candidate code runs, as in runner.
_frame, _write_all, _exit, _type = runner.frame, runner._write_all, os._exit, type
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
PROGRAM_NAME = "main.py"


def run(task: dict[str, Any], stdin_fd: int, res_fd: int, out_fd: int, err_fd: int) -> NoReturn:
    """Never returns: the process leaves through os._exit with the program's exit code."""
    code = 1
    try:
        _write_all(res_fd, _frame(b"G", b""))
        os.chdir(task["cwd"])
        _place_files(task["files"])
        for fd, target in ((stdin_fd, 0), (out_fd, 1), (err_fd, 2)):
            os.dup2(fd, target)
            os.close(fd)
        _fresh_streams()
        _libraries(task.get("lib") or [])
        code = _main(task["code"], res_fd)
    finally:
        _exit(code)


def _libraries(folders: list[str]) -> None:
    """The read-only library folders after the standard library on sys.path; BLAS kept to one thread (the
    program's process and memory limits are a single job's)."""
    if folders:
        sys.path.extend(folder for folder in folders if os.path.isdir(folder))
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, "1")


def _place_files(files: list[list[str]]) -> None:
    """Each [relative path, base64 content] written under the working directory (paths checked by the host)."""
    for name, data in files:
        parent = os.path.dirname(name)
        if parent:
            os.makedirs(parent, exist_ok=True)
        fd = os.open(name, _FILE_FLAGS, 0o644)
        try:
            _write_all(fd, binascii.a2b_base64(data))
        finally:
            os.close(fd)


def _fresh_streams() -> None:
    """sys.stdin/stdout/stderr as `python3` makes them on pipes in a UTF-8 locale, on the new fds 0, 1 and 2."""
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.open(0, "rb", closefd=False), encoding="utf-8")
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(io.open(1, "wb", closefd=False), encoding="utf-8")
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(io.open(2, "wb", closefd=False), encoding="utf-8",
                                                   errors="backslashreplace", line_buffering=True)
    sys.argv = [PROGRAM_NAME]


def _main(source: str, res_fd: int) -> int:
    """Compile and run the program; its exit code as the interpreter would give it."""
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": PROGRAM_NAME, "__builtins__": __builtins__}
    try:
        exec(compile(source, PROGRAM_NAME, "exec"), namespace)
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except BaseException as exc:  # an uncaught exception is the program's failure, reported as python reports it
        if _type(exc) is MemoryError:
            _write_all(res_fd, _frame(b"M", b""))
        tb = exc.__traceback__
        _report(exc.with_traceback(tb.tb_next if tb is not None else None))  # from the program's frames on
        code = 1
    return _shutdown(code)


def _exit_code(value: Any) -> int:
    if value is None:
        return 0
    if _type(value) is int:
        return value & 0xFF
    try:
        sys.stderr.write(f"{value}\n")
    except BaseException:
        pass
    return 1


def _report(exc: BaseException) -> None:
    try:
        sys.excepthook(_type(exc), exc, exc.__traceback__)
    except BaseException:
        try:
            sys.__excepthook__(_type(exc), exc, exc.__traceback__)
        except BaseException:
            pass


def _shutdown(code: int) -> int:
    """What the interpreter does on the way out: join threads, run exit handlers, flush the streams."""
    threading = sys.modules.get("threading")
    try:
        if threading is not None:
            threading._shutdown()
        import atexit

        atexit._run_exitfuncs()
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            if stream is sys.stdout and code == 0:
                code = 120  # as python: stdout could not be flushed at exit
    return code
