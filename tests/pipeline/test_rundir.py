"""`spade run` refuses a run directory it cannot write before making anything, and never leaves a half-made one.

Read-only and full file systems are real: a read-only bind mount and a small tmpfs in a private mount namespace
(tests/pipeline/mounts.py; root ignores mode bits, so chmod would prove nothing). Skipped, with the reason, where
mounts cannot be made.
"""

from __future__ import annotations

import json

from tests.pipeline.conftest import spade
from tests.pipeline.mounts import in_mount_namespace, python_cmd, ro_bind, spade_cmd, tmpfs


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_a_run_directory_under_a_file_is_refused_and_nothing_is_made(tmp_path, small_config):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine")
    proc = spade("run", "--config", str(small_config), "--run-dir", str(blocker / "sub" / "run"))
    assert proc.returncode == 2, proc.stderr
    assert f"{blocker} is a file" in _one_line(proc.stderr)
    assert blocker.read_text() == "mine" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "small.yaml"]


def test_a_read_only_run_directory_is_refused_before_anything_is_made(tmp_path, small_config):
    src, view = tmp_path / "src", tmp_path / "view"
    src.mkdir(), view.mkdir()
    (src / "keep.txt").write_text("x")
    proc = in_mount_namespace(f"{ro_bind(src, view)} && "
                              f"{spade_cmd('run', '--config', small_config, '--run-dir', view / 'new' / 'run')} ; "
                              f"{spade_cmd('run', '--config', small_config, '--run-dir', view)}")
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert all("read-only file system" in line and "--run-dir" in line for line in lines)
    assert sorted(p.name for p in src.iterdir()) == ["keep.txt"]


def test_a_full_disk_is_refused_before_anything_is_made(tmp_path, small_config):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    proc = in_mount_namespace(f"{tmpfs(mnt, '1m')} && "
                              f"{spade_cmd('run', '--config', small_config, '--run-dir', mnt / 'run')}; "
                              f"echo rc=$? left=$(ls -A {mnt})")
    assert "rc=3 left=\n" in proc.stdout + "\n", proc.stdout + proc.stderr
    line = _one_line(proc.stderr)
    assert "KiB free" in line and "64 MiB" in line


CREATE = """
import json, sys
from pathlib import Path
from spade.config import SpadeConfig
from spade.errors import StoreError
from spade.rundir.layout import create_run
try:
    create_run(Path(sys.argv[1]), SpadeConfig(), min_free_bytes=0).close()
    print(json.dumps({"created": True}))
except StoreError as exc:
    print(json.dumps({"created": False, "error": str(exc), "code": exc.exit_code}))
"""


def test_a_creation_that_runs_out_of_space_midway_removes_what_it_made(tmp_path):
    """The free-space check is skipped (min_free_bytes=0) so the disk fills while the database is being built."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    script = python_cmd(CREATE)
    proc = in_mount_namespace(
        f"{tmpfs(mnt, '48k')} && mkdir {mnt}/mine && echo keep > {mnt}/mine/notes.txt && "
        f"{script} {mnt}/fresh/deeper/run && echo LEFT=$(ls -A {mnt}) && "
        f"{script} {mnt}/mine && echo MINE=$(ls -A {mnt}/mine)")
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(results) == 2, proc.stdout + proc.stderr
    for r in results:
        assert r["created"] is False and r["code"] == 3
        assert "disk is full" in r["error"] and "nothing was left behind" in r["error"]
    assert "LEFT=mine\n" in proc.stdout  # fresh/deeper/run and its parents are gone
    assert "MINE=notes.txt\n" in proc.stdout  # the user's own directory keeps what it had, and only that


def test_a_directory_whose_creation_failed_can_take_a_new_run(tmp_path):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    script = python_cmd(CREATE)
    proc = in_mount_namespace(f"{tmpfs(mnt, '48k')} && {script} {mnt}/run; mount -o remount,size=4m {mnt} && "
                              f"{script} {mnt}/run && ls -A {mnt}/run")
    first, second = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert first["created"] is False and second["created"] is True, proc.stdout + proc.stderr
    assert proc.stdout.split("}\n")[-1].split() == ["config.yaml", "spade.sqlite"]


FILL_AND_COMMIT = """
import json, os, sys
from pathlib import Path
from spade.config import SpadeConfig
from spade.errors import StoreError
from spade.rundir.layout import create_run, heartbeat
from spade.store import IterationWrite
run = Path(sys.argv[1])
store = create_run(run, SpadeConfig(), min_free_bytes=0)
store.commit_iteration(IterationWrite(0, metrics={"pass_rate": 0.5}))
filler = run.parent / "filler"
fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
try:  # fill the disk to the last byte
    while True:
        os.write(fd, b"x" * 4096)
except OSError:
    os.close(fd)
out = {}
for name, act in (("commit", lambda: store.commit_iteration(IterationWrite(1, metrics={"x": 1.0}))),
                  ("heartbeat", lambda: heartbeat(run, 1, "commit"))):
    try:
        act(); out[name] = "ok"
    except StoreError as exc:
        out[name] = [exc.exit_code, str(exc)]
out["last_after_full"] = store.last_iteration()
filler.unlink()
store.commit_iteration(IterationWrite(1, metrics={"x": 1.0}))
out["last_after_freeing"] = store.last_iteration()
print(json.dumps(out))
"""


def test_a_full_disk_at_commit_is_one_line_and_loses_no_committed_iteration(tmp_path):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    proc = in_mount_namespace(f"{tmpfs(mnt, '2m')} && {python_cmd(FILL_AND_COMMIT)} {mnt}/run")
    out = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else {}
    assert out, proc.stderr
    code, message = out["commit"]
    assert code == 3 and "disk is full" in message and "iterations 0-0 are committed and intact" in message
    assert "\n" not in message and "--resume" in message
    assert out["heartbeat"][0] == 3 and "disk is full" in out["heartbeat"][1]
    assert out["last_after_full"] == 0 and out["last_after_freeing"] == 1


def test_a_half_made_directory_from_an_older_version_gets_one_line_that_says_what_to_do(tmp_path, small_config):
    """What older versions left after a failed creation: a database and no config. Neither command resumes it."""
    from spade.store import RunStore

    RunStore(tmp_path / "old", create=True).close()
    new = spade("run", "--config", str(small_config), "--run-dir", str(tmp_path / "old"))
    assert new.returncode == 2 and "remove it or choose another --run-dir" in _one_line(new.stderr)
    resume = spade("run", "--resume", str(tmp_path / "old"))
    assert resume.returncode == 2 and "start a new run in another --run-dir" in _one_line(resume.stderr)
