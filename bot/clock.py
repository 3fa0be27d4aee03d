"""The time the bot reads: the system clock in production, a fake one that tests advance
(``bot.edge.testing.FakeClock``).

Everything that reads the time (the game service, the scheduler, reminders' quiet hours)
takes a ``Clock``; nothing else calls ``time.time()``, so a test can move a game two days
forward without sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch (UTC)."""
        ...

    async def wait(self, wake: asyncio.Event, until: float | None) -> None:
        """Return at ``until`` (None: never by itself), as soon as ``wake`` is set, or
        earlier: the caller looks at the time again and waits anew."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    async def wait(self, wake: asyncio.Event, until: float | None) -> None:
        timeout = None if until is None else max(0.0, until - self.now())
        # asyncio.timeout, not wait_for: no helper task is left behind while it waits.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await wake.wait()

