"""A quiet channel: one table message edited in place, turn lines that ping the next player,
board images only when the board changed, escaped names, explicit mentions, long texts
split, and posts that a crash and restart never repeat."""

from __future__ import annotations

import dataclasses
import json
import threading

import pytest

import engine
from bot.play import presenters
from bot.settings.preferences import ServerSettings
from bot.storage.sqlite import SqliteStorage
from engine import Claim


async def _turn(table):
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step()
    return state


def _posts(table):
    """New public messages (not edits)."""
    return [s for s in table.fake.channel_messages() if not s.edit]


@pytest.mark.slow
async def test_the_table_message_is_edited_in_place_and_takes_the_second_card(table):
    await table.open_game(["Ana", "Ben"], "usa")
    state = await _turn(table)
    board = table.fake.last_board()
    before = len(_posts(table))
    for _ in range(2):  # two whole turns of blind draws, every card from the table message
        user = table.seat_user(state, state.current)
        for _card in range(2):
            ex = await table.click(user, table.fake.last_board(), label="Draw from deck")
            assert "You drew" in ex.text, ex.text
        after = await table.stored_state()
        assert after.version == state.version + 2 and after.current != state.current
        state = after
    # Still the same table message, edited: no new board, one short turn line per turn.
    assert table.fake.last_board().id == board.id
    new = _posts(table)[before:]
    assert len(new) == 2 and all(not s.files and not s.custom_ids() for s in new)
    nxt = table.seat_user(state, state.current)
    assert f"<@{nxt}>, your turn" in new[-1].content
    assert new[-1].allowed_mentions["users"] == [nxt]
    # The channel shows the table and the newest turn line only: the line before was
    # deleted, its text moved into the table message.
    now = table.fake.channel_now()
    assert [s.id for s in now][-2:] == [board.id, new[-1].id]
    assert new[0].id in table.fake.deleted
    first_line = new[0].content.splitlines()[0]
    assert first_line in table.fake.message(board.id).content
    edits = [s for s in table.fake.channel_messages() if s.edit and s.id == board.id]
    assert len(edits) >= 4  # each card drawn changed its buttons
    latest = table.fake.message(board.id)
    assert f"ttr:{table.game_id}:blind:{state.version}" in latest.custom_ids()
    assert f"<@{nxt}>, your turn" in latest.content
    # Any player may press any button: the answer says why not, and nothing changes.
    other = table.seat_user(state, 1 - state.current)
    ex = await table.click(other, latest, label="Draw from deck")
    assert "turn" in ex.text.lower() and (await table.stored_state()).version == state.version


async def test_a_table_message_that_scrolled_away_is_posted_again_below(table):
    """Others' messages below the table message: while it is among the channel's last
    few it is edited in place; once they push it out of sight, the next turn posts it
    again at the bottom."""
    from bot.game.publisher import SCROLLED_AWAY

    await table.open_game(["Ana", "Ben"], "usa")
    state = await _turn(table)
    board = table.fake.last_board()

    async def whole_turn():
        nonlocal state
        user = table.seat_user(state, state.current)
        for _card in range(2):
            await table.click(user, table.fake.last_board(), label="Draw from deck")
        state = await table.stored_state()

    table.fake.plant(board.channel_id, [])  # a message below it: still in sight
    await whole_turn()
    assert table.fake.last_board().id == board.id
    for _ in range(SCROLLED_AWAY):
        table.fake.plant(board.channel_id, [])
    await whole_turn()
    moved = table.fake.last_board()
    assert moved.id != board.id
    assert table.fake.channel_now()[-1].id == moved.id  # below the others
    assert not table.fake.message(board.id).custom_ids()  # the old one keeps no buttons


