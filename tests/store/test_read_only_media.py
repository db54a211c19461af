"""`spade status`, `report`, `doctor` and `export` read a run on read-only media.

The run is a real database (tests/doctor/rundb.py); read-only media is a read-only bind mount in a private mount
namespace (tests/pipeline/mounts.py): root ignores mode bits, so only a read-only mount makes SQLite's -shm index
impossible to create, which is what breaks a plain read-write open. Skipped, with the reason, without mounts.
"""

from __future__ import annotations

import json
import shutil
import sqlite3

from tests.doctor.rundb import Shape, build_run
from tests.pipeline.mounts import in_mount_namespace, ro_bind, spade_cmd


def _listing(path):
    return sorted(p.name for p in path.iterdir())


def test_a_closed_run_on_read_only_media_is_read_and_left_untouched(tmp_path):
    run, view = build_run(tmp_path / "run", Shape(iterations=3)), tmp_path / "view"
    view.mkdir()
    before = _listing(run)
    out = tmp_path / "out"
    out.mkdir()
    proc = in_mount_namespace(
        f"{ro_bind(run, view)} && "
        f"{spade_cmd('status', view, '--json')} > {out}/status.json; echo status=$?; "
        f"{spade_cmd('doctor', view, '--json')} > {out}/doctor.json; echo doctor=$?; "
        f"{spade_cmd('report', view, '--out', out / 'report.html')}; echo report=$?; "
        f"{spade_cmd('export', view, '--format', 'sft', '--out', out / 'sft.jsonl')}; echo export=$?; "
        f"{spade_cmd('report', view)}; echo report_in_place=$?")
    codes = dict(line.split("=") for line in proc.stdout.splitlines() if "=" in line and " " not in line)
    assert codes["status"] == "0" and codes["report"] == "0" and codes["export"] == "0", proc.stdout + proc.stderr
    assert codes["doctor"] in ("0", "1")  # 1: a diagnosis, which is an answer, not a failure to read
    assert json.loads((out / "status.json").read_text())["iterations"] == 3
    assert json.loads((out / "doctor.json").read_text())["iterations"] == 3
    assert (out / "report.html").stat().st_size > 1000 and (out / "sft.jsonl").stat().st_size > 0
    # Writing the report into the read-only run is refused in one line that says what to do instead.
    assert codes["report_in_place"] == "3"
    errors = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and "Read-only file system" in errors[0] and "--out" in errors[0], proc.stderr
    assert _listing(run) == before  # no -wal, no -shm, no report.html: the medium was never written


def test_a_run_copied_while_open_is_read_from_its_write_ahead_log(tmp_path):
    """A copy taken while the run was writing holds commits only in spade.sqlite-wal: mode=ro reads them."""
    run = build_run(tmp_path / "run", Shape(iterations=2))
    live = sqlite3.connect(run / "spade.sqlite", isolation_level=None)
    live.execute("PRAGMA wal_autocheckpoint=0")
    live.execute("INSERT INTO iterations(iteration, started_at, finished_at, state) VALUES (2, 0, 0, '{}')")
    copy, view = tmp_path / "copy", tmp_path / "view"
    shutil.copytree(run, copy)
    live.close()
    view.mkdir()
    assert (copy / "spade.sqlite-wal").stat().st_size > 0 and (copy / "spade.sqlite-shm").exists()
    proc = in_mount_namespace(f"{ro_bind(copy, view)} && {spade_cmd('status', view, '--json')}")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["iterations"] == 3  # the third lives only in the log
    # Without its -shm index the log cannot be read on read-only media: one line saying what to do.
    (copy / "spade.sqlite-shm").unlink()
    proc = in_mount_namespace(f"{ro_bind(copy, view)} && {spade_cmd('status', view)}")
    assert proc.returncode == 3 and "Traceback" not in proc.stderr, proc.stderr
    assert "copy the run directory to writable storage" in proc.stderr
