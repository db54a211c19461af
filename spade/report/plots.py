"""The report's figures, drawn with matplotlib's object API (no pyplot: no global state, no display needed).

In: a `RunView`. Out: one PNG (bytes) per figure, or None when the run has no data for it yet. Rollbacks are
drawn as red dashed lines on every figure whose x axis is the iteration.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from spade.store.views import RunView

Figure = Any  # matplotlib.figure.Figure, imported lazily
WIDTH, HEIGHT, DPI = 7.5, 3.6, 100


def _figure() -> tuple[Figure, Any]:
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(WIDTH, HEIGHT), dpi=DPI, layout="constrained")
    return fig, fig.add_subplot()


def to_png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _mark_rollbacks(ax: Any, view: RunView) -> None:
    for k, (it, _reason) in enumerate(view.rollbacks):
        ax.axvline(it, color="tab:red", linestyle="--", linewidth=1.2, label="rollback" if k == 0 else None)


LEGEND_INSIDE = 6
"""More entries than this and the legend goes beside the axes, where it hides no line."""


def _legend(ax: Any, fontsize: int = 7) -> None:
    handles = ax.get_legend_handles_labels()[0]
    if not handles:
        return
    if len(handles) <= LEGEND_INSIDE:
        ax.legend(fontsize=fontsize, loc="best", ncol=2)
    else:
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  ncol=1 + len(handles) // 16)


def _iteration_axis(ax: Any, view: RunView, ylabel: str) -> None:
    from matplotlib.ticker import MaxNLocator

    _mark_rollbacks(ax, view)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # iterations are whole numbers
    ax.set_xlabel("iteration")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    _legend(ax)


def difficulty_curves(view: RunView) -> Figure | None:
    families = view.families()
    if not families:
        return None
    fig, ax = _figure()
    styles = ("-", "--", "-.", ":")  # the colour cycle repeats after 10: a style keeps each line its own
    for k, fam in enumerate(families):
        xs, ys = zip(*view.series(f"difficulty/{fam}"))
        ax.plot(xs, ys, marker=".", linestyle=styles[(k // 10) % len(styles)], label=fam)
    ax.set_ylim(-0.02, 1.02)  # a line held at 0 or 1 stays visible on the frame
    ax.set_title("target difficulty per family")
    _iteration_axis(ax, view, "difficulty")
    return fig


def reward_and_pass_rate(view: RunView) -> Figure | None:
    reward, rate = view.series("mean_reward"), view.series("pass_rate")
    if not reward and not rate:
        return None
    fig, ax = _figure()
    for series, label in ((reward, "mean reward"), (rate, "pass rate")):
        if series:
            xs, ys = zip(*series)
            ax.plot(xs, ys, marker="o", label=label)
    ax.set_title("training reward and pass rate per iteration")
    _iteration_axis(ax, view, "value")
    return fig


def pass_rate_by_difficulty(view: RunView, bins: int = 10) -> Figure | None:
    if not view.tasks:
        return None
    attempts, passed = [0] * bins, [0] * bins
    for t in view.tasks:
        b = min(int(t.claimed * bins), bins - 1)
        attempts[b] += t.attempts
        passed[b] += t.passed
    shown = [b for b in range(bins) if attempts[b]]
    fig, ax = _figure()
    centres = [(b + 0.5) / bins for b in shown]
    rates = [passed[b] / attempts[b] for b in shown]
    bars = ax.bar(centres, rates, width=0.9 / bins, color="tab:green")
    ax.bar_label(bars, labels=[f"n={attempts[b]}" for b in shown], fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.1)
    ax.set_xlabel("task difficulty (claimed)")
    ax.set_ylabel("pass rate")
    ax.set_title("pass rate by task difficulty")
    ax.grid(alpha=0.3, axis="y")
    return fig


def reward_histogram(view: RunView) -> Figure | None:
    if not view.rewards:
        return None
    fig, ax = _figure()
    ax.hist(view.rewards, bins=24, color="tab:blue", edgecolor="white")
    ax.set_xlabel("reward (total)")
    ax.set_ylabel("rollouts")
    ax.set_title(f"reward distribution over {len(view.rewards)} rollouts")
    return fig


def rejection_reasons(view: RunView) -> Figure | None:
    if not view.rejections:
        return None
    reasons = list(view.rejections)[::-1]  # largest at the top
    fig, ax = _figure()
    ax.barh(reasons, [view.rejections[r] for r in reasons], color="tab:orange")
    ax.set_xlabel("rejected drafts")
    ax.set_title(f"rejection reasons ({view.accepted_tasks} tasks accepted)")
    ax.tick_params(axis="y", labelsize=8)
    return fig


def eval_pass_at_k(view: RunView) -> Figure | None:
    if not view.evals:
        return None
    lines: dict[str, list[tuple[int, float]]] = {}
    for point in view.evals:
        for k, value in point.pass_at_k.items():
            lines.setdefault(f"{point.base_suite} pass@{k}", []).append((point.iteration, value))
    fig, ax = _figure()
    for label, pts in sorted(lines.items()):
        xs, ys = zip(*pts)
        ax.plot(xs, ys, marker="s", label=label)
    ax.set_ylim(0, 1)
    ax.set_title("fixed evaluation set across checkpoints")
    _iteration_axis(ax, view, "pass@k")
    return fig


def claimed_vs_measured(view: RunView) -> Figure | None:
    if not view.tasks:
        return None
    fig, ax = _figure()
    points = overlapping_points(view)
    for fam in sorted({f for f, _, _ in points}):
        here = [(xy, n) for (f, *xy), n in points.items() if f == fam]
        ax.scatter([x for (x, _), _ in here], [y for (_, y), _ in here], s=[18 * n for _, n in here],
                   alpha=0.6, edgecolors="black", linewidths=0.4, label=fam)
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=1, label="claimed = measured")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("claimed difficulty (task)")
    ax.set_ylabel("measured: 1 - policy pass rate")
    stacked = max(points.values())
    ax.set_title("claimed vs measured difficulty, one point per task" +
                 (f" (area ~ tasks at one spot, up to {stacked})" if stacked > 1 else ""))
    _legend(ax, fontsize=6)
    return fig


def overlapping_points(view: RunView) -> dict[tuple[str, float, float], int]:
    """Tasks per (family, claimed, measured), both rounded to 0.01: tasks that would draw on one spot are one point
    whose area counts them."""
    points: dict[tuple[str, float, float], int] = {}
    for t in view.tasks:
        key = (t.family, round(t.claimed, 2), round(t.measured, 2))
        points[key] = points.get(key, 0) + 1
    return points


FIGURES: tuple[tuple[str, str, Callable[[RunView], Figure | None]], ...] = (
    ("difficulty", "Difficulty curve per family", difficulty_curves),
    ("reward", "Reward and pass rate", reward_and_pass_rate),
    ("by_difficulty", "Pass rate by difficulty", pass_rate_by_difficulty),
    ("histogram", "Reward histogram", reward_histogram),
    ("rejections", "Rejection reasons", rejection_reasons),
    ("eval", "Evaluation pass@k across checkpoints", eval_pass_at_k),
    ("calibration", "Claimed vs measured difficulty", claimed_vs_measured),
)
