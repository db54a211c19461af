"""The sandbox: run untrusted candidate code against a task's inputs and grade what it returns.

Covered (each layer tested in tests/sandbox): a warm fork server (zygote) inside bubblewrap with new network,
PID, IPC, UTS and mount namespaces, a read-only root holding only /usr, /lib, /etc, the Python prefix and the
zygote's own code, a size-capped private /tmp wiped after every run; per candidate a forked child with rlimits
(CPU, address space, processes, file size, fds, no core), a fresh unprivileged uid per worker slot, no_new_privs
and a seccomp filter (no sockets, fork, exec, ptrace, mounts, namespaces, uid changes, bpf, io_uring, signals
to others); per-test wall-clock deadlines enforced by the zygote, which SIGKILLs the child's process group
and re-forks for the remaining tests; CPU time and peak memory read from the kernel (wait4); stdout/stderr
drained with a byte cap and never used as a verdict; return values sent on a private pipe through a
type-exact codec and compared by the supervisor, so expected values never enter the candidate's process.

Not covered: kernel exploits and side channels (a shared kernel is the boundary; use gVisor or VMs for that);
CPU-cache or timing leaks between workers; isolation 'none' (and 'standard' on a host lacking layers), which
give up the corresponding protections; candidates can still read world-readable files of the read-only system
image (/usr, /etc) and see their own test inputs, including hidden ones (never the expected values).
"""

from spade.sandbox.compare import values_equal
from spade.sandbox.grade import grade
from spade.sandbox.isolation import IsolationReport, check_isolation
from spade.sandbox.job import Job, OutcomeKind, RawOutcome, RawRun, to_json_value
from spade.sandbox.pool import SandboxPool, UnsafeSandboxWarning, time_limits_for

__all__ = [
    "IsolationReport", "Job", "OutcomeKind", "RawOutcome", "RawRun", "SandboxPool", "UnsafeSandboxWarning",
    "check_isolation", "grade", "time_limits_for", "to_json_value", "values_equal",
]
