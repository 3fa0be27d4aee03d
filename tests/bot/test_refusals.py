"""What Discord refuses, and a bot that survives it: the fake refuses as Discord does (on in
every bot test), these tests push each refusal and check that no game or turn is lost."""

from __future__ import annotations

import discord
import pytest

from bot.testing import Refused
from tests.bot.conftest import Table


def refused(table: Table, *codes: int) -> list[Refused]:
    return [r for r in table.fake.refused if not codes or r.code in codes]


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
    assert [r.code for r in refused(table)] == [code]
    answer = table.fake.dms(user)[dms:]
    assert answer and "You drew" in answer[-1].content, (ex.text, [d.content for d in answer])
