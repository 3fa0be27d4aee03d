"""The render workers' pool: a game's jobs go to the worker that has its caches, and no
worker idles while jobs wait."""

from __future__ import annotations

from concurrent.futures import CancelledError, Executor, Future
from typing import Any

import pytest

from bot.ops.workers import AFFINITY_WINDOW, WORKER_DEPTH, AffinityPool


class Held(Executor):
    """A worker whose jobs run only when the test finishes them."""

    def __init__(self) -> None:
        self.jobs: list[tuple[Any, tuple[Any, ...], Future[Any]]] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self.jobs.append((fn, args, future))
        return future

    def finish(self, index: int = 0) -> None:
        fn, args, future = self.jobs.pop(index)
        try:
            future.set_result(fn(*args))
        except Exception as exc:
            future.set_exception(exc)

    def names(self) -> list[str]:
        return [args[0] for _, args, _ in self.jobs]

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        for _, _, future in self.jobs:
            future.cancel()


def pool_of(workers: int = 2) -> tuple[AffinityPool, list[Held]]:
    pool = AffinityPool(Held, workers)
    return pool, pool.members  # type: ignore[return-value]


def test_a_games_jobs_go_to_the_worker_that_ran_its_last_one():
    pool, (w0, w1) = pool_of()
    pool.submit_keyed("a", str, "a1")
    pool.submit_keyed("b", str, "b1")
    assert (w0.names(), w1.names()) == (["a1"], ["b1"])
    w0.finish()
    w1.finish()
    for n in range(2, 6):  # both idle each time: each still goes to its own
        b = pool.submit_keyed("b", str, f"b{n}")
        w1.finish()
        assert b.result() == f"b{n}"
        assert pool.worker_of("b") == 1
    assert w0.names() == [] and w1.names() == []


def test_a_job_passes_others_to_reach_its_free_worker_and_keyless_jobs_fill_any():
    pool, (w0, w1) = pool_of()
    for n in range(WORKER_DEPTH):
        pool.submit_keyed("a", str, f"a{n}")
        pool.submit_keyed("b", str, f"b{n}")
    waiting_a = pool.submit_keyed("a", str, "a-next")
    waiting_b = pool.submit_keyed("b", str, "b-next")
    assert len(w0.jobs) == len(w1.jobs) == WORKER_DEPTH  # the next ones wait
    w1.finish()  # b's worker has room: b's job goes, a's keeps waiting for its own
    assert w1.names()[-1] == "b-next" and "a-next" not in w0.names() + w1.names()
    hand = pool.submit(str, "hand")  # no key: the first worker with room takes it
    w0.finish()
    assert w0.names()[-1] == "a-next"
    assert not hand.done() and not waiting_a.done() and not waiting_b.done()
    w1.finish()
    assert w1.names()[-1] == "hand"


def test_no_worker_idles_while_jobs_wait():
    pool, (w0, w1) = pool_of()
    for n in range(WORKER_DEPTH + 1):
        pool.submit_keyed("a", str, f"a{n}")
    # a's worker is full: its next job goes to the idle one, which is a's from then on
    assert w0.names() == [f"a{n}" for n in range(WORKER_DEPTH)]
    assert w1.names() == [f"a{WORKER_DEPTH}"]
    assert pool.worker_of("a") == 1


def test_jobs_pass_only_those_near_the_head():
    pool, (_, w1) = pool_of()
    for n in range(WORKER_DEPTH):
        pool.submit_keyed("a", str, f"a{n}")
        pool.submit_keyed("b", str, f"b{n}")
    for n in range(AFFINITY_WINDOW):  # a's jobs fill the window
        pool.submit_keyed("a", str, f"a-late{n}")
    pool.submit_keyed("b", str, "b-late")
    w1.finish()  # the head goes to the worker with room, b-late waits its turn
    assert w1.names()[-1] == "a-late0"
    assert pool.worker_of("a") == 1


def test_results_errors_cancelled_callers_and_shutdown():
    pool, (w0,) = pool_of(1)
    ok = pool.submit_keyed("a", pow, 2, 10)
    bad = pool.submit_keyed("a", int, "x")
    given_up = pool.submit_keyed("a", str, "never")
    later = pool.submit_keyed("a", str, "later")
    assert given_up.cancel()
    w0.finish()
    w0.finish()
    assert ok.result() == 1024
    with pytest.raises(ValueError):
        bad.result()
    assert w0.names() == ["later"]  # the cancelled job was skipped
    sent = pool.submit(str, "sent")
    stranded = pool.submit(str, "stranded")  # the worker is full: it waits
    pool.shutdown(wait=False, cancel_futures=True)
    for running in (later, sent):
        with pytest.raises(CancelledError):
            running.result(timeout=1)
    assert stranded.cancelled()
    with pytest.raises(RuntimeError):
        pool.submit(str, "after")


class Immediate(Executor):
    """A worker that has run a job by the time it is handed over (its future is done)."""

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_result(fn(*args))
        return future


def test_a_job_done_as_it_is_handed_over_frees_its_worker():
    import threading

    pool = AffinityPool(Immediate, 2)
    results: list[int] = []

    def submit_many() -> None:  # the done job's callback runs at once: no deadlock
        results.extend(pool.submit_keyed(n % 3, pow, 2, n).result() for n in range(10))

    thread = threading.Thread(target=submit_many, daemon=True)
    thread.start()
    thread.join(30)
    assert results == [2 ** n for n in range(10)]


@pytest.mark.skipif(not hasattr(__import__("fcntl"), "F_GETPIPE_SZ"), reason="Linux only")
def test_a_render_workers_results_cross_in_one_write():
    """The pipe a render worker sends its images through holds a whole board's PNG
    (~400 KiB): at Linux's default 64 KiB each result took ~7 rounds of a full pipe, a
    wake-up of the bot's reading thread and a read."""
    import fcntl
    import multiprocessing

    from bot import fence
    from bot.game.images import RESULT_PIPE_BYTES, RenderPool

    pool = RenderPool(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    try:
        size = fcntl.fcntl(fence.pool_result_pipe(pool), fcntl.F_GETPIPE_SZ)
        assert size >= RESULT_PIPE_BYTES >= 512 * 1024
    finally:
        pool.shutdown()


async def test_a_games_boards_and_each_seats_hands_go_to_their_own_workers(tmp_path):
    """A seat's hands are drawn by the worker of its last hand when it has room (that
    worker's caches hold the hand's pieces and PNG bands), as a game's boards are."""
    import dataclasses

    from bot.edge.testing import FakeDiscord
    from tests.bot.conftest import Table, json_renderer, make_bot

    keys: list[object] = []

    class Keyed(AffinityPool):
        def submit_keyed(self, key: Any, fn: Any, *args: Any) -> Future[Any]:
            keys.append(key)
            return super().submit_keyed(key, fn, *args)

    fake = FakeDiscord()
    bot = make_bot(tmp_path / "ttr.sqlite3",
                   dataclasses.replace(json_renderer(), pool=Keyed(Immediate, 2)))
    await fake.connect(bot)
    table = Table(fake=fake, db_path=tmp_path / "ttr.sqlite3", bot=bot)
    try:
        await table.open_game(["Ana", "Ben"], "usa")
        game = table.game_id
        assert {(game, 0), (game, 1)} <= set(keys)  # each seat's opening hand
        assert None not in keys
    finally:
        await bot.close()
