"""The report's figures read correctly: whole-number iteration ticks, a long legend beside the axes rather than over
the lines, stacked calibration points drawn by area, and no table row per family that has no task."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

from spade.report.html import kind_section
from spade.report.plots import claimed_vs_measured, difficulty_curves, overlapping_points, reward_and_pass_rate, to_png
from spade.store.views import RunView, TaskOutcome


def _drawn(fig):
    """The figure drawn on an Agg canvas, and that canvas's renderer (for where things ended up)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return fig.axes[0], canvas.get_renderer()


FAMILIES = [f"fam{k:02d}" for k in range(28)]


def _view(iterations: int = 3, families=FAMILIES, tasks=()) -> RunView:
    metrics = {f"difficulty/{f}": [(i, 0.0 if f == "fam27" else 0.3 + 0.01 * k) for i in range(iterations)]
               for k, f in enumerate(families)}
    metrics["pass_rate"] = [(i, 0.5) for i in range(iterations)]
    return RunView(run_dir="r", iterations=iterations, metrics=metrics, rollbacks=(), evals=(), rejections={},
                   accepted_tasks=len(tasks), duplicate_accepted=0, rewards=(), tasks=tuple(tasks),
                   screen_findings={}, sandbox_events={}, audited=0, diversity=[])


@pytest.mark.parametrize("figure", [difficulty_curves, reward_and_pass_rate])
def test_iteration_ticks_are_whole_numbers_on_a_short_run(figure):
    fig = figure(_view(iterations=3))
    to_png(fig)
    ticks = [t for t in fig.axes[0].get_xticks() if 0 <= t <= 2]
    assert ticks and all(float(t).is_integer() for t in ticks)


def test_a_28_family_legend_sits_beside_the_axes_and_every_line_stays_on_the_plot():
    ax, renderer = _drawn(difficulty_curves(_view()))
    legend, frame = ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer)
    assert legend.x0 >= frame.x1  # nothing of the legend covers the plotting area
    assert len(ax.get_lines()) == 28
    low, _ = ax.get_ylim()
    assert low < 0.0  # the line held at 0 is drawn inside the frame, not on its edge
    styles = {(line.get_color(), line.get_linestyle()) for line in ax.get_lines()}
    assert len(styles) == 28  # no two families share colour and style


def test_a_short_legend_stays_inside():
    ax, renderer = _drawn(difficulty_curves(_view(families=FAMILIES[:3])))
    assert ax.get_window_extent(renderer).contains(*ax.get_legend().get_window_extent(renderer).p0)


def test_tasks_on_one_spot_are_one_point_whose_area_counts_them():
    tasks = [TaskOutcome(f"t{k}", "fam00", 0.5, 4, 2) for k in range(5)] + [TaskOutcome("u", "fam00", 0.2, 4, 4)]
    view = _view(families=["fam00"], tasks=tasks)
    assert overlapping_points(view) == {("fam00", 0.5, 0.5): 5, ("fam00", 0.2, 0.0): 1}
    fig = claimed_vs_measured(view)
    sizes = sorted(fig.axes[0].collections[0].get_sizes())
    assert sizes == [18, 90]
    assert "up to 5" in fig.axes[0].get_title()


def test_the_family_table_lists_only_families_with_tasks_and_names_the_rest_once():
    tasks = [TaskOutcome("t", "fam00", 0.5, 4, 2)]
    html = kind_section(_view(families=["fam00", "fam01", "fam02"], tasks=tasks))
    assert "fam00</td>" in html
    assert "fam01</td>" not in html and "fam02</td>" not in html
    assert "2 families with a target but no task yet: fam01, fam02" in html
