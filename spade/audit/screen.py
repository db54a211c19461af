"""Screen generated code for dangerous content before it runs (docs/method.md#security-audit): an AST walk, no
execution.

In: source text. Out: a sorted tuple of finding codes from FINDINGS (empty when nothing was seen). The sandbox
already contains what the code can do; screening records what it *tried*, for the audit trail and the report.
Unparsable code, and code over MAX_ANSWER_BYTES (not parsed on the host), is scanned as text for the same names,
so a syntax error does not hide an intent.
"""

from __future__ import annotations

import ast
import re

from spade.pycode import parse_untrusted
from spade.untrusted import MAX_ANSWER_BYTES, MAX_COMPLETION_BYTES, clip, over

FINDINGS: dict[str, str] = {
    "shell": "shell-outs and process control (os.system, subprocess, pty, os.fork/kill)",
    "network": "network access (socket, urllib, http, requests, …)",
    "credentials": "credential paths or secret environment variables (~/.ssh, /etc/shadow, .aws, id_rsa, *_TOKEN)",
    "destructive_fs": "destructive file operations (shutil.rmtree, os.remove on absolute paths, writes outside /tmp)",
    "system_read": "reads of the host's files (an absolute path outside /tmp opened or read, a directory listed)",
    "dynamic_exec": "dynamic code execution (eval, exec, compile, __import__, importlib, ctypes)",
    "sql_escape": "SQL reaching past its database (ATTACH, DETACH, PRAGMA, VACUUM, load_extension, file functions)",
    "sql_write": "SQL that writes or changes the schema (INSERT, UPDATE, DELETE, DROP, CREATE, ALTER)",
}

_SHELL_MODULES = ("subprocess", "pty", "pexpect", "commands", "multiprocessing")
_SHELL_CALLS = frozenset({
    "os.system", "os.popen", "os.fork", "os.forkpty", "os.kill", "os.killpg", "os.posix_spawn", "os.posix_spawnp",
    "os.execl", "os.execle", "os.execlp", "os.execlpe", "os.execv", "os.execve", "os.execvp", "os.execvpe",
    "os.spawnl", "os.spawnle", "os.spawnlp", "os.spawnlpe", "os.spawnv", "os.spawnve", "os.spawnvp", "os.spawnvpe",
})
_NETWORK_MODULES = ("socket", "urllib", "urllib2", "urllib3", "http", "requests", "httpx", "aiohttp", "ftplib",
                    "smtplib", "telnetlib", "poplib", "imaplib", "ssl", "websocket", "websockets", "paramiko")
_EXEC_MODULES = ("importlib", "ctypes", "cffi", "marshal", "runpy", "code", "codeop")
_EXEC_CALLS = frozenset({"eval", "exec", "compile", "__import__", "builtins.eval", "builtins.exec",
                         "builtins.compile", "builtins.__import__"})
_DELETE_CALLS = frozenset({"os.remove", "os.unlink", "os.rmdir", "os.removedirs", "os.truncate", "os.chmod",
                           "os.chown", "os.rename", "os.replace", "shutil.move", "shutil.copy", "shutil.copyfile"})
_PATH_WRITES = frozenset({"write_text", "write_bytes", "unlink", "rmdir", "chmod", "touch", "rename", "replace"})
_PATH_READS = frozenset({"read_text", "read_bytes", "open", "iterdir", "glob", "rglob", "stat", "exists"})
_LISTINGS = frozenset({"os.listdir", "os.scandir", "os.walk", "os.stat", "os.lstat", "os.access", "os.path.exists",
                       "os.path.isfile", "os.path.isdir", "glob.glob", "glob.iglob", "os.readlink"})
_STANDARD_STREAMS = ("/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/null")
_CREDENTIAL_TEXT = re.compile(
    r"\.ssh\b|/etc/shadow|/etc/gshadow|/etc/sudoers|\.aws\b|id_rsa|id_ed25519|id_ecdsa|\.netrc|\.git-credentials"
    r"|\.docker/config|\.kube/config|\.pgpass|authorized_keys|\.gnupg", re.IGNORECASE)
_SECRET_ENV = re.compile(r"TOKEN|SECRET|PASSW|API_?KEY|ACCESS_?KEY|CREDENTIAL|AWS_|PRIVATE", re.IGNORECASE)
_TEXT_FALLBACK = {
    "shell": re.compile(r"\b(?:subprocess|pty|os\.system|os\.popen|os\.exec\w*|os\.fork|os\.spawn\w*)\b"),
    "network": re.compile(r"\b(?:socket|urllib\w*|http\.client|requests|httpx|aiohttp|ftplib|smtplib)\b"),
    "destructive_fs": re.compile(r"\b(?:shutil\.rmtree|os\.remove|os\.unlink|os\.rmdir)\b"),
    "dynamic_exec": re.compile(r"\b(?:eval|exec|__import__|importlib|ctypes)\b"),
}


def screen_code(code: str) -> tuple[str, ...]:
    """The finding codes for `code`, sorted; () for clean code. Never raises on any input text."""
    if over(code, MAX_ANSWER_BYTES):
        return _screen_text(clip(code, MAX_COMPLETION_BYTES))
    try:
        tree = parse_untrusted(code)
    except SyntaxError:
        return _screen_text(code)
    found: set[str] = set()
    walker = _Walker(found)
    try:
        walker.visit(tree)
    except RecursionError:  # absurdly deep nesting: fall back to the text scan rather than crash the loop
        return _screen_text(code)
    return tuple(sorted(found))


def _screen_text(code: str) -> tuple[str, ...]:
    found = {name for name, pattern in _TEXT_FALLBACK.items() if pattern.search(code)}
    if _CREDENTIAL_TEXT.search(code):
        found.add("credentials")
    return tuple(sorted(found))


