"""A week-long game against a Discord that refuses what the real one refuses.

Four members and a computer player on Europe, in a thread, turns hours apart on the fake
clock, reminders and turn timers on; meanwhile the thread is archived by inactivity, an
admin takes a permission away and gives it back, rate limits bite and the edit cap on
hour-old messages is low. The game must end with its final scores posted, every step made
with the newest buttons (or a command), nothing lost, and few refused requests.
"""

from __future__ import annotations

import collections

import pytest

import engine
from bot.edge.testing import ATTACH_FILES
from tests.bot.conftest import Table

HOUR = 3600.0


@pytest.mark.slow
async def test_a_week_long_game_survives_real_discords_refusals(table: Table):
    fake = table.fake
    fake.limits.edit_cap = 2
    names = ["Ana", "Ben", "Cy", "Dee"]
    await table.open_game(names, "europe", computers=("easy",), thread=True, reminder=4,
                          timer=12)
    thread = table.channel_id
    assert thread is not None
    start = table.clock.now()
    state = await table.stored_state()
    humans = [s for s in range(state.n_players) if state.config.players[s] in names]
    steps = turn = 0
    events: dict[str, float] = {}
    while state.phase != "game_over":
        day = (table.clock.now() - start) / (24 * HOUR)
        if day > 1 and "archived" not in events:  # a quiet day: the thread archived itself
            fake.archive(thread)
            events["archived"] = day
        if day > 2 and "revoked" not in events:  # an admin changes the channel...
            fake.revoke(fake.CHANNEL_ID, ATTACH_FILES)
            events["revoked"] = day
        if day > 2.5 and "restored" not in events:  # ... and puts it right
            fake.restore(fake.CHANNEL_ID)
            events["restored"] = day
        if day > 3 and "rate limited" not in events:
            fake.rate_limit("/channels/{channel_id}/messages", retry_after=5)  # waited out
            fake.rate_limit("/channels/{channel_id}/messages/{message_id}", retry_after=600)
            events["rate limited"] = day
        if not set(engine.waiting_for(state)) & set(humans):  # the computer's turn
            await table.advance(seconds=30)
        else:
            if state.turn != turn:  # a new turn comes hours after the last
                turn = state.turn
                await table.advance(0.25 + 1.5 * table.rng.random()
                                    + (13 if turn % 40 == 39 else 0))  # a night: a timer ends
            state = await table.stored_state()
            if set(engine.waiting_for(state)) & set(humans) and state.phase != "game_over":
                await table.step(seats=humans)
                steps += 1
        state = await table.stored_state()
        assert steps < 3000
    days = (table.clock.now() - start) / (24 * HOUR)
    final = [s for s in fake.channel_messages(thread) if table.final_mark in s.content]
    assert final, "no final scores"
    table.assert_no_secrets_before_final()
    async with table.store() as store:
        assert len(await store.actions(table.game_id)) == state.version  # nothing lost
    assert set(events) == {"archived", "revoked", "restored", "rate limited"}, events
    assert not fake.thread_state(thread)["archived"]
    kinds = collections.Counter(f"{r.status}/{r.code}" for r in fake.refused)
    print(f"\nweek-long game: {days:.1f} days, {state.version} actions ({steps} by members), "
          f"{len(fake.requests)} requests, {len(fake.refused)} refused {dict(kinds)}, "
          f"{len(fake.waits)} rate-limit waits")
    assert 4 <= days <= 14
    # Discord bans a client at 10,000 refused requests in 10 minutes: this is a handful a
    # week (the edit cap, once a day; the permission; the forced rate limits).
    assert len(fake.refused) <= min(20, len(fake.requests) // 50), kinds