async def test_a_claim_posts_the_table_again_with_the_last_claim_highlighted(table):
    await table.open_game(["Ana", "Ben"], "usa")
    state = await _turn(table)
    old = table.fake.last_board()
    state, seat, claims = await _claimable(table, state)
    claim = claims[0]
    await table.play(state, seat, claim)
    new = table.fake.last_board()
    assert new.id != old.id
    assert table.fake.message(old.id).custom_ids() == []  # the old table keeps no buttons
    (_, data), = new.files
    view = json.loads(data[5:])
    assert view["claimed"][str(claim.route)] == seat
    assert view["last_move"]["routes"] == [claim.route]  # handed to the renderer
    assert view["last_move"]["seat"] == seat
    assert "claimed" in new.content


async def test_a_hands_picture_is_given_the_plans_its_text_shows(table):
    """The planner's answer the DM's text shows goes with its hand to the renderer, which
    does not work it out again."""
    await table.open_game(["Ana", "Ben"], "usa")
    state, seat, claims = await _claimable(table, await _turn(table))
    publisher = table.bot.service.publisher
    plain = publisher.renderer
    given = []

    def hand(view, map_id, public=None, plans=None):
        given.append((view, public, plans))
        return plain.hand(view, map_id, public, plans)

    publisher.renderer = dataclasses.replace(plain, hand=hand)
    try:
        await table.play(state, seat, claims[0])
    finally:
        publisher.renderer = plain
    assert given
    for view, public, plans in given:
        assert public is not None and plans == presenters.ticket_plans(public, view)


async def test_a_claims_board_is_drawn_while_its_hand_is(table):
    """The board and the claimer's hand are drawn at once, not one after the other."""
    await table.open_game(["Ana", "Ben"], "usa")
    state, seat, claims = await _claimable(table, await _turn(table))
    publisher = table.bot.service.publisher
    plain = publisher.renderer
    board_started = threading.Event()
    hands_saw_the_board: list[bool] = []

    def hand(view, map_id, public=None, plans=None):  # in a thread: waits for the board
        hands_saw_the_board.append(board_started.wait(timeout=5))
        return plain.hand(view, map_id, public, plans)

    def board(view, last):
        board_started.set()
        return plain.board(view, last)

    publisher.renderer = dataclasses.replace(plain, hand=hand, board=board)
    try:
        await table.play(state, seat, claims[0])
    finally:
        publisher.renderer = plain
    assert hands_saw_the_board == [True]
    assert json.loads(table.fake.last_board().files[0][1][5:])["claimed"][
        str(claims[0].route)] == seat


@pytest.mark.slow
async def test_names_are_escaped_and_every_post_names_whom_it_pings(table):
    await table.open_game(["<@123456789012345678>", "**Bold**_x"], "usa")
    await table.play_to_end()
    posts = table.fake.channel_messages()
    players = set(table.users.values())
    for s in posts:
        assert "<@123456789012345678>" not in s.content, s.content
        assert "**Bold**_x" not in s.content, s.content
        am = s.allowed_mentions
        assert am is not None and am.get("parse") == [], (s.content, am)
        assert set(am.get("users", [])) <= players
    assert any("\\*\\*Bold\\*\\*\\_x" in s.content for s in posts)
    for s in table.fake.sent:  # private messages too never ping by default
        assert s.allowed_mentions is None or s.allowed_mentions.get("parse") == []


@pytest.mark.slow
async def test_five_player_pennsylvania_final_text_is_complete(table):
    names = ["Anastasia", "Bartholomew", "Cleopatra", "Demetrius", "Evangeline"]
    await table.open_game(names, "pennsylvania")
    state = await table.play_to_end()
    final = engine.public_view(state).final
    assert final is not None
    posts = _posts(table)
    start = next(i for i, s in enumerate(posts) if "Final scores" in s.content)
    # The final scores, then the timelapse.
    *parts, lapse = posts[start:]
    assert lapse.files[0][1].startswith(b"TIMELAPSE")
    assert all(len(s.content) <= 2000 for s in parts)
    assert parts[0].files[0][1].startswith(b"FINAL")
    text = "\n".join(s.content for s in parts)
    # (a line longer than a message is cut across two: compare without line breaks)
    assert text.replace("\n", "") == presenters.final_text(
        engine.public_view(state)).replace("\n", "")
    for name in names:
        assert f"{name}'s tickets:" in text
    assert "Winner" in text.splitlines()[-1]
    # With many tickets each (the case that used to be cut at 1,900 characters) the text
    # goes over several messages and nothing is lost.
    many = final.model_copy(update={"players": [
        p.model_copy(update={"tickets": p.tickets * 6}) for p in final.players]})
    long_text = presenters.final_text(engine.public_view(state).model_copy(
        update={"final": many}))
    split = presenters.chunks(long_text)
    assert len(long_text) > 4000 and len(split) >= 3
    assert all(len(part) <= 1900 for part in split)
    assert "".join(split).replace("\n", "") == long_text.replace("\n", "")
    assert split[-1].splitlines()[-1].startswith("Winner")


