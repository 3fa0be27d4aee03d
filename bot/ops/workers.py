"""CPU work off the event loop: drawing and computer players' thinking.

The bot's worker processes (the render pool, one per core, at a lower priority) take
both, so neither competes with the event loop for the GIL; without a pool (tests) the
work runs in a thread.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import CancelledError, Executor, Future
from dataclasses import dataclass
from typing import Any, TypeVar

import engine
from engine import Action, GameState
from engine.events import Event
from engine.players import Controller, choose_action

T = TypeVar("T")


async def off_loop(pool: Executor | None, fn: Callable[..., T], *args: Any,
                   key: Hashable | None = None) -> T:
    """``fn(*args)`` in ``pool`` (``fn`` and its arguments must pickle), else in a thread;
    an ``AffinityPool`` runs it on ``key``'s worker when it can."""
    if pool is None:
        return await asyncio.to_thread(fn, *args)
    submit: Callable[..., Future[T]] = (
        functools.partial(pool.submit_keyed, key) if isinstance(pool, AffinityPool)
        else pool.submit)
    if workers_up(pool):  # nothing to start: submitting costs the loop less than a trip
        future = submit(fn, *args)
    else:  # submitting may start a worker, which waits for the fork server: not on the loop
        future = await asyncio.to_thread(submit, fn, *args)
    return await asyncio.wrap_future(future)


def workers_up(pool: Executor) -> bool:
    """Whether every worker process of ``pool`` has started (so a submit starts none)."""
    if isinstance(pool, AffinityPool):
        return all(map(workers_up, pool.members))
    processes = getattr(pool, "_processes", None)  # a ProcessPoolExecutor's, by pid
    return processes is not None and len(processes) >= workers(pool)


def workers(pool: Executor) -> int:
    """How many worker processes ``pool`` runs."""
    if isinstance(pool, AffinityPool):
        return len(pool.members)
    return int(getattr(pool, "_max_workers", 1))


def worker_pids(pool: Executor | None) -> list[int]:
    """The process ids of ``pool``'s workers started so far."""
    if isinstance(pool, AffinityPool):
        return [pid for member in pool.members for pid in worker_pids(member)]
    return list(getattr(pool, "_processes", None) or {})


# A render job waiting for a worker may pass the ones before it to reach the worker that
# has its game's caches, but only this far from the head of the queue (none waits long).
AFFINITY_WINDOW = 4
# Jobs handed to one worker at a time: the one it runs and the next, already sent to it
# (a worker does not wait for this process to send more when it finishes one).
WORKER_DEPTH = 2


@dataclass
class _Waiting:
    key: Hashable | None
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    future: Future[Any]


class AffinityPool(Executor):
    """Worker processes that each keep their own caches, fed so that a game's jobs go to
    the same worker.

    Each worker is a single-process executor of its own (made by ``member``). A job with a
    ``key`` (a game, or a seat of one) goes to the worker that ran that key's last job
    when that worker has room, taking it out of turn (among the next
    ``AFFINITY_WINDOW``); keyless jobs fill any worker; a worker with room never idles
    while jobs wait (the key moves with the job it takes). Jobs wait here in order, at
    most ``WORKER_DEPTH`` per worker are sent.
    """

    def __init__(self, member: Callable[[], Executor], workers: int):
        self.members = [member() for _ in range(workers)]
        self._lock = threading.Lock()
        self._load = [0] * workers  # jobs sent to each worker and not done
        self._waiting: deque[_Waiting] = deque()
        self._home: OrderedDict[Hashable, int] = OrderedDict()  # key -> its last worker
        self._closing = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        if kwargs:
            raise TypeError("AffinityPool jobs take positional arguments only")
        return self.submit_keyed(None, fn, *args)

    def submit_keyed(self, key: Hashable | None, fn: Callable[..., T], *args: Any) -> Future[T]:
        """``fn(*args)`` in a worker, on ``key``'s worker when it has room."""
        future: Future[T] = Future()
        with self._lock:
            if self._closing:
                raise RuntimeError("the workers are stopping")
            self._waiting.append(_Waiting(key, fn, args, future))
            after = self._dispatch()
        _run_all(after)
        return future

    def _dispatch(self) -> list[Callable[[], None]]:
        """Send waiting jobs to the workers with room (holding ``_lock``). Returns what to do
        once ``_lock`` is released: a future's callbacks may run at once, and take it."""
        after: list[Callable[[], None]] = []
        while self._waiting:
            free = [w for w, load in enumerate(self._load) if load < WORKER_DEPTH]
            if not free:
                break
            least = min(free, key=self._load.__getitem__)
            # The first job near the head that its own worker can take now (a job without
            # a worker of its own: the least busy one); else the head, where there is room.
            index, worker = next(
                ((i, home) for i, job in enumerate(
                    itertools.islice(self._waiting, AFFINITY_WINDOW))
                 if (home := self._home.get(job.key, least)) in free), (0, least))
            job = self._waiting[index]
            del self._waiting[index]
            if not job.future.set_running_or_notify_cancel():
                continue  # its caller gave up
            if job.key is not None:
                self._home[job.key] = worker
                self._home.move_to_end(job.key)
                while len(self._home) > HOMES:
                    self._home.popitem(last=False)
            try:
                sent = self.members[worker].submit(job.fn, *job.args)
            except BaseException as exc:
                after.append(functools.partial(job.future.set_exception, exc))
                continue
            self._load[worker] += 1
            after.append(functools.partial(sent.add_done_callback, functools.partial(
                self._finished, worker, job.future)))
        return after

    def _finished(self, worker: int, future: Future[Any], sent: Future[Any]) -> None:
        with self._lock:
            self._load[worker] -= 1
            after = [] if self._closing else self._dispatch()
        _run_all(after)
        if sent.cancelled():  # a shutdown: ``future`` runs already, so it cannot be cancelled
            future.set_exception(CancelledError())
        elif (exc := sent.exception()) is not None:
            future.set_exception(exc)
        else:
            future.set_result(sent.result())

    def worker_of(self, key: Hashable) -> int | None:
        """The worker that took ``key``'s last job."""
        with self._lock:
            return self._home.get(key)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._closing = True
        # The workers first: one still starting holds up a submit, under ``_lock``.
        for member in self.members:
            member.shutdown(wait=wait, cancel_futures=cancel_futures)
        with self._lock:
            waiting, self._waiting = self._waiting, deque()
        for job in waiting:
            job.future.cancel()


def _run_all(steps: list[Callable[[], None]]) -> None:
    for step in steps:
        step()


HOMES = 4096  # keys whose worker is remembered (a game's and its seats': ~700 games at once)


# Here, not in bot.scheduler: a worker process that unpickles it imports only the engine.
def computer_action(controller: Controller, state: GameState, seat: int,
                    history: Sequence[Event], seed: int) -> Action:
    """The action of the seat's ``controller``: a computer player thinks, the automatic
    move takes the safe move."""
    if controller.level is not None:
        return choose_action(controller.level, state, seat, history=history, seed=seed)
    return engine.safe_action(state, seat, tickets=True)
