"""Per-candidate hardening, applied in the freshly forked child before any candidate code runs.

in: the zygote's settings (slot uid, which layers are on); later the job's memory/time budget.
out: a process with rlimits, no other fds, a fresh unprivileged uid, no_new_privs and a seccomp filter.
The filter is compiled to BPF once, at the zygote's start, in two stages: the zygote installs the first (every
child inherits it); each child patches its pid into the short second stage and installs it.
Runs inside the sandbox: standard library and pyseccomp only.
"""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The filter comes in two stages. The zygote installs the first at its start; every child inherits it:
# ordinary libraries probe these, and a polite EPERM lets them fail as Python exceptions.
_REFUSE = (
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
    "fork", "vfork", "execve", "execveat", "tkill", "pidfd_open", "pidfd_send_signal", "pidfd_getfd",
    # Memory RLIMIT_AS does not count (SysV shared memory, memfd pages filled with write()), and IPC objects that
    # would outlive the candidate in the worker's IPC namespace, where the next candidate could read them.
    "shmget", "shmat", "msgget", "semget", "mq_open", "memfd_create", "memfd_secret",
)
# Nothing a pure function (or the zygote) needs; calling one is an attack, so the process dies (SIGSYS).
_FATAL = (
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "move_mount", "open_tree",
    "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
    "bpf", "perf_event_open", "keyctl", "add_key", "request_key",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module", "open_by_handle_at", "name_to_handle_at",
    "userfaultfd", "reboot", "swapon", "swapoff", "syslog", "acct", "quotactl", "iopl", "ioperm",
    "fanotify_init", "lookup_dcookie", "vhangup",
)
# The second stage, installed by each child after its uid drop, holds only what the zygote and its watchers need
# (changing uid, forking, signalling): a short filter is cheap to install (the kernel checks and JIT-compiles
# it, and works out its per-syscall cache, on every install).
_CHILD_FATAL = (
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid",
    "setgroups", "capset",
)
_REQUIRED = ("clone", "clone3", "kill", "tgkill", "socket", "execve", "ptrace", "fork")
CLONE_THREAD = 0x00010000
PR_SET_NO_NEW_PRIVS = 38
SYS_SECCOMP, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW = 317, 1, 4  # x86_64
SYS_CAPGET, SYS_CAPSET, CAPABILITY_VERSION_3, CAP_SYS_ADMIN = 125, 126, 0x20080522, 21  # x86_64
MS_NOSUID, MS_NODEV = 2, 4
F_SETOWN, F_SETSIG, F_SETOWN_EX, FIOSETOWN, SIOCSPGRP = 8, 10, 15, 0x8901, 0x8902
PID_PLACEHOLDER = 0x5EC0_5EC0  # above pid_max (4194304), so it can only be the placeholder