async def _turn_end_cut_by_a_crash(table, crash):
    """Two blind draws; the post the second one (ending the turn) causes is cut off by a
    crash (see ``FakeDiscord.crash_on_post``); then the bot restarts. Returns who is next."""
    state = await _turn(table)
    user = table.seat_user(state, state.current)
    nxt = table.seat_user(state, 1 - state.current)
    await table.slash(user, "draw", card="deck")
    table.fake.crash_on_post = crash
    await table.slash(user, "draw", card="deck")
    await table.restart()  # start-up publishes what the crash left unposted
    return nxt


async def test_a_crash_after_the_post_repeats_no_post_ping_or_dm(table):
    await table.open_game(["Ana", "Ben"], "usa")
    nxt = await _turn_end_cut_by_a_crash(table, "after")
    pings = [s for s in _posts(table) if f"<@{nxt}>, your turn" in s.content
             and s.allowed_mentions and s.allowed_mentions.get("users")]
    assert len(pings) == 1, [s.content for s in pings]
    turn_dms = [d for d in table.fake.dms(nxt) if "Your turn" in d.content]
    assert len(turn_dms) == 1
    store = await SqliteStorage.open(str(table.db_path))
    try:
        row = await store.game(table.game_id)
        assert row is not None and row.posted_version == row.version
    finally:
        await store.close()


async def test_a_crash_before_the_post_sends_it_at_restart(table):
    await table.open_game(["Ana", "Ben"], "usa")
    nxt = await _turn_end_cut_by_a_crash(table, "before")
    pings = [s for s in _posts(table) if f"<@{nxt}>, your turn" in s.content]
    assert len(pings) == 1
    assert len([d for d in table.fake.dms(nxt) if "Your turn" in d.content]) == 1
    # The table's buttons are the current ones.
    version = (await table.stored_state()).version
    assert f"ttr:{table.game_id}:blind:{version}" in table.fake.last_board().custom_ids()


async def test_a_crash_that_loses_the_writes_held_back_repeats_no_post(table):
    """What SQLite holds back for its next transaction after a turn is posted (the table
    message's row, the message ids, the version posted) is lost in a crash: the restart
    publishes that turn again, sends nothing twice, and the game goes on in the same
    table message."""
    await table.open_game(["Ana", "Ben"], "usa")
    state = await _turn(table)
    user = table.seat_user(state, state.current)
    nxt = table.seat_user(state, 1 - state.current)
    await table.slash(user, "draw", card="deck")
    await table.slash(user, "draw", card="deck")
    board = table.fake.last_board()
    storage = table.bot.service.storage
    assert isinstance(storage, SqliteStorage)
    held = " ".join(sql for sql, _ in storage._later)
    assert "table_messages" in held and "posted_version" in held  # held back...
    storage._later.clear()  # ... and lost: the process died here
    sent = len(table.fake.sent)
    await table.restart()
    assert [s for s in table.fake.sent[sent:] if not s.edit] == []  # no post, ping or DM
    assert len([d for d in table.fake.dms(nxt) if "Your turn" in d.content]) == 1
    state = await table.stored_state()
    latest = table.fake.message(board.id)
    assert f"ttr:{table.game_id}:blind:{state.version}" in latest.custom_ids()
    ex = await table.click(nxt, latest, label="Draw from deck")
    assert "You drew" in ex.text
    assert table.fake.last_board().id == board.id


