"""Admission control alone, on an event loop: slots, the queue limit, deadlines and draining."""

from __future__ import annotations

import asyncio
import time

import pytest

from spade.service.admission import Admission, DeadlinePassed, Draining, Overloaded


async def _hold(admission: Admission, seconds: float, deadline_s: float = 10.0) -> str:
    async with admission.slot(time.monotonic() + deadline_s):
        await asyncio.sleep(seconds)
    return "done"


def test_past_the_slots_and_the_queue_requests_are_refused_with_a_retry_hint():
    async def scenario() -> list:
        admission = Admission(concurrency=2, queue_limit=1)
        return await asyncio.gather(*(_hold(admission, 0.2) for _ in range(5)), return_exceptions=True)

    results = asyncio.run(scenario())
    assert results.count("done") == 3
    refused = [r for r in results if isinstance(r, Overloaded)]
    assert len(refused) == 2 and all(r.status == 429 and r.retry_after >= 1 for r in refused)


def test_a_request_that_waits_past_its_deadline_gets_504_and_frees_its_place():
    async def scenario() -> tuple:
        admission = Admission(concurrency=1, queue_limit=4)
        first = asyncio.create_task(_hold(admission, 0.5))
        await asyncio.sleep(0.05)
        with pytest.raises(DeadlinePassed) as late:
            await _hold(admission, 0.0, deadline_s=0.1)
        waiting = admission.waiting
        await first
        return late.value.status, waiting, admission.running

    assert asyncio.run(scenario()) == (504, 0, 0)


def test_draining_refuses_new_work_and_waits_for_admitted_work():
    async def scenario() -> tuple:
        admission = Admission(concurrency=1, queue_limit=4)
        running = asyncio.create_task(_hold(admission, 0.3))
        queued = asyncio.create_task(_hold(admission, 0.1))
        await asyncio.sleep(0.05)
        drained = asyncio.create_task(admission.drain(5.0))
        await asyncio.sleep(0.01)
        with pytest.raises(Draining):
            await _hold(admission, 0.0)
        return await running, await queued, await drained

    assert asyncio.run(scenario()) == ("done", "done", True)


def test_drain_gives_up_after_its_grace():
    async def scenario() -> bool:
        admission = Admission(concurrency=1, queue_limit=0)
        task = asyncio.create_task(_hold(admission, 1.0))
        await asyncio.sleep(0.05)
        result = await admission.drain(0.1)
        await task
        return result

    assert asyncio.run(scenario()) is False


def test_a_heavy_request_holds_its_weight_and_is_not_overtaken_by_lighter_ones():
    async def scenario() -> list[str]:
        admission = Admission(concurrency=4, queue_limit=8)
        order: list[str] = []

        async def hold(name: str, weight: int, seconds: float) -> None:
            async with admission.slot(time.monotonic() + 10, weight=weight):
                order.append(name)
                assert admission.free >= 0
                await asyncio.sleep(seconds)

        first = asyncio.create_task(hold("light-1", 1, 0.2))
        await asyncio.sleep(0.01)
        heavy = asyncio.create_task(hold("heavy", 4, 0.05))  # needs every slot: waits for light-1
        await asyncio.sleep(0.01)
        late = asyncio.create_task(hold("light-2", 1, 0.0))  # fits now, but arrived after the heavy one
        await asyncio.gather(first, heavy, late)
        assert admission.free == 4 and admission.running == 0 and admission.waiting == 0
        return order

    assert asyncio.run(scenario()) == ["light-1", "heavy", "light-2"]


def test_a_waiter_that_is_cancelled_gives_its_place_back():
    async def scenario() -> tuple:
        admission = Admission(concurrency=1, queue_limit=4)
        first = asyncio.create_task(_hold(admission, 0.2))
        await asyncio.sleep(0.01)
        gone = asyncio.create_task(_hold(admission, 0.0))
        await asyncio.sleep(0.01)
        waiting = admission.waiting
        gone.cancel()
        await asyncio.sleep(0.01)
        await first
        return waiting, admission.waiting, admission.free, await _hold(admission, 0.0)

    assert asyncio.run(scenario()) == (1, 0, 1, "done")
