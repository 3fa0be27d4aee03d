"""The one place the bot calls the renderer (``bot/render``), so it can be swapped in tests.

Rendering is CPU work. The bot's renderer runs it in a pool of worker processes, one
per core, so drawing never competes with the event loop for the GIL; a renderer
without a pool (tests) uses a worker thread. Callers await ``draw_board``,
``draw_hand``, ``draw_final`` and ``draw_timelapse``; the words on an image are in the
language the caller names (by default the one its block is in, ``bot.i18n``), also in a
worker process.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import fcntl
import logging
import multiprocessing
import os
import pickle
import select
import signal
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import forkserver
from typing import Any

from bot import fence, i18n
from bot.ops import metrics
from bot.ops.workers import AffinityPool, off_loop, workers
from bot.render.highlight import LastMove
from engine.planner import TicketPlan
from engine.views import PrivateView, PublicView

log = logging.getLogger(__name__)


# What the caller of a traced render job is doing (the benchmark: which action).
TRACE_TAG: contextvars.ContextVar[object] = contextvars.ContextVar("render_trace_tag",
                                                                   default=None)


@dataclass
class JobTrace:
    """One render job, traced (``Renderer.traces``). Times are ``time.perf_counter``
    (Linux: the system's monotonic clock, the same in every process)."""

    kind: str
    tag: object  # TRACE_TAG when it was submitted
    submitted: float
    started: float = 0.0  # in the worker
    ended: float = 0.0  # in the worker
    answered: float = 0.0  # the caller has the result
    cpu: float = 0.0  # the worker's CPU seconds on it
    layer: str = ""  # a board's map layer: "cached", "changed" (redrawn in part), "drawn"
    pid: int = 0
    args_bytes: int = 0  # the job pickled
    result_bytes: int = 0


@dataclass
class WarmUp:
    """How the render workers' start is going (``Renderer.start``; ``/health`` shows it):
    their fork server first builds every map's base layer, 15 s at rest, 45-120 s under
    load, and boards wait meanwhile."""

    started: float | None = None  # time.monotonic() when the start began
    seconds: float | None = None  # how long it took, once the workers are up
    failed: str = ""

    def state(self) -> str:
        if self.failed:
            return f"not started ({self.failed})"
        if self.seconds is not None:
            return f"ready (warmed up in {self.seconds:.1f} s)"
        if self.started is not None:
            return f"warming up ({time.monotonic() - self.started:.0f} s so far)"
        return "not started"


@dataclass(frozen=True)
class Renderer:
    board: Callable[[PublicView, LastMove | None], bytes]
    # The hand; with a public view, its planner (with its answer when the caller has it).
    hand: Callable[[PrivateView, str, PublicView | None, Sequence[TicketPlan] | None], bytes]
    final: Callable[[PublicView], bytes]
    # A finished game's animated board, claim by claim (None: this renderer makes none).
    timelapse: Callable[[PublicView, tuple[LastMove, ...]], bytes] | None = None
    pool: Executor | None = None  # where the callables run (they must pickle); else a thread
    # When a list, every job is timed into it (benchmarks; costs a pickling per job).
    traces: list[JobTrace] | None = field(default=None, compare=False)
    warm_up: WarmUp = field(default_factory=WarmUp, compare=False)

    def workers_state(self) -> str:
        """The render workers' state, for ``/health``."""
        return "none (drawing in a thread)" if self.pool is None else self.warm_up.state()

    async def draw_board(self, view: PublicView, last: LastMove | None = None, *,
                         lang: i18n.Language | None = None, game: int | None = None) -> bytes:
        """The board; ``last`` (what the last turn built) is highlighted. The boards of one
        ``game`` are drawn by one worker when it can (its caches hold the game's map)."""
        return await self._run("board", lang, self.board, view, last, key=game)

    async def draw_hand(self, view: PrivateView, map_id: str, *,
                        lang: i18n.Language | None = None,
                        public: PublicView | None = None,
                        plans: Sequence[TicketPlan] | None = None,
                        game: int | None = None) -> bytes:
        """The hand; with ``public``, the seat's planner (from its own views) as a small map
        (``plans``: the planner's answer, when the caller has it: not worked out again).
        The hands of one seat of a ``game`` are drawn by one worker when it can (its
        caches hold the pieces and PNG bands of that seat's last hand)."""
        return await self._run("hand", lang, self.hand, view, map_id, public,
                               None if plans is None else tuple(plans),
                               key=None if game is None else (game, view.seat))

    async def draw_final(self, view: PublicView, *, lang: i18n.Language | None = None,
                         game: int | None = None) -> bytes:
        return await self._run("final", lang, self.final, view, key=game)

    async def draw_timelapse(self, view: PublicView, moves: tuple[LastMove, ...], *,
                             lang: i18n.Language | None = None,
                             game: int | None = None) -> bytes | None:
        """A finished game's board built up turn by turn (``moves``: what each turn built),
        an animated GIF; None if this renderer makes none."""
        if self.timelapse is None:
            return None
        return await self._run("timelapse", lang, self.timelapse, view, moves, key=game)

    async def _run(self, kind: str, lang: i18n.Language | None, fn: Callable[..., bytes],
                   *args: Any, key: Hashable | None = None) -> bytes:
        job = (fn, lang or i18n.current(), *args)
        start = time.perf_counter()
        metrics.RENDER_QUEUE.inc()
        try:
            if self.traces is None:
                return await off_loop(self.pool, _in_language, *job, key=key)
            trace = JobTrace(kind, TRACE_TAG.get(), start, args_bytes=len(pickle.dumps(job)))
            self.traces.append(trace)
            png, trace.started, trace.ended, trace.cpu, trace.layer, trace.pid = (
                await off_loop(self.pool, _traced, *job, key=key))
            trace.answered = time.perf_counter()
            trace.result_bytes = len(png)
            return png
        finally:
            metrics.RENDER_QUEUE.dec()
            metrics.RENDER_SECONDS.observe(time.perf_counter() - start, kind=kind)

    def start(self) -> None:
        """Start the worker processes now, in a thread (their fork server first builds every
        map's base layer and pieces, seconds of work); early boards just queue meanwhile."""
        pool = self.pool
        if pool is None:
            return

        warm_up = self.warm_up
        warm_up.started = time.monotonic()
        log.info("render workers warming up (every map's base layer first; boards wait "
                 "meanwhile, /health shows how it goes)")

        def spawn() -> None:
            assert warm_up.started is not None
            try:
                jobs = [pool.submit(int) for _ in range(workers(pool))]
                for job in jobs:
                    job.result()
            except Exception as exc:  # stopped while warming up: nothing to report
                warm_up.failed = repr(exc)
                log.info("render workers not started: %r", exc)
                return
            warm_up.seconds = time.monotonic() - warm_up.started
            log.info("render workers ready in %.1f s", warm_up.seconds)

        threading.Thread(target=spawn, name="render-warm-up", daemon=True).start()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)


