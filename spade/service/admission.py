"""Admission control: at most `concurrency` slots are held at once, at most `queue_limit` requests wait, each for a
bounded time, first come first served.

in: requests asking for `weight` slots (a /run_code job one, a grading request one per answer it runs at once) with
the latest moment they may start. out: the slots, or `Overloaded` (the queue is full: answer 429 with Retry-After)
or `DeadlinePassed` (no slot in time: answer 504), or `Draining` (the service is shutting down: answer 503).
Runs on the event loop; no locks needed.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
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
        self.free = concurrency
        self.running = 0  # requests holding slots
        self.draining = False
        self._queue: deque[tuple[int, asyncio.Future[None]]] = deque()
        self._mean_s = 0.1  # a moving average of job time, for Retry-After
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def waiting(self) -> int:
        return len(self._queue)

    def retry_after(self) -> int:
        """Seconds until the queue ahead has likely drained: its length over the slots, times a job's mean time."""
        return max(1, math.ceil((self.waiting + 1) / self.concurrency * self._mean_s))

    @asynccontextmanager
    async def slot(self, deadline: float, weight: int = 1) -> AsyncIterator[None]:
        """Hold `weight` slots (at most `concurrency`) for the body of the `async with`; `deadline` is a
        time.monotonic() value. Cancelling the waiting task (the client went away) gives its place up."""
        weight = max(1, min(weight, self.concurrency))
        if self.draining:
            raise Draining("the service is shutting down", retry_after=1)
        if self.waiting >= self.queue_limit and not (self.free >= weight and not self._queue):
            raise Overloaded(f"the queue is full ({self.waiting} waiting for {self.concurrency} slots)",
                             retry_after=self.retry_after())
        await self._acquire(weight, deadline)
        self.running += 1
        self._idle.clear()
        started = time.monotonic()
        try:
            yield
        finally:
            self._mean_s = 0.9 * self._mean_s + 0.1 * (time.monotonic() - started)
            self.running -= 1
            self.free += weight
            self._wake()

    async def _acquire(self, weight: int, deadline: float) -> None:
        if self.free >= weight and not self._queue:
            self.free -= weight
            return
        entry = (weight, asyncio.get_running_loop().create_future())
        self._queue.append(entry)
        self._idle.clear()
        try:
            await asyncio.wait_for(asyncio.shield(entry[1]), timeout=max(0.0, deadline - time.monotonic()))
        except (TimeoutError, asyncio.CancelledError) as exc:
            if entry[1].done() and not entry[1].cancelled():  # granted just as the wait ended: hand it back
                self.free += weight
            else:
                entry[1].cancel()
                self._queue.remove(entry)
            self._wake()
            if isinstance(exc, TimeoutError):
                raise DeadlinePassed("no sandbox slot became free before the request's deadline",
                                     retry_after=self.retry_after()) from None
            raise

    def _wake(self) -> None:
        """Grant slots to the head of the queue while they fit (first come, first served: a heavy request at the
        head is not overtaken by light ones behind it)."""
        while self._queue and self._queue[0][0] <= self.free:
            weight, granted = self._queue.popleft()
            self.free -= weight
            granted.set_result(None)
        if self.running == 0 and not self._queue and self.free == self.concurrency:
            self._idle.set()

    async def drain(self, grace_s: float) -> bool:
        """Refuse new requests and wait up to grace_s for admitted and queued ones; True when all finished."""
        self.draining = True
        try:
            await asyncio.wait_for(self._idle.wait(), timeout=grace_s)
            return True
        except TimeoutError:
            return False
