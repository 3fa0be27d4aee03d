"""A restart at any moment loses nothing: games resume where they were."""

from __future__ import annotations

import json

import pytest

import engine
from tests.bot.conftest import BACKENDS


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Every test here runs on SQLite and on PostgreSQL."""
    return request.param


async def _play_until(table, phase: str, limit: int = 600):
    for _ in range(limit):
        state = await table.step(prefer="tunnels")
        if state.phase == phase:
            return state
    raise AssertionError(f"no {phase} phase within {limit} actions")


@pytest.mark.slow
async def test_restart_in_the_middle_of_a_tunnel_decision_then_finish(table):
    await table.open_game(["Ana", "Ben"], "europe")
    state = await _play_until(table, "tunnel")
    tunnel_board = table.fake.last_board()
    assert "Pay the extra cards" in [c.get("label") for c in tunnel_board.controls()]
    before = state.to_snapshot()

    await table.restart()  # a new client and a reopened database

    info = await table.bot.service.info(table.game_id)
    assert info.state is not None and info.state.to_snapshot() == before
    # The buttons posted before the restart still work (DynamicItem + custom_id).
    user = table.seat_user(state, state.current)
    table.last_private.clear()
    ex = await table.click(user, tunnel_board, label="Decline")
    assert (await table.stored_state()).version == state.version + 1, ex.text
    assert "not built" in ex.text

    # Restart again every so often (mid-draw, mid-ticket-choice...) until the end.
    for i in range(3000):
        if i % 37 == 36:
            await table.restart()
            table.last_private.clear()
        state = await table.step()
        if state.phase == "game_over":
            break
    assert state.phase == "game_over"
    assert any("Final scores" in s.content for s in table.fake.channel_messages())
    table.assert_no_secrets_before_final()


@pytest.mark.slow
async def test_a_bad_snapshot_is_rebuilt_from_the_action_log(table):
    await table.open_game(["Ana", "Ben", "Cy"], "usa")
    for _ in range(25):
        state = await table.step()
    expected = state.to_snapshot()
    await table.bot.close()
    # A snapshot left behind by a crash (older version) and one that is garbage.
    async with table.store() as store:
        await store.save_snapshot(table.game_id, 3, json.dumps({"snapshot": 99}))
    await table.restart()
    info = await table.bot.service.info(table.game_id)
    assert info.state is not None and info.state.to_snapshot() == expected
    # The repaired snapshot was written back.
    assert (await table.stored_state()).to_snapshot() == expected
    state = await table.step()
    assert state.version == expected["version"] + 1


@pytest.mark.slow
async def test_unposted_turn_is_published_with_the_next_post(table):
    """Events not yet posted (a first card drawn, then a restart) reach the next post."""
    await table.open_game(["Ana", "Ben"], "usa")
    for _ in range(6):
        state = await table.step()
    while state.phase != "turn":
        state = await table.step()
    seat = state.current
    # Apply one whole turn behind Discord's back (as if the post was lost in a crash).
    action = next(a for a in engine.legal_actions(state, seat) if isinstance(a, engine.DrawBlind))
    await table.bot.service.act(table.game_id, table.seat_user(state, seat), action)
    await table.restart()
    name = state.config.players[seat]
    posts = len(table.fake.channel_messages())
    state = await table.step()
    while state.phase not in ("turn", "game_over"):
        state = await table.step()
    new = table.fake.channel_messages()[posts:]
    assert any(f"{name} drew 2 cards" in s.content for s in new), [s.content for s in new]


async def test_a_turn_committed_but_never_posted_is_posted_at_start_up(table):
    """A crash between the commit and the channel post: the restart posts it."""
    await table.open_game(["Ana", "Ben"], "usa")
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step()
    seat = state.current
    claim = next((a for a in engine.legal_actions(state, seat)
                  if isinstance(a, engine.Claim)), None)
    action = claim or engine.DrawTickets()
    class Crash:
        async def publish(self, update):
            raise ConnectionResetError("the process dies before the post")

    table.bot.service.publisher = Crash()
    await table.bot.service.act(table.game_id, table.seat_user(state, seat), action)
    posts = len(table.fake.channel_messages())
    await table.restart()
    new = table.fake.channel_messages()[posts:]
    name = state.config.players[seat]
    assert new and any(name in s.content for s in new), [s.content for s in new]
    if claim is not None:
        assert any(f"{name} claimed" in s.content for s in new)
        assert new[-1].files[0][1].startswith(b"BOARD")
    await table.restart()  # nothing is posted twice
    assert len(table.fake.channel_messages()) == posts + len(new)


class Down:
    """A Discord that cannot be reached: every publish fails."""

    async def publish(self, update):
        raise ConnectionResetError("Discord cannot be reached")


async def _first_turn(table):
    await table.open_game(["Ana", "Ben"], "usa")
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step()
    return state


async def test_a_publish_that_failed_is_published_before_the_next_turn(table):
    """Discord (or the disk) fails while a turn is published: the turn is not lost; it
    reaches the channel before the next one, without a restart, and once."""
    state = await _first_turn(table)
    service = table.bot.service
    real = service.publisher
    names = []
    for turn in range(2):  # the first turn's post fails, the second's goes out
        service.publisher = Down() if turn == 0 else real
        seat = state.current
        names.append(state.config.players[seat])
        for _ in range(2):
            await service.act(table.game_id, table.seat_user(state, seat), engine.DrawBlind())
        state = await table.stored_state()
    told = [s.content for s in table.fake.channel_messages()]
    first = [i for i, text in enumerate(told) if f"{names[0]} drew 2 cards" in text]
    second = [i for i, text in enumerate(told) if f"{names[1]} drew 2 cards" in text]
    assert first and second and first[0] <= second[0], told
    await table.restart()  # both are marked posted: a restart posts neither again
    assert len(table.fake.channel_messages()) == len(told)


async def test_a_publish_that_failed_is_tried_again_by_the_scheduler(table):
    state = await _first_turn(table)
    service = table.bot.service
    real = service.publisher
    service.publisher = Down()
    seat = state.current
    for _ in range(2):
        await service.act(table.game_id, table.seat_user(state, seat), engine.DrawBlind())
    service.publisher = real
    line = f"{state.config.players[seat]} drew 2 cards"
    assert not any(line in s.content for s in table.fake.channel_messages())
    await table.advance(seconds=30)
    assert sum(line in s.content for s in table.fake.channel_messages()) == 1


async def test_restart_while_a_share_choice_waits_then_its_dm_button_works(table):
    await table.open_game(["Ana", "Ben"], "pennsylvania")
    state = await _play_until(table, "choose_share")
    user = table.seat_user(state, state.current)
    dm = table._dm_with(user, "pick", table.option_tag(state, user))
    assert dm is not None and "choose which company's share" in dm.content
    reply = table.last_private[user]

    await table.restart()

    option = [a for a in engine.legal_actions(state, state.current)
              if isinstance(a, engine.TakeShare)][-1]
    ex = await table.click(user, dm, label=f"Take a {option.company} share")
    after = await table.stored_state()
    assert after.version == state.version + 1, ex.text
    mine = engine.private_view(after, state.current).shares
    before = engine.private_view(state, state.current).shares
    assert len(mine[option.company]) == len(before.get(option.company, [])) + 1
    assert f"{option.company} #" in ex.text  # the chooser reads which share they got
    # The same choice offered in the earlier private answer is now out of date.
    stale = await table.click(user, reply, prefix=f"ttr:{table.game_id}:pick:0.")
    assert "out of date" in stale.text
    assert (await table.stored_state()).version == after.version


async def test_the_no_share_button_takes_none_for_the_player_or_the_neutral_investor(table):
    await table.open_game(["Ana", "Ben"], "pennsylvania")
    state = await _play_until(table, "choose_share")
    user = table.seat_user(state, state.current)
    dm = table._dm_with(user, "pick", table.option_tag(state, user))
    assert dm is not None
    labels = [c.get("label") for c in dm.controls()]
    assert labels[0].startswith("Take a ") and labels[-1] == "No share"  # taking: one click
    ex = await table.click(user, dm, label="No share")
    after = await table.stored_state()
    assert after.version == state.version + 1 and "No share taken." in ex.text
    assert after.ext["shares"]["held"] == state.ext["shares"]["held"]
    assert after.ext["shares"]["neutral"] == state.ext["shares"]["neutral"]
    assert after.phase == "turn" and after.current != state.current


async def test_a_share_choice_belongs_to_its_chooser_and_an_option_must_exist(table):
    await table.open_game(["Ana", "Ben", "Cy"], "pennsylvania")
    state = await _play_until(table, "choose_share")
    chooser = table.seat_user(state, state.current)
    other = next(u for u in table.users.values() if u != chooser)
    gid, version = table.game_id, state.version
    tag = table.option_tag(state, chooser)  # the fingerprint of the chooser's options
    cases = [(other, f"ttr:{gid}:pick:0.{tag}", "nothing to choose"),
             (chooser, f"ttr:{gid}:pick:24.{tag}", "not valid"),
             (chooser, f"ttr:{gid}:pick:0.{(tag + 1) % 10**9}", "out of date")]
    for user, custom_id, expect in cases:
        button = {"type": 2, "style": 1, "label": "x", "custom_id": custom_id}
        planted = table.fake.plant(table.fake.CHANNEL_ID, [button])
        ex = await table.click(user, planted, custom_id=custom_id)
        assert expect in ex.text and all(s.ephemeral for s in ex.replies), (custom_id, ex.text)
    assert (await table.stored_state()).version == version
    # Other commands wait for the choice; the engine says why.
    ex = await table.slash(chooser, "draw", card="deck")
    assert "share" in ex.text and (await table.stored_state()).version == version
