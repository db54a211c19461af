"""The candidate side of one fork: load the module, call the entry point per test, report on a pipe.

in: code, entry point name, decoded inputs, the first test index, the result fd and the output fd.
out: frames on the result fd (4-byte length, 1-byte kind, payload: G hardened, X load failed or L loaded, then
one outcome per test; I frames name interference an audit hook saw); stdout/stderr go to the output fd.
Expected values never reach this process; it only reports what the function returned.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

import codec

# Bound before candidate code runs: patching builtins or os later cannot redirect the reports.
_write, _type, _len, _exit, _callable = os.write, type, len, os._exit, callable
_encode, _Unencodable = codec.encode, codec.Unencodable
ERROR_CHARS = 300


def frame(kind: bytes, payload: bytes) -> bytes:
    return (_len(payload) + 1).to_bytes(4, "big") + kind + payload


def run(code: str, entry: str, inputs: list[tuple[Any, ...]], start: int, res_fd: int, out_fd: int) -> NoReturn:
    """Never returns: the child leaves through os._exit so no exit handler of the candidate runs."""
    try:
        _send(res_fd, b"G", b"")
        os.dup2(out_fd, 1)  # stdin (fd 0) is already /dev/null: the zygote's, inherited
        os.dup2(out_fd, 2)
        os.close(out_fd)
        _audit_fd[0] = res_fd
        sys.addaudithook(_AUDIT_HOOK)  # before any candidate code: a hook can never be removed
        fn = _load(code, entry, res_fd)
        if fn is not None:
            # L starts test `start`; each outcome ends its test and starts the next, so the watcher times every
            # test from frames it gets the moment they happen, one write per test.
            _send(res_fd, b"L", b"")
            for i in range(start, _len(inputs)):
                result = frame(*_call(fn, inputs[i]))
                _flush()
                _write_all(res_fd, result)
    finally:
        _exit(0)


_SOCKET = frozenset(("socket.__new__", "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg",
                     "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr"))
_SPAWN = frozenset(("os.system", "subprocess.Popen", "os.fork", "os.forkpty", "os.exec", "os.posix_spawn",
                    "os.spawn", "pty.spawn"))


def _auditor(target: list[int]) -> Any:
    """An audit hook that reports, once per name, what a pure function has no business doing: open a file outside
    its own /tmp and the Python installation imports read (file_access), make a socket or resolve a name (socket),
    start a process (process_spawn). It observes; the denials are the filter's and the read-only root's.
    Audit events are raised in C below importlib, __import__ and getattr tricks, so a disguised call is seen too;
    ctypes calls into libc are not (the filter refuses those)."""
    allowed = tuple(sorted({p.rstrip("/") + "/" for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path)
                            if p.startswith("/") and p != "/"}))
    fspath, getcwd, normpath, fsdecode = os.fspath, os.getcwd, os.path.normpath, os.fsdecode
    reported: set[str] = set()
    write, frozen_socket, frozen_spawn = _write, _SOCKET, _SPAWN

    def absolute(path: Any, base: str | None = None) -> str:
        path = fsdecode(fspath(path))
        return normpath(path if path.startswith("/") else (base or getcwd()) + "/" + path)

    def outside(path: str) -> bool:
        return not (path == "/tmp" or path.startswith("/tmp/") or path == "/dev/null" or path.startswith(allowed))

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            path = args[0]
            if _type(path) is int or path is None or not outside(absolute(path)):  # an open fd, an anonymous file
                return
            name = "file_access"
        elif event == "os.symlink":
            # A symlink is judged by its target when it is made (cheaper than resolving every open), so a link
            # under /tmp to a system file counts; /tmp is its own filesystem, so a hard link cannot reach out.
            if not outside(absolute(args[0], absolute(args[1]).rsplit("/", 1)[0] or "/")):
                return
            name = "file_access"
        elif event in frozen_socket:
            name = "socket"
        elif event in frozen_spawn:
            name = "process_spawn"
        else:
            return
        if name not in reported:
            reported.add(name)
            write(target[0], frame(b"I", name.encode()))  # a few bytes: one atomic pipe write

    return hook


def _load(code: str, entry: str, res_fd: int) -> Any:
    namespace: dict[str, Any] = {"__name__": "__candidate__", "__builtins__": __builtins__}
    try:
        compiled = compile(code, "<candidate>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
        _send(res_fd, b"X", b"syntax_error\n" + _describe(exc))
        return None
    try:
        exec(compiled, namespace)
    except BaseException as exc:  # module-level failure of untrusted code is data
        _send(res_fd, b"X", b"load_error\n" + _describe(exc))
        return None
    fn = namespace.get(entry)
    if fn is None or not _callable(fn):
        _send(res_fd, b"X", b"no_entry_point\n" + f"no callable named {entry!r} at module level".encode())
        return None
    return fn  # the caller reports the load (L), which starts the first test


def _call(fn: Any, args: tuple[Any, ...]) -> tuple[bytes, bytes]:
    try:
        value = fn(*args)
    except BaseException as exc:  # a raising candidate is a verdict, not a crash
        exc.__traceback__ = None  # frees the candidate's frames (a memory bomb's data) before we report
        return (b"M" if _type(exc) is MemoryError else b"E"), _describe(exc)
    try:
        return b"V", _encode(value).encode("utf-8", "surrogatepass")
    except _Unencodable as exc:
        return b"U", str(exc)[:ERROR_CHARS].encode()
    except MemoryError:
        return b"M", b"MemoryError while encoding the return value"
    except BaseException as exc:  # e.g. a container whose iteration raises
        return b"U", _describe(exc)


def _describe(exc: BaseException) -> bytes:
    name = _type(exc).__name__
    try:
        text = str(exc)[:ERROR_CHARS]
    except BaseException:  # a hostile __str__
        text = "<unprintable>"
    return f"{name}: {text}".encode("utf-8", "replace")


def _send(fd: int, kind: bytes, payload: bytes) -> None:
    _write_all(fd, frame(kind, payload))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[_write(fd, view):]


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # the candidate may have replaced or closed them
            pass


# Built once, when the zygote imports this module (sys.path then holds the standard library), so a child only
# installs it and every child starts from the same, unused hook.
_audit_fd = [-1]
_AUDIT_HOOK = _auditor(_audit_fd)