@pytest.mark.slow
async def test_private_threads_keep_each_hand_up_to_date(table):
    """With the server setting on, each player has a private thread (only them added) whose
    one hand message is edited as the game goes, with buttons that work; DMs are closed
    for Ben, and the channel never shows a hand."""
    store = table.bot.service.storage
    await store.save_server_settings(table.fake.GUILD_ID, ServerSettings(player_threads=True))
    await table.open_game(["Ana", "Ben"], "usa", refuse_dms=("Ben",))
    state = await _turn(table)
    for _ in range(6):
        state = await table.step(prefer="draw-only")
    threads = {tid: users for tid, users in table.fake.thread_members.items()}
    assert sorted(len(u) for u in threads.values()) == [1, 1]
    by_user = {next(iter(u)): tid for tid, u in threads.items()}
    assert set(by_user) == set(table.users.values())
    for uid in table.users.values():
        tid = by_user[uid]
        assert table.fake.channels[tid]["type"] == 12
        posts = [s for s in table.fake.sent if s.channel_id == tid and not s.edit]
        assert len(posts) == 1 and posts[0].kind == "thread" and not posts[0].public
        hand = table.fake.message(posts[0].id)
        seat = table.seat_of(state, uid)
        assert json.loads(hand.files[0][1][4:])["seat"] == seat
        assert json.loads(hand.files[0][1][4:])["hand"] == engine.private_view(state, seat).hand
    assert all(s.kind != "thread" for s in table.fake.channel_messages())
    # The thread's buttons play: the player to act draws from their own thread.
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step(prefer="draw-only")
    uid = table.seat_user(state, state.current)
    hand = table.fake.message(next(s.id for s in table.fake.sent
                                   if s.channel_id == by_user[uid] and not s.edit))
    ex = await table.click(uid, hand, label="Draw from deck")
    assert "You drew" in ex.text and ex.reply.ephemeral
    assert (await table.stored_state()).version == state.version + 1


async def _claimable(table, state):
    """Draw until the player to move can claim: the state then, their seat and claims."""
    while True:
        seat = state.current
        claims = [a for a in engine.legal_actions(state, seat) if isinstance(a, Claim)]
        if claims and state.phase == "turn":
            return state, seat, claims
        state = await table.step(prefer="draw-only")


async def _claim_turn(table):
    """Play until the player to move can claim, then claim; returns the state before."""
    state, seat, claims = await _claimable(table, await _turn(table))
    await table.play(state, seat, claims[0])
    return state


async def test_board_posts_table_only_replaces_the_image_in_place(table):
    store = table.bot.service.storage
    await store.save_server_settings(table.fake.GUILD_ID, ServerSettings(board_posts="table_only"))
    await table.open_game(["Ana", "Ben"], "usa")
    board = table.fake.last_board()
    await _claim_turn(table)
    assert table.fake.last_board().id == board.id
    uploads = [s for s in table.fake.channel_messages() if s.id == board.id and s.uploaded]
    assert len(uploads) == 2  # the first image, then the board after the claim, in place
    assert json.loads(uploads[-1].uploaded[0][1][5:])["claimed"]


async def test_board_posts_every_turn_posts_a_new_table_each_turn(table):
    store = table.bot.service.storage
    await store.save_server_settings(table.fake.GUILD_ID, ServerSettings(board_posts="every_turn"))
    await table.open_game(["Ana", "Ben"], "usa")
    state = await _turn(table)
    tables = {table.fake.last_board().id}
    for _ in range(3):
        user = table.seat_user(state, state.current)
        await table.slash(user, "draw", card="deck")
        await table.slash(user, "draw", card="deck")
        state = await table.stored_state()
        tables.add(table.fake.last_board().id)
        assert table.fake.last_board().files[0][1].startswith(b"BOARD")
    assert len(tables) == 4
