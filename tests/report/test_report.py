"""`spade report`: one self-contained HTML file, every figure inlined, rollbacks and audit findings shown.

The report is rendered once per module (drawing seven figures takes seconds) from a real run database built by
tests/doctor/rundb.py, and opened in headless Chromium when the host has it.
"""

from __future__ import annotations

import base64
import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from spade.errors import StoreError
from spade.report import report_command, write_report
from spade.store import RunStore
from spade.store.views import load_view
from tests.doctor.rundb import Shape, build_run

IMG = re.compile(r"src='data:image/png;base64,([A-Za-z0-9+/=]+)'")
SHAPE = Shape(
    iterations=8,
    rollbacks={3: "eval pass@1 fell 0.40 -> 0.31"},
    rollback_metric=(6,),
    rejections=lambda i: ["weak_tests", "duplicate_near"] if i % 2 else ["reference_raises"],
    screen=lambda i, k: "network,shell|events:socket" if k == 0 else ("credentials" if k == 1 and i < 2 else ""),
)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_run(tmp_path_factory.mktemp("report") / "run", SHAPE)


@pytest.fixture(scope="module")
def report(run_dir: Path) -> Path:
    assert report_command(str(run_dir), None) == 0
    return run_dir / "report.html"


def test_report_command_writes_report_html_into_the_run_directory_by_default(report: Path) -> None:
    assert report.stat().st_size > 50_000


def test_every_figure_is_an_inlined_png_that_decodes(report: Path) -> None:
    from PIL import Image

    images = IMG.findall(report.read_text())
    assert len(images) == 7
    for data in images:
        with Image.open(io.BytesIO(base64.b64decode(data))) as img:
            assert img.format == "PNG" and img.width > 300 and img.height > 150


def test_the_report_needs_no_network_and_runs_no_script(report: Path) -> None:
    text = report.read_text()
    assert "http://" not in text and "https://" not in text
    assert "<script" not in text.lower()
    assert "<link" not in text.lower()


def test_rollbacks_from_the_update_json_and_from_the_metric_are_both_listed(run_dir: Path, report: Path) -> None:
    with RunStore(run_dir) as store:
        assert load_view(store).rollbacks == ((3, "eval pass@1 fell 0.40 -> 0.31"), (6, "rollback (metric)"))
    text = report.read_text()
    assert "eval pass@1 fell 0.40 -&gt; 0.31" in text  # escaped, as every stored string is
    assert "rollback (metric)" in text


def test_screening_findings_are_counted_from_the_audit_results(run_dir: Path, report: Path) -> None:
    with RunStore(run_dir) as store:
        view = load_view(store)
    assert view.screen_findings == {"network": 8, "shell": 8, "credentials": 2}
    assert "<td>shell</td>" in report.read_text()


def test_sandbox_events_are_counted_from_the_audit_results_and_shown(run_dir: Path, report: Path) -> None:
    with RunStore(run_dir) as store:
        view = load_view(store)
    assert view.sandbox_events == {"socket": 8}
    assert "Sandbox events" in report.read_text() and "<td>socket</td>" in report.read_text()


def test_measured_difficulty_is_one_minus_the_policys_pass_rate_per_task(run_dir: Path) -> None:
    with RunStore(run_dir) as store:
        view = load_view(store)
        rows = dict(store.query(
            "SELECT c.task_id, AVG(e.status = 'passed') FROM candidates c JOIN executions e USING(candidate_id)"
            " GROUP BY c.task_id"))
    assert len(view.tasks) == 8 * 4
    for t in view.tasks:
        assert t.measured == pytest.approx(1 - rows[t.task_id])


def test_a_run_with_no_iterations_still_renders_with_empty_sections(tmp_path: Path) -> None:
    RunStore(tmp_path / "run", create=True).close()
    text = write_report(tmp_path / "run", tmp_path / "out" / "r.html").read_text()
    assert text.count("no data in this run yet") == 7
    assert "none recorded" in text


def test_report_on_a_directory_without_a_run_raises_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="not a SPADE run directory"):
        report_command(str(tmp_path), None)


CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-quic", "--enable-logging=stderr", "--v=0")


def test_the_report_renders_in_headless_chromium_without_console_errors(report: Path, tmp_path: Path) -> None:
    from PIL import Image

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (apt-get install -y --no-install-recommends chromium)")
    shot = tmp_path / "shot.png"
    proc = subprocess.run(
        [browser, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
         "--window-size=1200,3000", report.as_uri()], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not re.search(r"Uncaught|:CONSOLE|Not allowed to load|net::ERR", proc.stderr), proc.stderr[-2000:]
    with Image.open(shot) as img:
        assert img.size == (1200, 3000)
        # A blank or broken page has a handful of colours; rendered plots have thousands.
        assert len(img.convert("RGB").getcolors(maxcolors=1 << 20)) > 500


def test_calibration_rows_per_family_and_proposer_match_the_task_outcomes(run_dir: Path, report: Path) -> None:
    from spade.curriculum.calibration import calibration
    from spade.pipeline.status import summarise

    with RunStore(run_dir) as store:
        view = load_view(store)
        summary = summarise(store)
    rows = {r.group: r for r in calibration(view.tasks)}
    families = {t.family for t in view.tasks}
    assert set(rows) == {f"family:{f}" for f in families} | {"proposer:file"}  # the test DB's tasks carry no provenance
    for fam in families:
        mine = [t for t in view.tasks if t.family == fam]
        row = rows[f"family:{fam}"]
        assert row.tasks == len(mine) and row.rollouts == sum(t.attempts for t in mine)
        assert row.mae == pytest.approx(sum(abs(t.measured - t.claimed) for t in mine) / len(mine))
    assert [r["group"] for r in summary.calibration] == sorted(rows)
    html = report.read_text()
    assert "Difficulty calibration" in html and f"family:{sorted(families)[0]}" in html


def test_report_without_the_report_extra_says_which_extra_to_install_in_one_line(run_dir: Path) -> None:
    """The light install has no matplotlib: `spade report` must name the extra, not print a traceback."""
    import sys

    code = ("import sys; sys.modules['matplotlib'] = None; from spade.cli import main; "
            f"sys.exit(main(['report', {str(run_dir)!r}, '--out', {str(run_dir / 'x.html')!r}]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert "spade-coevolution[report]" in lines[0] and "'matplotlib'" in lines[0]


def test_a_missing_module_that_is_not_an_optional_dependency_keeps_its_traceback() -> None:
    from spade.extras import missing_extra

    assert missing_extra(ModuleNotFoundError("no", name="spade.nothing")) is None
    assert "[model]" in missing_extra(ModuleNotFoundError("no", name="torch.nn"))