def _module_finding(module: str) -> str | None:
    root = module.split(".")[0]
    if root in _SHELL_MODULES:
        return "shell"
    if root in _NETWORK_MODULES:
        return "network"
    if root in _EXEC_MODULES:
        return "dynamic_exec"
    return None


class _Walker(ast.NodeVisitor):
    """Resolves import aliases to dotted names, then classifies imports, calls and string constants."""

    def __init__(self, found: set[str]):
        self.found = found
        self.aliases: dict[str, str] = {}

    # --- imports ------------------------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            # `import a.b` binds `a`; `import a.b as c` binds `c` to `a.b`.
            bound = alias.asname or alias.name.split(".")[0]
            self.aliases[bound] = alias.name if alias.asname else bound
            self._flag(_module_finding(alias.name))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        self._flag(_module_finding(module))
        for alias in node.names:
            self.aliases[alias.asname or alias.name] = f"{module}.{alias.name}" if module else alias.name

    # --- names and calls ----------------------------------------------------------------------------------
    def dotted(self, node: ast.AST) -> str | None:
        """`sp.run` -> 'subprocess.run' through the alias table; getattr(x, 'y') and __import__('m') too."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call) and node.args:
            name = self.dotted(node.func)
            if name in ("__import__", "importlib.import_module"):
                return _literal(node.args[0])
            if name == "getattr" and len(node.args) >= 2 and _literal(node.args[1]):
                base = self.dotted(node.args[0])
                return f"{base}.{_literal(node.args[1])}" if base else None
        return None

    def visit_Call(self, node: ast.Call) -> None:
        name = self.dotted(node.func) or ""
        if name in _SHELL_CALLS or name == "pty.spawn":
            self.found.add("shell")
        if name in _EXEC_CALLS or name.startswith("importlib."):
            self.found.add("dynamic_exec")
        if name in ("getattr", "__import__", "importlib.import_module") and node.args:
            target = self.dotted(node) or ""
            self._flag(_module_finding(target))
            if target in _SHELL_CALLS:
                self.found.add("shell")
        self._flag(_module_finding(name) if "." in name else None)
        self._check_env(name, node)
        self._check_fs(name, node)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = self.dotted(node) or ""
        if name in _SHELL_CALLS:
            self.found.add("shell")  # e.g. `f = os.system` then f(...)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if self.dotted(node.value) == "os.environ":
            key = node.slice
            if not isinstance(key, ast.Constant) or _SECRET_ENV.search(str(key.value)):
                self.found.add("credentials")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        if isinstance(text, str) and _CREDENTIAL_TEXT.search(text):
            self.found.add("credentials")

    # --- helpers ------------------------------------------------------------------------------------------
    def _flag(self, finding: str | None) -> None:
        if finding:
            self.found.add(finding)

    def _check_env(self, name: str, node: ast.Call) -> None:
        if name in ("os.getenv", "os.environ.get", "os.getenvb", "os.environ.copy", "os.environ.items",
                    "os.environ.values", "dict", "list", "str"):
            if name in ("dict", "list", "str"):
                whole = any(self.dotted(a) == "os.environ" for a in node.args)
                if whole:
                    self.found.add("credentials")  # dumping the whole environment
                return
            key = node.args[0] if node.args else None
            if key is None or not isinstance(key, ast.Constant) or _SECRET_ENV.search(str(key.value)):
                self.found.add("credentials")

    def _check_fs(self, name: str, node: ast.Call) -> None:
        first = node.args[0] if node.args else None
        if name == "shutil.rmtree":
            if not _under_tmp(first):
                self.found.add("destructive_fs")
        elif name in _DELETE_CALLS:
            if _absolute_or_unknown(first):
                self.found.add("destructive_fs")
        elif name in ("open", "io.open", "builtins.open", "os.open"):
            if _writes(node, name) and not _under_tmp(first):
                self.found.add("destructive_fs")
            elif _host_path(first):
                self.found.add("system_read")
        elif name in _LISTINGS:
            if _host_path(first):
                self.found.add("system_read")
        elif isinstance(node.func, ast.Attribute) and node.func.attr in _PATH_WRITES | _PATH_READS:
            base = node.func.value
            if isinstance(base, ast.Call) and (self.dotted(base.func) or "").endswith("Path") and base.args:
                if node.func.attr in _PATH_WRITES and not _under_tmp(base.args[0]):
                    self.found.add("destructive_fs")
                elif node.func.attr in _PATH_READS and _host_path(base.args[0]):
                    self.found.add("system_read")


def _literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _under_tmp(node: ast.AST | None) -> bool:
    text = _literal(node)
    return text is not None and (text == "/tmp" or text.startswith("/tmp/"))


def _host_path(node: ast.AST | None) -> bool:
    """A literal absolute (or home) path outside /tmp and the standard streams: the host's own files. Computed paths
    are left to the sandbox, which refuses them and reports the attempt."""
    text = _literal(node)
    if text is None or _under_tmp(node) or text.startswith(_STANDARD_STREAMS):
        return False
    return text.startswith(("/", "~"))


def _absolute_or_unknown(node: ast.AST | None) -> bool:
    """A computed path may well be absolute; a literal relative path stays inside the working directory."""
    text = _literal(node)
    if text is None:
        return True
    return (text.startswith("/") or text.startswith("~")) and not _under_tmp(node)


def _writes(node: ast.Call, name: str) -> bool:
    if name == "os.open":
        return True  # flags decide; any os.open of a file outside /tmp is worth a look
    mode_node = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
    mode = _literal(mode_node)
    if mode_node is None:
        return False
    return mode is None or any(ch in mode for ch in "wax+")
