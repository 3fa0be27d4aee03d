"""Simultaneous clicks and outsiders: nothing is applied twice, nothing is corrupted."""

from __future__ import annotations

import asyncio

import pytest

import engine
from tests.bot.conftest import BACKENDS


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Every test here runs on SQLite and on PostgreSQL."""
    return request.param


async def _to_turn(table):
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step()
    return state


async def test_everyone_keeps_initial_tickets_at_the_same_time(table):
    await table.open_game(["Ana", "Ben", "Cy"], "usa")
    state = await table.stored_state()
    moves = []
    for seat in engine.waiting_for(state):
        user = table.seat_user(state, seat)
        dm = table._dm_with_select(user)
        offer = [str(t["value"]) for t in dm.control(prefix=f"ttr:{table.game_id}:keep")["options"]]
        moves.append(table.fake.choose(table.bot, user, dm, offer))
    exchanges = await asyncio.gather(*moves)
    after = await table.stored_state()
    assert after.version == state.version + 3, [ex.text for ex in exchanges]
    assert after.phase == "turn"
    assert all("Kept" in ex.text for ex in exchanges)


async def test_a_double_click_draws_once(table):
    await table.open_game(["Ana", "Ben"], "usa")
    state = await _to_turn(table)
    user = table.seat_user(state, state.current)
    board = table.fake.last_board()
    first, second = await asyncio.gather(
        table.click(user, board, label="Draw from deck"),
        table.click(user, board, label="Draw from deck"))
    after = await table.stored_state()
    assert after.version == state.version + 1
    assert sum(after.hands[state.current]) == sum(state.hands[state.current]) + 1
    texts = sorted([first.text, second.text])
    assert any("You drew" in t for t in texts)
    assert any("out of date" in t for t in texts)
    assert all(r.ephemeral for ex in (first, second) for r in ex.replies)


async def test_two_players_click_at_once_only_the_current_one_acts(table):
    await table.open_game(["Ana", "Ben"], "usa")
    state = await _to_turn(table)
    current = table.seat_user(state, state.current)
    other = table.seat_user(state, 1 - state.current)
    board = table.fake.last_board()
    mine, theirs = await asyncio.gather(
        table.click(current, board, label="Draw tickets"),
        table.click(other, board, label="Draw tickets"))
    after = await table.stored_state()
    assert after.version == state.version + 1
    assert after.offered[state.current] and not after.offered[1 - state.current]
    assert "turn" in theirs.text and theirs.reply.ephemeral
    assert "Offered" in mine.text and mine.reply.ephemeral


async def test_many_games_in_parallel_channels(table, monkeypatch):
    """Two games in two threads of one channel, driven at the same time, with a memory
    cache of one game (the other is reloaded from the database each time)."""
    monkeypatch.setattr("bot.game.games.CACHE_SIZE", 1)
    fake = table.fake
    ana, ben, cy, di = (fake.add_user(n) for n in ("Ana", "Ben", "Cy", "Di"))
    ex1 = await fake.slash(table.bot, ana, "new", map="usa", thread=True)
    ex2 = await fake.slash(table.bot, cy, "new", map="europe", thread=True)
    threads = [cid for cid, ch in fake.channels.items() if ch["type"] == 11]
    assert len(threads) == 2
    assert "open in <#" in ex1.text and "open in <#" in ex2.text
    lobbies = [next(s for s in fake.channel_messages(t) if "Join" in str(s.message))
               for t in threads]
    await asyncio.gather(fake.click(table.bot, ben, lobbies[0], label="Join"),
                         fake.click(table.bot, di, lobbies[1], label="Join"))
    await asyncio.gather(fake.click(table.bot, ana, lobbies[0], label="Start"),
                         fake.click(table.bot, cy, lobbies[1], label="Start"))
    for t in threads:
        assert any("begins" in s.content for s in fake.channel_messages(t))
    games = [await table.bot.service.channel_game(t) for t in threads]
    assert [g.row.map_id for g in games if g] == ["usa", "europe"]
    assert len(table.bot.service._games) == 1
    # Everyone keeps their tickets at once, across both games.
    moves = []
    for g in games:
        assert g is not None and g.state is not None
        for seat in engine.waiting_for(g.state):
            uid = g.seats[seat].user_id
            dm = next(d for d in reversed(fake.dms(uid)) if d.custom_ids())
            keep = next(a for a in engine.legal_actions(g.state, seat))
            moves.append(fake.choose(table.bot, uid, dm, [str(t) for t in keep.tickets]))
    await asyncio.gather(*moves)
    for t in threads:
        info = await table.bot.service.channel_game(t)
        assert info is not None and info.state is not None and info.state.phase == "turn"
        assert info.state.version == 2


@pytest.mark.slow
async def test_outsiders_and_waiting_players_are_refused_privately(table):
    await table.open_game(["Ana", "Ben"], "usa")
    eve = table.fake.add_user("Eve")
    state = await table.stored_state()
    board = table.fake.last_board()
    ex = await table.click(eve, board, label="My hand")
    assert ex.reply.ephemeral and "not playing" in ex.text
    dm = table._dm_with_select(table.seat_user(state, 0))
    offer = [str(o["value"]) for o in dm.control(prefix=f"ttr:{table.game_id}:keep")["options"]]
    ex = await table.fake.choose(table.bot, eve, dm, offer)
    assert "not playing" in ex.text
    state = await _to_turn(table)
    board = table.fake.last_board()
    for how in ({"label": "Draw from deck"}, {"label": "Draw tickets"},
                {"prefix": f"ttr:{table.game_id}:up:0."}):
        ex = await table.click(eve, board, **how)
        assert ex.reply.ephemeral and "not playing" in ex.text
        waiting = table.seat_user(state, 1 - state.current)
        ex = await table.click(waiting, board, **how)
        assert ex.reply.ephemeral and "turn" in ex.text, ex.text
    for sub, opts in (("claim", {"route": "1"}), ("draw", {"card": "deck"}), ("tickets", {}),
                      ("hand", {})):
        ex = await table.slash(eve, sub, **opts)
        assert ex.reply.ephemeral and "not playing" in ex.text, (sub, ex.text)
    ex = await table.slash(eve, "status")
    assert ex.reply.ephemeral and "Turn" in ex.text
    assert (await table.stored_state()).version == state.version


async def test_reads_do_not_wait_for_a_change_in_progress(table, monkeypatch):
    """Status, the hand and each autocomplete keystroke read the game as last committed,
    without its write lock: a long write (its commit held up here) does not block them,
    and they do not see the uncommitted action."""
    await table.open_game(["Ana", "Ben"], "usa")
    state = await _to_turn(table)
    user = table.seat_user(state, state.current)
    service = table.bot.service
    release, entered = asyncio.Event(), asyncio.Event()
    record = service.storage.record_action

    async def slow_record(*args, **kwargs):
        entered.set()
        await release.wait()
        return await record(*args, **kwargs)

    monkeypatch.setattr(service.storage, "record_action", slow_record)
    drawing = asyncio.create_task(table.click(user, table.fake.last_board(),
                                              label="Draw from deck"))
    await asyncio.wait_for(entered.wait(), 10)
    assert service.busy(table.game_id)
    info = await asyncio.wait_for(service.info(table.game_id), 1)
    assert info.state is not None and info.state.version == state.version
    assert sum(info.state.hands[state.current]) == sum(state.hands[state.current])
    status = await asyncio.wait_for(table.slash(user, "status"), 5)
    assert status.text and status.reply.ephemeral
    hand = await asyncio.wait_for(table.slash(user, "hand"), 5)
    assert hand.text
    choices = await asyncio.wait_for(table.fake.autocomplete(
        table.bot, user, "draw", "card", card=""), 5)
    assert choices
    assert not drawing.done()  # the write was still going on all along
    release.set()
    drawn = await drawing
    assert "You drew" in drawn.text
    after = await service.info(table.game_id)
    assert after.state is not None and after.state.version == state.version + 1


async def test_a_typed_draw_takes_the_game_lock_once(table, monkeypatch):
    """``/ttr draw`` finds the game, reads it and plays the draw: one load, one lock."""
    await table.open_game(["Ana", "Ben"], "usa")
    state = await _to_turn(table)
    user = table.seat_user(state, state.current)
    service = table.bot.service
    taken = []
    game_lock = service.storage.game_lock

    def counting(game_id):
        taken.append(game_id)
        return game_lock(game_id)

    monkeypatch.setattr(service.storage, "game_lock", counting)
    drawn = await table.slash(user, "draw", card="deck")
    assert "You drew" in drawn.text
    assert taken == [table.game_id]
