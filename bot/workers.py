"""CPU work off the event loop: drawing and computer players' thinking.

The bot's worker processes (the render pool, one per core, at a lower priority) take
both, so neither competes with the event loop for the GIL; without a pool (tests) the
work runs in a thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import Any, TypeVar

import engine
from engine import Action, GameState
from engine.events import Event
from engine.players import LEVELS, choose_action

T = TypeVar("T")


async def off_loop(pool: Executor | None, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in ``pool`` (``fn`` and its arguments must pickle), else in a thread."""
    if pool is None:
        return await asyncio.to_thread(fn, *args)
    if workers_up(pool):  # nothing to start: submitting costs the loop less than a trip
        future = pool.submit(fn, *args)
    else:  # submitting may start a worker, which waits for the fork server: not on the loop
        future = await asyncio.to_thread(pool.submit, fn, *args)
    return await asyncio.wrap_future(future)


def workers_up(pool: Executor) -> bool:
    """Whether every worker process of ``pool`` has started (so a submit starts none)."""
    processes = getattr(pool, "_processes", None)  # a ProcessPoolExecutor's, by pid
    return processes is not None and len(processes) >= getattr(pool, "_max_workers", 1)


# Here, not in bot.scheduler: a worker process that unpickles it imports only the engine.
def computer_action(controller: str, state: GameState, seat: int, history: Sequence[Event],
                    seed: int) -> Action:
    """The action of the seat's ``controller``: 'computer:<level>' thinks, 'auto' takes the
    safe move."""
    level = controller.partition(":")[2]
    if level in LEVELS:
        return choose_action(level, state, seat, history=history, seed=seed)
    return engine.safe_action(state, seat)
