"""The thread count under `sampling.threads: 0`: /proc/stat arithmetic, the pick, and the real reading."""

import multiprocessing
import os
import time

import pytest

from spade.policy.threads import ThreadFit, busy_cores, cpu_times, measure_busy, threads_for, usable_cpus

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


@pytest.mark.parametrize(("most", "busy", "expected"), [
    (2, 0.0, 2), (2, 0.4, 2), (2, 0.9, 1), (2, 2.0, 1), (1, 0.0, 1), (8, 3.2, 5), (8, 7.9, 1),
])
def test_threads_for_leaves_the_busy_cores_and_keeps_at_least_one(most, busy, expected):
    assert threads_for(most, busy) == expected


def _spin() -> None:
    while True:
        pass


def test_a_process_spinning_on_a_cpu_reads_as_that_cpu_busy():
    cpu = usable_cpus()[-1]
    spinner = multiprocessing.Process(target=_spin, daemon=True)
    spinner.start()
    try:
        os.sched_setaffinity(spinner.pid, {cpu})
        time.sleep(0.2)
        busy = measure_busy([cpu], window=0.5)
    finally:
        spinner.terminate()
        spinner.join()
    assert busy is not None and busy >= 0.8


def test_thread_fit_sets_torch_to_the_idle_cores_and_measures_again_only_when_due():
    torch = pytest.importorskip("torch")
    readings = [1.0, 0.0]
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
