"""Admission control: at most `concurrency` jobs run at once, at most `queue_limit` wait, each for a bounded time.

in: requests asking for a slot (with the latest moment they may start). out: a slot, or `Overloaded` (the queue
is full: answer 429 with Retry-After) or `DeadlinePassed` (no slot in time: answer 504), or `Draining` (the
service is shutting down: answer 503). Runs on the event loop; no locks needed.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class Refused(Exception):
    """A request the service will not run now; `status` is the HTTP status, `retry_after` seconds (or None)."""

    status = 503

    def __init__(self, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Overloaded(Refused):
    status = 429


class DeadlinePassed(Refused):
    status = 504


class Draining(Refused):
    status = 503


class Admission:
    def __init__(self, concurrency: int, queue_limit: int) -> None:
        if concurrency < 1 or queue_limit < 0:
            raise ValueError(f"concurrency {concurrency} must be >= 1 and queue_limit {queue_limit} >= 0")
        self.concurrency, self.queue_limit = concurrency, queue_limit
        self.running = self.waiting = 0
        self.draining = False
        self._slots = asyncio.Semaphore(concurrency)
        self._mean_s = 0.1  # a moving average of job time, for Retry-After
        self._idle = asyncio.Event()
        self._idle.set()

    def retry_after(self) -> int:
        """Seconds until the queue ahead has likely drained: its length over the slots, times a job's mean time."""
        return max(1, math.ceil((self.waiting + 1) / self.concurrency * self._mean_s))

    @asynccontextmanager
    async def slot(self, deadline: float) -> AsyncIterator[None]:
        """Hold a slot for the body of the `async with`; `deadline` is a time.monotonic() value."""
        if self.draining:
            raise Draining("the service is shutting down", retry_after=1)
        if self.running + self.waiting >= self.concurrency + self.queue_limit:
            raise Overloaded(f"the queue is full ({self.waiting} waiting for {self.concurrency} slots)",
                             retry_after=self.retry_after())
        self.waiting += 1
        try:
            await asyncio.wait_for(self._slots.acquire(), timeout=max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            raise DeadlinePassed("no sandbox slot became free before the request's deadline",
                                 retry_after=self.retry_after()) from None
        finally:
            self.waiting -= 1
        self.running += 1
        self._idle.clear()
        started = time.monotonic()
        try:
            yield
        finally:
            self._mean_s = 0.9 * self._mean_s + 0.1 * (time.monotonic() - started)
            self.running -= 1
            self._slots.release()
            if self.running == 0 and self.waiting == 0:
                self._idle.set()

    async def drain(self, grace_s: float) -> bool:
        """Refuse new requests and wait up to grace_s for admitted and queued ones; True when all finished."""
        self.draining = True
        try:
            await asyncio.wait_for(self._idle.wait(), timeout=grace_s)
            return True
        except TimeoutError:
            return False
