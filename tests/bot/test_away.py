"""``/ttr away``: a computer plays, or reminders pause and timers wait, until the member is
back (one click, ``duration:off``, or the time running out, also after a restart)."""

from __future__ import annotations

import pytest

import engine
from tests.bot.conftest import BACKENDS

HOUR = 3600.0
AWAY_MARK = "💤 Ben is away until <t:"


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Every test here runs on SQLite and on PostgreSQL."""
    return request.param


def absence_over(table, name: str) -> list[str]:
    return [s.content for s in table.fake.dms(table.users[name])
            if s.content.startswith("👋 Your absence is over")]


def reminders(table, name: str) -> list[str]:
    return [s.content for s in table.fake.dms(table.users[name])
            if s.content.startswith("⏰ Reminder")]


async def ben_seat(table) -> int:
    state = await table.stored_state()
    return next(s for s in range(state.n_players)
                if table.seat_user(state, s) == table.users["Ben"])


async def play_until_waiting_for(table, seat: int) -> engine.GameState:
    """Ana plays (by Discord) until the game waits for ``seat``."""
    for _ in range(20):
        state = await table.stored_state()
        if seat in engine.waiting_for(state):
            return state
        await table.step(seats=[s for s in engine.waiting_for(state) if s != seat])
    raise AssertionError("the game never came to the seat")


async def test_away_a_computer_plays_until_one_click_brings_them_back(table):
    await table.open_game(["Ana", "Ben"], "usa")  # both choose their first tickets
    ben = await ben_seat(table)
    ex = await table.slash("Ben", "away", duration="2d", level="easy")
    assert ex.reply.ephemeral
    assert "You are away from your games until <t:" in ex.text
    assert f"Game #{table.game_id} in <#" in ex.text and "(easy) plays your seat" in ex.text
    confirmation = ex.reply
    # Within seconds the computer of Ben's choice keeps his tickets; the table says he is away.
    await table.advance(seconds=10)
    state = await table.stored_state()
    assert ben not in engine.waiting_for(state)
    assert AWAY_MARK in table.fake.last_board().content
    assert "a computer player (easy) plays for them" in table.fake.last_board().content
    assert AWAY_MARK in (await table.slash("Ana", "status")).text  # `/ttr status` says so too
    dms = len(table.fake.dms(table.users["Ben"]))
    # Whenever it is Ben's turn, the computer plays it: no ping, no DM, no reminder for him.
    for _ in range(3):
        state = await play_until_waiting_for(table, ben)
        await table.advance(seconds=10)
        after = await table.stored_state()
        assert after.version > state.version
        async with table.store() as store:
            played = await store.actions(table.game_id, after=state.version)
        assert played[0].seat == ben and played[0].user_id is None
    await table.advance(13)
    assert reminders(table, "Ben") == []
    assert len(table.fake.dms(table.users["Ben"])) == dms
    hand = await table.click("Ben", table.fake.last_board(), label="My hand")
    assert hand.reply.control(label="I'm back")  # under his hand too
    # One click and he is back: his turns wait for him again, and he is reminded.
    ex = await table.click("Ben", confirmation, label="I'm back")
    assert "Welcome back" in ex.text and ex.reply.ephemeral
    assert AWAY_MARK not in table.fake.last_board().content
    assert AWAY_MARK not in (await table.slash("Ana", "status")).text
    state = await play_until_waiting_for(table, ben)
    await table.advance(seconds=30)
    assert (await table.stored_state()).version == state.version
    await table.advance(12)
    assert len(reminders(table, "Ben")) == 1
    # A second click changes nothing.
    ex = await table.click("Ben", confirmation, label="I'm back")
    assert "You are not away" in ex.text
    assert absence_over(table, "Ben") == []  # he came back himself: no DM about it


async def test_away_with_pause_no_reminder_and_the_timer_waits(table):
    await table.open_game(["Ana", "Ben"], "usa", timer=24)
    admin = await table.slash("Ana", "config", group="ttr-admin", setting="away_mode",
                              value="pause")
    assert "pause" in admin.text, admin.text
    ben = await ben_seat(table)
    await table.step(seats=[ben])
    state = await table.step(seats=[1 - ben])  # both kept their tickets: the first turn
    if state.current == ben:  # his turn's DM came before he went away: play it first
        while (await table.stored_state()).current == ben:
            await table.step(seats=[ben])
    ex = await table.slash("Ben", "away", duration="3d")
    assert "no reminders, and your turn timer waits" in ex.text
    state = await play_until_waiting_for(table, ben)
    # His turn's DM offers to come back with one click.
    assert table.fake.dms(table.users["Ben"])[-1].control(label="I'm back")
    await table.advance(48)  # past his reminder (12 h) and his timer (24 h)
    assert (await table.stored_state()).version == state.version  # nothing played for him
    assert reminders(table, "Ben") == []
    board = table.fake.last_board().content
    assert AWAY_MARK in board and "their turns wait for them" in board
    # The 3 days run out: he is told by DM where his turn waits; the timer runs in full
    # from then on, the reminder at its delay.
    await table.advance(24)
    assert AWAY_MARK not in table.fake.last_board().content
    assert absence_over(table, "Ben") == [
        "👋 Your absence is over: you play your games yourself again.\n"
        f"• Game #{table.game_id} in <#{table.channel_id or table.fake.CHANNEL_ID}> waits for you."]
    assert ben in engine.waiting_for(await table.stored_state())
    await table.advance(12)
    assert len(reminders(table, "Ben")) == 1
    await table.advance(11.9)
    assert ben in engine.waiting_for(await table.stored_state())
    await table.advance(0.2)
    assert ben not in engine.waiting_for(await table.stored_state())  # the timer ran out


async def test_away_ends_when_its_time_runs_out_even_after_a_restart(table):
    await table.open_game(["Ana", "Ben"], "usa")
    ben = await ben_seat(table)
    await table.slash("Ben", "away", duration="1d")
    await table.advance(seconds=10)
    await table.restart()
    await table.advance(23)
    assert AWAY_MARK in table.fake.last_board().content
    await table.restart()
    await table.advance(1.1)  # the day is over while the new process runs
    assert AWAY_MARK not in table.fake.last_board().content
    await table.restart()
    await table.advance(1)
    # Told once (the computer played his turns meanwhile, so no game waits for him).
    assert absence_over(table, "Ben") == [
        "👋 Your absence is over: you play your games yourself again."]
    async with table.store() as store:
        assert await store.away([table.users["Ben"]]) == {}
    state = await play_until_waiting_for(table, ben)
    await table.advance(seconds=30)
    assert (await table.stored_state()).version == state.version  # his own turn again


@pytest.mark.parametrize("typed, why", [
    ("soon", "is not a duration"), ("12", "is not a duration"), ("3x", "is not a duration"),
    ("5m", "at least 15 minutes"), ("31d", "at most 30 days"), ("", "is not a duration")])
async def test_a_bad_duration_is_refused_and_changes_nothing(table, typed, why):
    await table.open_game(["Ana", "Ben"], "usa")
    ex = await table.slash("Ben", "away", duration=typed)
    assert why in ex.text and ex.reply.ephemeral
    async with table.store() as store:
        assert await store.away([table.users["Ben"]]) == {}
    await table.advance(seconds=30)
    assert AWAY_MARK not in table.fake.last_board().content
    assert len(engine.waiting_for(await table.stored_state())) == 2  # nobody played for Ben


async def test_away_off_and_the_status_without_a_duration(table):
    await table.open_game(["Ana", "Ben"], "usa")
    ex = await table.slash("Ben", "away")
    assert "You are not away" in ex.text
    await table.slash("Ben", "away", duration="1d 6h")
    ex = await table.slash("Ben", "away")
    assert "You are away until <t:" in ex.text and ex.reply.control(label="I'm back")
    ex = await table.slash("Ben", "away", duration="off")
    assert "Welcome back" in ex.text
    async with table.store() as store:
        assert await store.away([table.users["Ben"]]) == {}


async def test_i_m_back_works_after_a_restart(table):
    await table.open_game(["Ana", "Ben"], "usa")
    confirmation = (await table.slash("Ben", "away", duration="12h")).reply
    await table.restart()  # a new process: only what it registered at start-up answers
    ex = await table.click("Ben", confirmation, label="I'm back")
    assert "Welcome back" in ex.text
    async with table.store() as store:
        assert await store.away([table.users["Ben"]]) == {}
