"""The fake Discord measures concurrency honestly: a fed interaction returns when its own
work is done, not when every other interaction running at the same time is."""

from __future__ import annotations

import asyncio
import threading

import pytest

from bot import i18n
from bot.edge.testing import FakeDiscord
from bot.game.images import Renderer
from tests.bot.conftest import make_bot


async def test_a_feed_waits_for_its_own_work_only(tmp_path):
    release = threading.Event()

    def slow_hand(view: object, map_id: str, public: object = None,
                  plans: object = None) -> bytes:
        release.wait(5)  # the start's DMs hang until the test lets them go
        return b"HAND"

    fake = FakeDiscord()
    bot = make_bot(tmp_path / "ttr.sqlite3", Renderer(
        board=lambda v, last: b"BOARD", hand=slow_hand, final=lambda v: b"FINAL"))
    await fake.connect(bot)
    try:
        ana, ben = fake.add_user("Ana"), fake.add_user("Ben")
        lobby = (await fake.slash(bot, ana, "new", map="usa")).reply
        await fake.click(bot, ben, lobby, label="Join")
        other = fake.next_id()
        fake.channels[other] = fake._text_channel(other)

        # Fed together: the quick status first, then the start whose DMs hang.
        status = asyncio.create_task(fake.slash(bot, ben, "status", channel_id=other))
        start = asyncio.create_task(fake.click(bot, ana, lobby, label="Start"))
        done, _ = await asyncio.wait({status, start}, return_when=asyncio.FIRST_COMPLETED)
        assert done == {status}  # it did not wait for the start's work
        assert "no game" in status.result().text.lower()
        assert all(s.channel_id == other for s in status.result().sent)
        release.set()
        started = await start
        assert sum(s.kind == "dm" for s in started.sent) == 2
    finally:
        release.set()
        await bot.close()


@pytest.mark.slow
async def test_the_process_pool_renderer_draws_what_the_renderer_draws():
    from bot.game.images import default_renderer
    from bot.render import render_board, render_hand
    from bot.render.demo import hand_view, mid_view

    # Without the start-up warm-up (``bot.render.preload``), which takes seconds.
    pooled = default_renderer(processes=1, preload="bot.render")
    try:
        pooled.start()
        view = mid_view("usa", seed=4, players=3, claims=12)
        assert await pooled.draw_board(view) == render_board(view)
        assert await pooled.draw_board(view, game=7) == render_board(view)  # on its worker
        hand = hand_view("usa", seed=4)
        assert await pooled.draw_hand(hand, "usa") == render_hand(hand, "usa")
        assert await pooled.draw_hand(hand, "usa", game=7) == render_hand(hand, "usa")
        # The worker draws the words in the language asked for (it has no caller context).
        german = await pooled.draw_hand(hand, "usa", lang="de")
        with i18n.language("de"):
            assert german == render_hand(hand, "usa")
        assert german != render_hand(hand, "usa")
        with i18n.language("de"):  # by default, the language of the caller's block
            assert await pooled.draw_board(view) == render_board(view)
        assert render_board(view) != await pooled.draw_board(view, lang="de")
    finally:
        pooled.close()


async def test_the_database_committer_runs_in_no_callers_context(tmp_path):
    """SQLite's committer task takes every caller's transactions to the writer; created in
    the context of the caller that started it, the fake Discord counted it as that
    interaction's own work, which then waited for every other game's writes."""
    import contextvars

    from bot.storage.sqlite import SqliteStorage

    store = await SqliteStorage.open(str(tmp_path / "ttr.sqlite3"))
    caller: contextvars.ContextVar[str] = contextvars.ContextVar("caller", default="nobody")
    seen: list[str] = []
    call = store._call

    async def spying(fn):  # runs in the committer task
        seen.append(caller.get())
        return await call(fn)

    store._call = spying  # type: ignore[method-assign]
    try:
        caller.set("a game's action")
        await store.set_dm_refused(7, 1.0)
        assert seen == ["nobody"]
        assert await store.dm_refused_at(7) == 1.0
    finally:
        await store.close()


async def test_a_task_given_a_fresh_context_is_no_interactions_work():
    """What a feed waits for: the tasks its dispatch created, not one made in a context of
    its own (SQLite's committer, which serves every game's transactions)."""
    import contextvars

    from bot.edge.testing import _FEED, _ORIGIN, _tag_tasks

    _tag_tasks(asyncio.get_running_loop())
    token = _FEED.set(99)
    try:
        own = asyncio.create_task(asyncio.sleep(0))
        shared = asyncio.create_task(asyncio.sleep(0), context=contextvars.Context())
    finally:
        _FEED.reset(token)
    await asyncio.gather(own, shared)
    assert _ORIGIN.get(own) == 99
    assert shared not in _ORIGIN