def _in_language(fn: Callable[..., bytes], lang: i18n.Language, *args: Any) -> bytes:
    """``fn(*args)`` with its words in ``lang`` (a worker process does not share the
    caller's context)."""
    with i18n.language(lang):
        return fn(*args)


def _traced(fn: Callable[..., bytes], lang: i18n.Language, *args: Any
            ) -> tuple[bytes, float, float, float, str, int]:
    """``_in_language`` timed: (its bytes, started, ended, CPU seconds, how a board's map
    layer was had, this process's id)."""
    from bot import render

    started, cpu = time.perf_counter(), time.thread_time()
    layer = render.layer_source(args[0]) if fn is render.render_board_png else ""
    png = _in_language(fn, lang, *args)
    return png, started, time.perf_counter(), time.thread_time() - cpu, layer, os.getpid()


RENDER_NICENESS = 5


class RenderPool(ProcessPoolExecutor):
    """The render worker processes, which a stop does not wait for while they start.

    Starting a worker waits for the fork server, which first builds every map's base
    layer (~20 s), and holds the pool's lock meanwhile, so shutting down would wait for
    it too, past ``docker stop``'s 10 s. Shutting down stops that fork server instead.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # One submit at a time: those queued behind one that waits for the fork server
        # wait here, where a shutdown can still turn them away (before they start another).
        self._submitting = threading.Lock()
        self._closing = False
        widen_pipe(fence.pool_result_pipe(self))

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        with self._submitting:
            if self._closing:
                raise RuntimeError("the render workers are stopping")
            return super().submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._closing = True
        # A submit still holding the lock after a moment waits for the fork server: stop
        # it, and the submit fails at once.
        while not self._submitting.acquire(timeout=STARTING_WORKER_SECONDS):
            _stop_fork_server()
        self._submitting.release()
        super().shutdown(wait=wait, cancel_futures=cancel_futures)


# What the pipe of a worker's results holds (Linux; its default is 64 KiB): a board's PNG
# (~400 KiB) crosses in one write, not in ~7 rounds of a full pipe, a wake-up of the
# bot's reading thread and a read (half the bot's CPU for a result).
RESULT_PIPE_BYTES = 1 << 20


def widen_pipe(fd: int) -> None:
    """Let pipe ``fd`` hold ``RESULT_PIPE_BYTES``, where the system allows it (Linux, up to
    ``/proc/sys/fs/pipe-max-size``, 1 MiB by default); elsewhere it stays as it is."""
    setting = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setting is None:
        return
    try:
        fcntl.fcntl(fd, setting, RESULT_PIPE_BYTES)
    except OSError as exc:
        log.info("the render results' pipe keeps its size: %s", exc)


# Longer than any submit takes once the fork server is up (a fork, a queue put).
STARTING_WORKER_SECONDS = 0.2


def _stop_fork_server() -> None:
    """Kill multiprocessing's fork server (it holds no state of ours; the workers it
    forked already live on without it). Its pid is private: no public API names it."""
    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if pid:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def cores() -> int:
    """The CPUs this process may use (a container's limit, not the host's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def _worker_start(bot_pid: int) -> None:
    """A render worker gives way to the bot's own process on a busy machine (an answer
    that draws nothing should not wait behind another game's picture), and exits when the
    bot is gone."""
    os.nice(RENDER_NICENESS)
    exit_with(bot_pid)


def exit_with(pid: int) -> None:
    """End this process as soon as process ``pid`` has ended (its bot was killed).

    A worker's parent is the fork server, not the bot, and the fork server ends only once
    every worker has (they share its "alive" pipe), so nothing else ends them after a
    SIGKILL of the bot: ~1 GB left behind per crash outside Docker or systemd. A thread
    waits on the bot's pidfd (Linux), else looks once a second."""
    def watch() -> None:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            fd = -1  # gone already
        except (AttributeError, OSError):  # no pidfd here: look now and then
            while _alive(pid):
                time.sleep(1.0)
            fd = -1
        if fd >= 0:
            select.select([fd], [], [])  # readable once the process has ended
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-the-bot", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def default_renderer(*, processes: int | None = None,
                     preload: str = "bot.render.preload") -> Renderer:
    """The real renderer; with ``processes`` > 0, in that many worker processes, forked
    from a server that imported ``preload`` first."""
    from bot.render import render_board_png, render_final, render_hand
    from bot.render.timelapse import render_timelapse

    pool = None
    if processes:
        # forkserver: workers start from a clean process that has the renderer imported
        # and every map's base layer built (once, shared), not from a fork of this one
        # (its threads and event loop).
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([preload])
        # A worker process each, fed by the bot (``AffinityPool``): a game's boards are
        # drawn by the worker whose caches hold its map layer and PNG bands.
        pool = AffinityPool(lambda: RenderPool(max_workers=1, mp_context=context,
                                               initializer=_worker_start,
                                               initargs=(os.getpid(),)), processes)
    return Renderer(board=render_board_png, hand=render_hand, final=render_final,
                    timelapse=render_timelapse, pool=pool)


async def check_renderer(renderer: Renderer) -> str:
    """Draw one small image with the renderer's code, in a thread (proves the fonts load;
    the worker processes may still be warming up)."""
    from bot.render.demo import hand_view

    start = time.perf_counter()
    png = await asyncio.to_thread(renderer.hand, hand_view("usa", seed=1), "usa", None, None)
    return (f"renderer ok ({len(png) // 1024} KiB test image in "
            f"{(time.perf_counter() - start) * 1000:.0f} ms)")
