"""``/ttr watch``: a member without a seat follows a game's turn lines and final scores, by
DM or in a private thread, never anything secret; again (or **Stop watching**) stops it."""

from __future__ import annotations

import pytest

from bot.seats.watch import MAX_WATCHERS
from tests.bot.conftest import BACKENDS


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


async def watchers(table) -> list[int]:
    async with table.store() as store:
        return [w.user_id for w in await store.watchers(table.game_id)]


async def test_a_watcher_gets_turn_lines_and_final_scores_but_nothing_secret(table):
    await table.open_game(["Ana", "Ben"], "usa")
    cy = table.users["Cy"] = table.fake.add_user("Cy")
    ex = await table.slash("Cy", "watch")
    assert ex.reply.ephemeral and f"You follow game #{table.game_id} by DM" in ex.text
    intro = table.fake.dms(cy)[-1]
    assert intro.control(label="Stop watching")
    table.watched.add(intro.channel_id)
    ex = await table.slash("Ana", "watch")  # a player has their turns already
    assert "You play in game" in ex.text
    await table.play_to_end()
    got = [s for s in table.fake.sent if s.channel_id == intro.channel_id]
    assert sum("👀 Game #" in s.content for s in got) >= 10  # the turns, as they came
    assert any(table.final_mark in s.content for s in got)  # and the final scores
    assert not any(s.files for s in got)  # no hand image, no board needed
    table.assert_no_secrets_before_final()  # the channel's and the watcher's alike


async def test_watching_stops_by_a_click_also_after_a_restart_or_by_watch_again(table):
    await table.open_game(["Ana", "Ben"], "usa")
    cy = table.users["Cy"] = table.fake.add_user("Cy")
    await table.slash("Cy", "watch")
    intro = table.fake.dms(cy)[-1]
    await table.restart()
    ex = await table.click("Cy", intro, label="Stop watching")
    assert f"You no longer follow game #{table.game_id}" in ex.text
    assert await watchers(table) == []
    before = len(table.fake.dms(cy))
    await table.step()
    assert len(table.fake.dms(cy)) == before  # nothing more comes
    await table.slash("Cy", "watch")
    ex = await table.slash("Cy", "watch")  # again: stop
    assert "You no longer follow" in ex.text and await watchers(table) == []
    ex = await table.slash("Cy", "watch", where="off")
    assert "You are not watching" in ex.text


async def test_closed_dms_are_told_once_and_a_private_thread_works_instead(table):
    await table.open_game(["Ana", "Ben"], "usa")
    cy = table.users["Cy"] = table.fake.add_user("Cy")
    table.fake.refuse_dms.add(cy)
    ex = await table.slash("Cy", "watch")
    assert "I cannot send you DMs" in ex.text and await watchers(table) == []
    ex = await table.slash("Cy", "watch", where="thread")
    assert "You follow game" in ex.text and await watchers(table) == [cy]
    async with table.store() as store:
        (watcher,) = await store.watchers(table.game_id)
    assert watcher.thread_id is not None
    table.watched.add(watcher.thread_id)
    await table.step()
    await table.step()
    lines = [s for s in table.fake.sent if s.channel_id == watcher.thread_id]
    assert any("👀 Game #" in s.content for s in lines)


async def test_a_game_takes_a_limited_number_of_watchers(table):
    await table.open_game(["Ana", "Ben"], "usa")
    for i in range(MAX_WATCHERS):
        table.users[f"W{i}"] = table.fake.add_user(f"W{i}")
        ex = await table.slash(f"W{i}", "watch")
        assert "You follow game" in ex.text
    table.users["Late"] = table.fake.add_user("Late")
    ex = await table.slash("Late", "watch")
    assert f"has {MAX_WATCHERS} watchers already" in ex.text
    assert len(await watchers(table)) == MAX_WATCHERS