_FIXED_LIMITS = {resource.RLIMIT_NOFILE: (64, 64), resource.RLIMIT_CORE: (0, 0), resource.RLIMIT_MEMLOCK: (0, 0)}


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class Guard:
    """Settings and the precompiled seccomp program; `harden` is called in the child."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self.drop_uid: bool = settings["drop_uid"]
        self.uid: int = settings["uid"]
        self.nproc: int = settings.get("nproc", 32)
        self.fsize: int = settings.get("fsize", 16 << 20)
        self.base_program, self.program = _compile_programs() if settings["seccomp"] else (b"", b"")
        self.pid_slots = _immediates(self.program, PID_PLACEHOLDER)
        # Everything ctypes needs is built here, once; the child only patches bytes and makes one call.
        self.libc = ctypes.CDLL(None, use_errno=True)
        self._code = bytearray(self.program)
        self._buf = (ctypes.c_char * max(1, len(self._code))).from_buffer(self._code) if self.program else None
        self._fprog = _SockFprog(len(self._code) // 8, ctypes.cast(self._buf, ctypes.c_void_p)) if self.program else None
        self._prctl, self._syscall, self._byref = self.libc.prctl, self.libc.syscall, ctypes.byref

    def mount_tmp(self, path: str, size: int, inodes: int) -> None:
        """A fresh tmpfs on `path` with a size and an inode cap, then CAP_SYS_ADMIN dropped for good (bubblewrap
        kept it for this one mount). Called at the zygote's start, before the filter (which kills on mount)."""
        opts = f"size={size},nr_inodes={inodes},mode=1777".encode()
        if self.libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, opts) != 0:
            raise OSError(ctypes.get_errno(), f"mounting the private tmpfs on {path} failed")
        _drop_capability(self.libc, CAP_SYS_ADMIN)

    def confine_zygote(self) -> None:
        """Limits that are the same for every child, set once here (children inherit them through fork), and
        the first stage of the filter."""
        for which, pair in _FIXED_LIMITS.items():
            resource.setrlimit(which, pair)
        if self.drop_uid:
            os.setgroups([])
        if not self.base_program:
            return
        # no_new_privs (which a filter requires) is inherited by every child and can never be unset there.
        if self._prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        code = bytearray(self.base_program)
        buf = (ctypes.c_char * len(code)).from_buffer(code)
        self._load(_SockFprog(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p)))

    def harden(self, keep_fds: tuple[int, ...]) -> None:
        """Lock this (child) process down before it knows its job; raise on any failure so the child dies."""
        # Its own process group, which the watcher kills whole (not setsid: a session per child would also make
        # the scheduler create an autogroup per child).
        os.setpgid(0, 0)
        _close_other_fds(keep_fds)
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.fsize, self.fsize))
        if self.drop_uid:  # RLIMIT_NPROC is not enforced for root; supplementary groups went in the zygote
            resource.setrlimit(resource.RLIMIT_NPROC, (self.nproc, self.nproc))
            os.setresgid(self.uid, self.uid, self.uid)
            os.setresuid(self.uid, self.uid, self.uid)
        if self.program:
            self._install(os.getpid())

    @staticmethod
    def limit(mem_bytes: int, cpu_s: float) -> None:
        """The job's own limits, once it is known. Hard limits too (CPU: one second past the soft one, SIGXCPU
        then SIGKILL), so the candidate cannot raise them; lowering a limit needs no privilege, so this works
        after the uid drop and under the filter."""
        cpu = max(1, int(cpu_s) + 1)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))

    def _install(self, pid: int) -> None:
        """Patch in the pid and install the filter (no_new_privs comes from the zygote): far cheaper than
        libseccomp's load. Without no_new_privs the kernel refuses the filter, and the child dies."""
        for off in self.pid_slots:
            self._code[off + 4 : off + 8] = pid.to_bytes(4, sys.byteorder)
        self._load(self._fprog)

    def _load(self, fprog: _SockFprog) -> None:
        # SPEC_ALLOW: skip the speculative-store-bypass mitigation the kernel otherwise forces on every
        # seccomp'd task (about 1 ms per run here); cross-process side channels are outside our threat model.
        flags = SECCOMP_FILTER_FLAG_SPEC_ALLOW
        if self._syscall(SYS_SECCOMP, SECCOMP_SET_MODE_FILTER, flags, self._byref(fprog)) != 0:
            raise OSError(ctypes.get_errno(), "seccomp(SECCOMP_SET_MODE_FILTER) failed")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_capability(libc: Any, cap: int) -> None:
    """Remove `cap` from this process's effective, permitted and inheritable sets (so from its ambient set too).
    Dropping needs no privilege; raising it again would need it in the permitted set, or an exec (refused)."""
    header, data = _CapHeader(CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    if libc.syscall(SYS_CAPGET, ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget failed")
    word, bit = divmod(cap, 32)
    for field in ("effective", "permitted", "inheritable"):
        setattr(data[word], field, getattr(data[word], field) & ~(1 << bit))
    if libc.syscall(SYS_CAPSET, ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def _close_other_fds(keep: tuple[int, ...]) -> None:
    last = 3
    for fd in sorted(keep):
        if fd >= last:
            os.closerange(last, fd)
            last = fd + 1
    os.closerange(last, 65536)


def _compile_programs() -> tuple[bytes, bytes]:
    """Both stages of the filter as raw BPF (zygote's, child's), compiled by libseccomp in a throwaway child.

    Importing pyseccomp pulls in ctypes.util, subprocess, threading and random, whose at-fork hooks would then
    run in every candidate's fork (about a millisecond of CPU and a hundred copy-on-write faults each time).
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(read_end)
            base, child = _compile_here()
            view = memoryview(len(base).to_bytes(4, "big") + base + child)
            while view:
                view = view[os.write(write_end, view):]
            code = 0
        except BaseException:
            import traceback

            traceback.print_exc()  # fd 2 is the worker's log
        finally:
            os._exit(code)
    os.close(write_end)
    try:
        data = b"".join(iter(lambda: os.read(read_end, 1 << 16), b""))
    finally:
        os.close(read_end)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise RuntimeError("compiling the seccomp filter failed (see the traceback above)")
    split = 4 + int.from_bytes(data[:4], "big")
    base, child = data[4:split], data[split:]
    if not _immediates(child, PID_PLACEHOLDER):
        raise RuntimeError("seccomp program lacks the pid placeholder; cannot restrict kill()")
    return base, child


def _compile_here() -> tuple[bytes, bytes]:
    """The two stages as raw BPF; the child's has a placeholder where the child's pid goes."""
    import pyseccomp as sc

    base = sc.SyscallFilter(sc.ALLOW)
    for name in _REFUSE:
        _rule(base, sc.ERRNO(errno.EPERM), name)
    for name in _FATAL:
        _rule(base, sc.KILL_PROCESS, name)
    child = sc.SyscallFilter(sc.ALLOW)
    for name in _CHILD_FATAL:
        _rule(child, sc.KILL_PROCESS, name)
    # fork is a clone without CLONE_THREAD; threads stay allowed.
    _rule(child, sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))
    # ENOSYS (not EPERM) so glibc falls back to clone(), which the rule above can inspect.
    _rule(child, sc.ERRNO(errno.ENOSYS), "clone3")
    # Signals only to itself: the zygote, its watcher, other workers and the host are out of reach.
    _rule(child, sc.ERRNO(errno.EPERM), "kill", sc.Arg(0, sc.NE, PID_PLACEHOLDER))
    _rule(child, sc.ERRNO(errno.EPERM), "tgkill", sc.Arg(0, sc.NE, PID_PLACEHOLDER))
    _rule(child, sc.ERRNO(errno.EPERM), "rt_sigqueueinfo", sc.Arg(0, sc.NE, PID_PLACEHOLDER))
    _rule(child, sc.ERRNO(errno.EPERM), "rt_tgsigqueueinfo", sc.Arg(0, sc.NE, PID_PLACEHOLDER))
    # Nor can it reach another process of its uid (a spare child waiting for the next job) through scheduling,
    # priorities, limits or signal-driven I/O: these act on the caller only (pid 0) or not at all.
    for name in ("sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr", "prlimit64"):
        _rule(child, sc.ERRNO(errno.EPERM), name, sc.Arg(0, sc.NE, 0))
    for name in ("setpriority", "ioprio_set", "migrate_pages", "move_pages", "kcmp"):
        _rule(child, sc.ERRNO(errno.EPERM), name)
    for command in (F_SETOWN, F_SETSIG, F_SETOWN_EX):
        _rule(child, sc.ERRNO(errno.EPERM), "fcntl", sc.Arg(1, sc.EQ, command))
    for request in (FIOSETOWN, SIOCSPGRP):
        _rule(child, sc.ERRNO(errno.EPERM), "ioctl", sc.Arg(1, sc.EQ, request))
    return _export(base), _export(child)


def _export(f: Any) -> bytes:
    fd = os.memfd_create("spade-seccomp")
    try:
        with open(fd, "rb", closefd=False) as handle:
            f.export_bpf(handle)
        os.lseek(fd, 0, os.SEEK_SET)
        return b"".join(iter(lambda: os.read(fd, 1 << 16), b""))
    finally:
        os.close(fd)


def _immediates(program: bytes, value: int) -> list[int]:
    """Offsets of BPF instructions (8 bytes: u16 code, u8 jt, u8 jf, u32 k) whose constant k equals value."""
    return [off for off in range(0, len(program), 8)
            if int.from_bytes(program[off + 4 : off + 8], sys.byteorder) == value]


def _rule(f: Any, action: int, name: str, *args: Any) -> None:
    try:
        f.add_rule(action, name, *args)
    except (OSError, ValueError, RuntimeError) as exc:  # a syscall unknown on this arch: nothing to deny
        if name in _REQUIRED:
            raise RuntimeError(f"cannot add seccomp rule for {name}: {exc}") from exc
