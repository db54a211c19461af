"""check_isolation: which layers are active on this host, verified from inside a real sandboxed child.

in: an ExecutorConfig. out: an IsolationReport, one (layer, active, detail) line per layer, and whether the
configured isolation level can be met. A probe candidate reports its uid, seccomp mode, network interfaces,
whether / is writable and its rlimits; the report trusts those only for layers the host plan turned on.
"""

from __future__ import annotations

from dataclasses import dataclass

from spade.config import ExecutorConfig
from spade.errors import SandboxError
from spade.sandbox.job import Job, OutcomeKind
from spade.sandbox.layers import LAYERS, host_layers

PROBE = '''
import os, resource
def probe():
    status = dict(line.split(":\\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\\t" in line)
    try:
        nets = [l.split(":")[0].strip() for l in open("/proc/net/dev").read().splitlines()[2:]]
    except OSError:
        nets = ["?"]
    try:
        open("/spade-probe", "w").close(); os.unlink("/spade-probe"); root_rw = True
    except OSError:
        root_rw = False
    tmp_ok = os.access("/tmp", os.W_OK) and sorted(os.listdir("/tmp")) == []
    return {"uid": os.getuid(), "seccomp": status.get("Seccomp", "0").strip(), "nnp": status.get("NoNewPrivs", "0").strip(),
            "nets": nets, "root_rw": root_rw, "tmp_ok": tmp_ok, "pid": os.getpid(),
            "as": resource.getrlimit(resource.RLIMIT_AS)[0]}
'''


@dataclass(frozen=True)
class Layer:
    name: str
    active: bool
    detail: str


@dataclass(frozen=True)
class IsolationReport:
    level: str
    layers: tuple[Layer, ...]
    meets_level: bool
    missing: tuple[str, ...]

    def layer(self, name: str) -> Layer:
        return next(layer for layer in self.layers if layer.name == name)


def check_isolation(cfg: ExecutorConfig) -> IsolationReport:
    """Probe the host, then (if a worker can start) verify each layer from inside a sandboxed child."""
    from spade.sandbox.pool import SandboxPool

    host = host_layers()
    seen: dict[str, object] = {}
    probe_error = ""
    level = "none" if cfg.isolation == "none" else "standard"
    try:
        with SandboxPool(cfg.model_copy(update={"isolation": level, "workers": 1, "mode": "sandbox"})) as pool:
            raw = pool.run(Job(PROBE, "probe", ((),), (5.0,), cfg.memory_bytes, total_timeout=10.0))
        if raw.outcomes[0].kind is OutcomeKind.VALUE:
            seen = raw.outcomes[0].value
        else:
            probe_error = f"probe failed: {raw.load_error or raw.outcomes[0].error}"
    except SandboxError as exc:
        probe_error = str(exc)
    layers = tuple(_verdict(name, host[name], seen, cfg.memory_bytes, probe_error) for name in LAYERS)
    missing = tuple(layer.name for layer in layers if not layer.active)
    meets = cfg.isolation != "strict" or not missing
    return IsolationReport(cfg.isolation, layers, meets, missing)


def _verdict(name: str, host_problem: str | None, seen: dict, mem: int, probe_error: str) -> Layer:
    if not seen:
        return Layer(name, False, host_problem or probe_error or "not verified")
    checks = {
        "namespaces": (seen["pid"] < 100, f"child pid {seen['pid']} inside a PID namespace"),
        "network_off": (seen["nets"] == ["lo"], f"interfaces visible: {', '.join(seen['nets']) or 'none'}"),
        "readonly_root": (not seen["root_rw"], "writing to / fails" if not seen["root_rw"] else "/ is writable"),
        "private_tmp": (seen["tmp_ok"], "empty writable /tmp" if seen["tmp_ok"] else "/tmp not private or not empty"),
        "uid_drop": (seen["uid"] != 0, f"candidate runs as uid {seen['uid']}"),
        "seccomp": (seen["seccomp"] == "2" and seen["nnp"] == "1",
                    f"Seccomp mode {seen['seccomp']}, NoNewPrivs {seen['nnp']}"),
        "rlimits": (seen["as"] == mem, f"RLIMIT_AS = {seen['as']} bytes"),
    }
    ok, detail = checks[name]
    if not ok and host_problem:
        detail = f"{detail} ({host_problem})"
    return Layer(name, ok, detail)
