"""What Discord refuses, and a bot that survives it: the fake refuses as Discord does (on in
every bot test), these tests push each refusal and check that no game or turn is lost."""

from __future__ import annotations

import asyncio

import discord
import pytest
from discord.http import Route

from bot.edge.testing import FakeDiscord, Refused
from tests.bot.conftest import Table


def refused(table: Table, *codes: int) -> list[Refused]:
    return [r for r in table.fake.refused if not codes or r.code in codes]


@pytest.mark.slow
@pytest.mark.parametrize("cap", [0, 1, 5])
async def test_a_game_with_turns_hours_apart_survives_the_edit_cap(table: Table, cap: int):
    """Discord caps the edits of messages older than an hour (30046). With turns two hours
    apart every table message is old when the next step comes: a turn change posts a fresh
    one, a refused edit falls back to a fresh one, and the newest buttons always work."""
    table.fake.limits.edit_cap = cap
    await table.open_game(["Ana", "Ben"], "usa")
    for _ in range(60):
        await table.advance(2)
        await table.step()  # clicks the newest table message's buttons (or a command)
    # A refused edit makes the bot stop trying old edits for an hour: at most one a turn.
    # 120 hours: at most one refused edit a day (and one a private answer's edit refused).
    assert len(refused(table, 30046)) <= (0 if cap >= 5 else 8), refused(table)
    assert [r for r in refused(table) if r.code != 30046] == []


async def test_the_edit_cap_is_enforced_by_the_fake(table: Table):
    table.fake.limits.edit_cap = 1
    channel = table.bot.get_partial_messageable(table.fake.CHANNEL_ID)
    message = await channel.send("table")
    await message.edit(content="fresh: not counted")
    table.clock.advance(3601)
    await message.edit(content="old: the one allowed")
    with pytest.raises(discord.HTTPException) as caught:
        await message.edit(content="one too many")
    assert (caught.value.status, caught.value.code) == (400, 30046)
    assert [(r.method, r.code) for r in refused(table)] == [("PATCH", 30046)]


@pytest.mark.slow
@pytest.mark.parametrize(("delay", "busy", "code"), [(5, False, 10062), (16 * 60, True, 50027)])
async def test_an_answer_too_late_for_the_interaction_goes_by_dm(table: Table, monkeypatch,
                                                                  delay: float, busy: bool,
                                                                  code: int):
    """Not acknowledged within 3 seconds (10062), or the token expired after 15 minutes
    (50027, after a defer): the private answer goes by DM, and the action is stored."""
    await table.open_game(["Ana", "Ben"], "usa")
    for _ in range(6):  # past the ticket choices
        state = await table.step()
    service = table.bot.service
    act = service.act

    async def slow(*args, **kwargs):
        table.clock.advance(delay)  # the game took that long (a stuck database, say)
        return await act(*args, **kwargs)

    monkeypatch.setattr(service, "act", slow)
    monkeypatch.setattr(service, "busy", lambda game_id: busy)  # defers first
    user = table.seat_user(state, state.current)
    dms = len(table.fake.dms(user))
    ex = await table.click(user, table.fake.last_board(), label=table.t("Draw from deck"))
    assert (await table.stored_state()).version == state.version + 1
    # (in a locked thread: the table's edit, then its post anew)
    assert [r.code for r in refused(table)] in ([code], [code, code]), refused(table)
    answer = table.fake.dms(user)[dms:]
    assert answer and "You drew" in answer[-1].content, (ex.text, [d.content for d in answer])


async def test_a_game_whose_channel_is_deleted_ends_and_its_players_hear_by_dm(table: Table):
    await table.open_game(["Ana", "Ben"], "usa")
    for _ in range(6):
        await table.step()
    table.fake.delete_channel(table.fake.CHANNEL_ID)
    await table.step()  # stored; its post finds the channel gone
    for name in ("Ana", "Ben"):
        assert "can no longer post in its channel" in table.fake.dms(table.uid[name])[-1].content
    async with table.store() as store:
        assert (await store.game(table.game_id)).status == "ended"
    before = len(table.fake.requests)
    await table.advance(24 * 7)  # a week of reminders and timers: none for this game
    assert len(table.fake.requests) == before
    assert [r.code for r in refused(table)] == [10003]


