"""The thread count under `sampling.threads: 0`: /proc/stat arithmetic, the pick, and the real reading."""

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from spade.cpus import CpuLimit
from spade.policy.threads import ThreadFit, busy_cores, cpu_times, measure_idle, threads_for, usable_cpus

STAT = """cpu  300 0 100 900 0 0 0 0 0 0
cpu0 200 0 50 100 0 0 0 0 0 0
cpu1 100 0 50 800 0 0 0 0 0 0
cpu2 7 7 7 7 7 7 7 7 0 0
intr 12345 0 0
"""


def test_cpu_times_sums_only_the_named_cpus_and_skips_the_aggregate_line():
    assert cpu_times(STAT, [0]) == (250, 350)
    assert cpu_times(STAT, [0, 1]) == (400, 1300)
    assert cpu_times(STAT, [5]) == (0, 0)  # a CPU the text does not list


def test_cpu_times_counts_irq_softirq_and_steal_as_busy_and_iowait_as_idle():
    assert cpu_times(STAT, [2]) == (42, 56)


def test_busy_cores_is_the_busy_share_times_cores_less_this_process():
    before, after = (0, 0), (100, 200)  # half of two cores' jiffies busy: one core
    assert busy_cores(before, after, 2) == pytest.approx(1.0)
    assert busy_cores(before, after, 2, own_cores=0.75) == pytest.approx(0.25)
    assert busy_cores(before, after, 2, own_cores=3.0) == 0.0
    assert busy_cores(before, before, 2) == 0.0  # no time passed


@pytest.mark.parametrize(("most", "idle", "expected"), [
    (2, 2.0, 2), (2, 1.6, 2), (2, 1.1, 1), (2, 0.0, 1), (1, 2.0, 1), (8, 4.8, 5), (8, 0.1, 1), (2, 7.0, 2),
    (4, 2.5, 3), (4, 1.5, 2), (4, 3.5, 4),  # halves round up, never to even (Python's round gives 2 for 2.5)
])
def test_threads_for_takes_the_idle_cores_within_the_most_and_at_least_one(most, idle, expected):
    assert threads_for(most, idle) == expected


def _spin() -> None:
    while True:
        pass


def test_a_process_spinning_on_a_cpu_leaves_that_cpu_no_idle_core():
    cpu = usable_cpus()[-1]
    spinner = multiprocessing.Process(target=_spin, daemon=True)
    spinner.start()
    try:
        os.sched_setaffinity(spinner.pid, {cpu})
        time.sleep(0.2)
        idle = measure_idle([cpu], window=0.5)
    finally:
        spinner.terminate()
        spinner.join()
    assert idle is not None and idle <= 0.2


def test_thread_fit_sets_torch_to_the_idle_cores_and_measures_again_only_when_due():
    torch = pytest.importorskip("torch")
    readings = [1.0, 2.0]  # idle cores: one, then both
    calls = []

    def measure(cpus):
        calls.append(cpus)
        return readings[len(calls) - 1]

    before = torch.get_num_threads()
    try:
        fit = ThreadFit(most=2, every=3600.0, measure=measure)
        if fit.most < 2:
            pytest.skip("this process may use one CPU only")
        assert fit.apply() == 1 and torch.get_num_threads() == 1
        assert fit.apply() == 1 and len(calls) == 1  # not due yet: no second measurement
        fit.every = 0.0
        assert fit.apply() == 2 and torch.get_num_threads() == 2 and len(calls) == 2
    finally:
        torch.set_num_threads(before)


def test_thread_fit_keeps_the_most_where_the_load_cannot_be_read():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    try:
        fit = ThreadFit(most=2, every=0.0, measure=lambda cpus: None)
        assert fit.apply() == fit.most
    finally:
        torch.set_num_threads(before)


def test_measure_idle_under_a_cgroup_limit_leaves_what_the_rest_of_the_group_used(tmp_path):
    usage = tmp_path / "cpuacct.usage"
    usage.write_text("1000000000\n")
    window = 0.3

    def sleep(seconds):  # the rest of the group uses 0.75 of a core during the window
        time.sleep(seconds)
        usage.write_text(f"{1_000_000_000 + int(0.75 * window * 1e9)}\n")

    idle = measure_idle(usable_cpus(), CpuLimit(1.0, tmp_path, usage, 1e-9), window=window, sleep=sleep)
    assert idle is not None and 0.0 <= idle <= 0.3
    # without a usage file the limit still caps what is idle
    capped = measure_idle(usable_cpus(), CpuLimit(0.5, tmp_path, None), window=0.1)
    assert capped is not None and capped <= 0.5


def test_thread_fit_never_runs_more_threads_than_the_cgroup_limit(monkeypatch):
    torch = pytest.importorskip("torch")
    import spade.policy.threads as threads

    if len(usable_cpus()) < 2:
        pytest.skip("this process may use one CPU only")
    monkeypatch.setattr(threads, "cpu_limit", lambda: CpuLimit(1.0, Path("/"), None))
    before = torch.get_num_threads()
    try:
        fit = ThreadFit(most=len(usable_cpus()), every=0.0, measure=lambda cpus: float(len(cpus)))
        assert fit.most == 1 and fit.apply() == 1 and torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
