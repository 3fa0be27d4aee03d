"""The one place the bot calls the renderer (``bot/render``), so it can be swapped in tests.

Rendering is CPU work. The bot's renderer runs it in a pool of worker processes, one
per core, so drawing never competes with the event loop for the GIL; a renderer
without a pool (tests) uses a worker thread. Callers await ``draw_board``,
``draw_hand`` and ``draw_final``.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from bot import metrics
from engine.views import PrivateView, PublicView

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Renderer:
    board: Callable[[PublicView], bytes]
    hand: Callable[[PrivateView, str], bytes]
    final: Callable[[PublicView], bytes]
    pool: Executor | None = None  # where the callables run (they must pickle); else a thread

    async def draw_board(self, view: PublicView) -> bytes:
        return await self._run("board", self.board, view)

    async def draw_hand(self, view: PrivateView, map_id: str) -> bytes:
        return await self._run("hand", self.hand, view, map_id)

    async def draw_final(self, view: PublicView) -> bytes:
        return await self._run("final", self.final, view)

    async def _run(self, kind: str, fn: Callable[..., bytes], *args: Any) -> bytes:
        start = time.perf_counter()
        metrics.RENDER_QUEUE.inc()
        try:
            if self.pool is None:
                return await asyncio.to_thread(fn, *args)
            return await asyncio.wrap_future(self.pool.submit(fn, *args))
        finally:
            metrics.RENDER_QUEUE.dec()
            metrics.RENDER_SECONDS.observe(time.perf_counter() - start, kind=kind)

    def start(self) -> None:
        """Start the worker processes now (their fork server builds every map's base layer
        and pieces first, seconds of work), without waiting: early boards just queue."""
        if self.pool is not None:
            started = time.perf_counter()
            future = self.pool.submit(int)
            future.add_done_callback(lambda _: log.info(
                "render workers ready in %.1f s", time.perf_counter() - started))

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)


def cores() -> int:
    """The CPUs this process may use (a container's limit, not the host's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def default_renderer(*, processes: int | None = None) -> Renderer:
    """The real renderer; with ``processes`` > 0, in that many worker processes."""
    from bot.render import render_board, render_final, render_hand

    pool = None
    if processes:
        # forkserver: workers start from a clean process that has the renderer imported
        # and every map's base layer built (once, shared), not from a fork of this one
        # (its threads and event loop).
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["bot.render.preload"])
        pool = ProcessPoolExecutor(max_workers=processes, mp_context=context)
    return Renderer(board=render_board, hand=render_hand, final=render_final, pool=pool)


async def check_renderer(renderer: Renderer) -> str:
    """Draw one small image with the renderer's code, in a thread (proves the fonts load;
    the worker processes may still be warming up)."""
    from bot.render.demo import hand_view

    start = time.perf_counter()
    png = await asyncio.to_thread(renderer.hand, hand_view("usa", seed=1), "usa")
    return (f"renderer ok ({len(png) // 1024} KiB test image in "
            f"{(time.perf_counter() - start) * 1000:.0f} ms)")
