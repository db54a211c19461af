"""Which isolation layers this host can give, and the bubblewrap command line that stacks them.

in: an ExecutorConfig (isolation strict|standard|none). out: a `Plan` (layers on/off, the zygote's argv and
settings) or SandboxError naming the missing layer under `strict`. `check_isolation` goes further and
verifies the layers from inside a real sandboxed child.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from spade.config import ExecutorConfig
from spade.errors import SandboxError
from spade.sandbox.libraries import bwrap_binds
from spade.untrusted import MAX_VALUE_DEPTH

INSIDE = Path(__file__).resolve().parent / "inside"
LAYERS = ("namespaces", "network_off", "readonly_root", "private_tmp", "uid_drop", "seccomp", "rlimits")
CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_SYS_ADMIN")
"""The zygote keeps these to drop uid, kill leftovers of the slot uid and wipe /tmp; the child loses all on setuid.
CAP_SYS_ADMIN lives only until the zygote has mounted its own /tmp (bwrap's --size sets no inode cap), before the
seccomp filter and any fork: the zygote drops it from every set, and without exec nothing can raise it again."""
GRADING_HASH_SEED = 0
"""The zygotes' str/bytes hash seed (PYTHONHASHSEED): fixed, so a value that depends on set or dict order of
strings is the same on every worker, in every run and on every host with this Python; a candidate's verdict
never depends on which worker ran it. Validation runs the reference a second time under another seed
(`ALT_HASH_SEED`), so a reference whose answer depends on it is rejected as nondeterministic."""
ALT_HASH_SEED = 1
TMP_INODES = 16384
"""Files and directories a candidate may have in /tmp at once: bounds the kernel memory they pin outside any
rlimit and the time the reset after each job can take."""


@dataclass(frozen=True)
class Plan:
    """How one worker is launched: the argv, the zygote's settings, and which layers are on."""

    layers: dict[str, bool]
    uses_bwrap: bool
    use_seccomp: bool
    drop_uid: bool
    hash_seed: int = GRADING_HASH_SEED

    def argv(self, uid: int, tmp: str, tmpfs_bytes: int) -> list[str]:
        python = os.path.realpath(sys.executable)
        settings = {"uid": uid, "drop_uid": self.drop_uid, "seccomp": self.use_seccomp, "fsize": tmpfs_bytes,
                    "max_depth": MAX_VALUE_DEPTH}
        # -s -P -S -B is -I -S -B but for -E: the interpreter reads PYTHONHASHSEED, the one PYTHON* variable in an
        # environment the host sets whole (bwrap's --clearenv, or env() below).
        if not self.uses_bwrap:
            ext = _pyseccomp_dir() if self.use_seccomp else None
            settings |= {"tmp": tmp, "ext": ext}
            return [python, *_FLAGS, str(INSIDE / "zygote.py"), json.dumps(settings)]
        settings |= {"tmp": "/tmp", "ext": "/sbx/ext" if self.use_seccomp else None,
                     "mount_tmp": {"size": tmpfs_bytes, "inodes": TMP_INODES}}
        return [*_bwrap_prefix(tmpfs_bytes, self.use_seccomp), "--setenv", "PYTHONHASHSEED", str(self.hash_seed),
                python, *_FLAGS, "/sbx/inside/zygote.py", json.dumps(settings)]

    def env(self, tmp: str) -> dict[str, str]:
        """The whole environment of the process the host starts (bwrap, or the bare zygote)."""
        return {"PATH": "/usr/bin:/bin", "TMPDIR": tmp, "HOME": tmp, "PYTHONHASHSEED": str(self.hash_seed)}


_FLAGS = ("-s", "-P", "-S", "-B")


def _bwrap_prefix(tmpfs_bytes: int, with_seccomp: bool) -> list[str]:
    # --unshare-all minus the user namespace: inside one only root is mapped, and the uid drop needs real uids.
    args = ["bwrap", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--clearenv",
            "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp",
            "--setenv", "LANG", "C.UTF-8"]
    for top in ("/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.exists(top):
            args += ["--ro-bind", top, top]
    prefix = os.path.realpath(sys.base_prefix)
    if not prefix.startswith(("/usr/", "/lib", "/bin")) and prefix != "/usr":
        # Parents of the prefix (e.g. /root for pyenv, mode 0700 on the host) must be traversable by the
        # candidate's unprivileged uid, or every stdlib import the zygote did not preload fails.
        parents = [p for p in Path(prefix).parents if str(p) != "/"]
        for parent in reversed(parents):
            args += ["--perms", "0755", "--dir", str(parent)]
        args += ["--ro-bind", prefix, prefix]
    args += ["--ro-bind", str(INSIDE), "/sbx/inside"]  # only the zygote's own code, never the repo or runs
    args += bwrap_binds()  # the few libraries judges import (spade.sandbox.libraries), read-only
    if with_seccomp:
        args += ["--ro-bind", str(Path(_pyseccomp_dir()) / "pyseccomp.py"), "/sbx/ext/pyseccomp.py"]
    args += ["--perms", "1777", "--size", str(tmpfs_bytes), "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev",
             "--cap-drop", "ALL"]
    for cap in CAPS:
        args += ["--cap-add", cap]
    return [*args, "--remount-ro", "/"]


def _pyseccomp_dir() -> str:
    import pyseccomp

    return str(Path(pyseccomp.__file__).resolve().parent)


@functools.cache
def host_layers() -> dict[str, str | None]:
    """Each layer mapped to None when this host can provide it, else the reason it cannot."""
    bwrap = _bwrap_problem()
    missing: dict[str, str | None] = {name: bwrap for name in ("namespaces", "network_off", "readonly_root",
                                                                  "private_tmp")}
    missing["uid_drop"] = None if os.geteuid() == 0 else "the supervisor is not root, so it cannot switch uid"
    missing["seccomp"] = _seccomp_problem()
    missing["rlimits"] = None
    return missing


def _bwrap_problem() -> str | None:
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed; apt-get install bubblewrap"
    probe = [*_bwrap_prefix(1 << 20, with_seccomp=False), "/bin/true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap could not start: {exc}"
    if done.returncode != 0:
        return f"bwrap failed here: {done.stderr.decode(errors='replace').strip()[:200]}"
    return None


def _seccomp_problem() -> str | None:
    try:
        import pyseccomp

        pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    except (ImportError, OSError, RuntimeError) as exc:
        return f"pyseccomp/libseccomp unavailable: {exc}"
    return None


def plan_for(cfg: ExecutorConfig) -> Plan:
    """Decide the layers for cfg.isolation; under strict, a layer this host lacks raises SandboxError."""
    if cfg.isolation == "none":
        return Plan({name: name == "rlimits" for name in LAYERS}, uses_bwrap=False, use_seccomp=False,
                    drop_uid=False)
    problems = host_layers()
    if cfg.isolation == "strict":
        for name in LAYERS:
            if problems[name] is not None:
                raise SandboxError(
                    f"executor.isolation = 'strict' needs the {name} layer, which this host lacks: {problems[name]}; "
                    "fix the host or set executor.isolation to 'standard'"
                )
    layers = {name: problems[name] is None for name in LAYERS}
    # Without bwrap the uid drop would leave a writable host filesystem behind; keep it only with namespaces.
    drop = layers["uid_drop"] and layers["namespaces"]
    layers["uid_drop"] = drop
    return Plan(layers, uses_bwrap=layers["namespaces"], use_seccomp=layers["seccomp"], drop_uid=drop)