@pytest.mark.slow
@pytest.mark.parametrize("code", [50001, 50083])
async def test_a_channel_out_of_sight_or_a_locked_thread_ends_the_game(table: Table, code: int):
    await table.open_game(["Ana", "Ben"], "usa", thread=True)
    for _ in range(6):
        state = await table.step()
    async with table.store() as store:
        thread = (await store.game(table.game_id)).channel_id
    assert thread != table.fake.CHANNEL_ID
    if code == 50001:
        table.fake.revoke(table.fake.CHANNEL_ID, 1 << 10)  # View Channel, from the parent
    else:
        table.fake.archive(thread, locked=True)  # by a moderator; the bot cannot reopen it
        table.fake.revoke(table.fake.CHANNEL_ID, 1 << 34)  # Manage Threads
    user = table.seat_user(state, state.current)
    ex = await table.slash(user, "draw", card="deck")
    assert "You drew" in ex.text  # the action is stored and answered
    if not refused(table):  # (the first card was not posted: the turn's end is)
        ex = await table.slash(user, "draw", card="deck")
        assert "You drew" in ex.text
    # (in a locked thread: the table's edit, then its post anew)
    assert [r.code for r in refused(table)] in ([code], [code, code]), refused(table)
    async with table.store() as store:
        assert (await store.game(table.game_id)).status == "ended"


async def test_an_archived_thread_is_unarchived_by_the_next_post(table: Table, caplog):
    await table.open_game(["Ana", "Ben"], "usa", thread=True)
    async with table.store() as store:
        thread = (await store.game(table.game_id)).channel_id
    table.fake.archive(thread)  # idle for its auto-archive time
    for _ in range(4):  # ticket choices: the table message is edited, nobody pinged
        await table.step()
    assert not table.fake.thread_state(thread)["archived"]
    assert len(refused(table)) <= 1, refused(table)  # at most the table edit, once
    assert not [r for r in caplog.records if r.levelname == "ERROR"]  # every post made


@pytest.mark.slow
async def test_a_missing_permission_is_named_once_and_the_game_goes_on_after(table: Table,
                                                                           caplog):
    await table.open_game(["Ana", "Ben"], "usa")
    for _ in range(6):
        await table.step()
    table.fake.revoke(table.fake.CHANNEL_ID, 1 << 15)  # Attach Files
    for _ in range(40):  # until a new board image is due; every action stored and answered
        await table.step()
        if refused(table):
            break
    for _ in range(6):
        await table.step()
    said = [s for s in table.fake.channel_messages() if "I need these permissions" in s.content]
    assert len(said) == 1 and "Attach Files" in said[0].content, said
    assert "a permission is missing in channel" in caplog.text
    assert len(refused(table)) <= 2, refused(table)  # no image for a while after
    table.fake.restore(table.fake.CHANNEL_ID)
    await table.advance(1.5)
    board = table.fake.last_board()
    await table.step()
    assert table.fake.last_board().id != board.id or table.fake.message(board.id).edit


async def test_no_send_permission_tells_the_host_by_dm(table: Table):
    await table.open_game(["Ana", "Ben"], "usa")
    for _ in range(6):
        await table.step()
    table.fake.revoke(table.fake.CHANNEL_ID, 1 << 11)  # Send Messages
    for _ in range(4):
        await table.step()
        if refused(table):
            break
    assert len(refused(table)) <= 3, refused(table)  # the post, in text, the line
    assert any("I need these permissions" in d.content for d in table.fake.dms(table.uid["Ana"]))


async def test_a_long_rate_limit_is_not_slept_through_and_the_post_follows(table: Table):
    """discord.py sleeps through a rate limit up to ``max_ratelimit_timeout`` (30 s); a
    longer one raises: no lock is held while it lasts, and the post is made after it."""
    await table.open_game(["Ana", "Ben"], "usa")
    for _ in range(6):
        await table.step()
    table.fake.rate_limit("/channels/{channel_id}/messages/{message_id}", retry_after=300)
    table.fake.rate_limit("/channels/{channel_id}/messages", retry_after=300)
    state = await table.step()  # stored and answered; its post waits
    posted = len(table.fake.channel_messages())
    await table.step()  # the game's locks are free: the next action goes through at once
    await table.advance(seconds=301)
    for _ in range(20):  # the post that was due runs in the background
        await asyncio.sleep(0)
    assert len(table.fake.channel_messages()) > posted
    assert all(wait <= 30 for wait in table.fake.waits), table.fake.waits  # none slept
    assert state.version >= 7
    assert [r.status for r in refused(table)] == [429, 429][:len(refused(table))]


def test_the_fake_refuses_attachments_over_ten_mib():
    fake = FakeDiscord()
    route = Route("POST", "/channels/{channel_id}/messages", channel_id=fake.CHANNEL_ID)
    with pytest.raises(discord.HTTPException) as caught:
        fake.rest(route, {"content": "big"}, [("board.png", b"x" * (10 * 2**20 + 1))])
    assert (caught.value.status, caught.value.code) == (413, 40005)
    fake.rest(route, {"content": "fine"}, [("board.png", b"x" * 10 * 2**20)])
