"""Ending, abandoning, resigning, replacing, autopilot and computer seats in the lobby:
nothing stays locked, no channel stays blocked, permissions are checked when a step runs."""

from __future__ import annotations

import json

import pytest

import engine
from bot.edge.testing import Mention
from bot.storage.api import Storage
from tests.bot.conftest import BACKENDS


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Every test here runs on SQLite and on PostgreSQL."""
    return request.param

NO_PERMISSIONS = 1 << 10  # view channel only
MANAGE_CHANNELS = 1 << 4


async def _started(table, names=("Ana", "Ben", "Cy"), map_id="usa", steps=6):
    await table.open_game(list(names), map_id)
    for name in names[1:]:
        table.fake.permissions[table.users[name]] = NO_PERMISSIONS
    for _ in range(steps):
        await table.step()
    return await table.stored_state()


async def _hand_button(table, name, label):
    """Press **My hand**, then one of the seat's own buttons under it."""
    hand = (await table.click(name, table.fake.last_board(), label="My hand")).reply
    return await table.click(name, hand, label=label)


async def _ask_undo(table, name):
    """Undo under My hand; the undo needs the table: confirm, and return the public vote."""
    confirm = (await _undo(table, name)).reply
    assert confirm.ephemeral and "Ask the table?" in confirm.content, confirm.content
    ex = await table.click(name, confirm, label="Ask the table")
    assert table.fake.message(confirm.id).custom_ids() == []  # asked once
    (vote,) = [s for s in ex.sent if s.public and "vote" in s.content]
    return vote


async def _undo(table, name):
    return await _hand_button(table, name, "Undo the last action")


async def _channel_is_free(table):
    ex = await table.slash("Ana", "new", map="usa")
    assert "Players (1/" in ex.text, ex.text
    await table.slash("Ana", "end")  # tidy: the new lobby is closed again
    ex = await table.click("Ana", table.fake.message(
        [s for s in table.fake.sent if "End game" in s.content][-1].id), label="End the game")


async def test_end_needs_the_host_or_an_admin_checked_when_it_runs(table):
    state = await _started(table)
    ex = await table.slash("Ben", "end")
    assert ex.reply.ephemeral and "Only the host (Ana)" in ex.text
    cy = table.users["Cy"]
    table.fake.permissions[cy] = MANAGE_CHANNELS
    confirm = (await table.slash("Cy", "end")).reply
    assert confirm.ephemeral and "End game" in confirm.content
    table.fake.permissions[cy] = NO_PERMISSIONS  # the right was taken away meanwhile
    ex = await table.click("Cy", confirm, label="End the game")
    assert "Only the host (Ana) or a member with Manage" in ex.text
    assert (await table.bot.service.storage.game(table.game_id)).status == "running"
    confirm = (await table.slash("Ana", "end")).reply
    board = table.fake.last_board()
    ex = await table.click("Ana", confirm, label="End the game")
    posts = [s for s in ex.sent if s.public]
    assert len(posts) == 1 and "was ended by Ana" in posts[0].content
    # The public scores only: nobody wins a game ended early, and the tickets stay secret.
    assert "Scores as they stood" in posts[0].content and not posts[0].files
    assert "Winner" not in posts[0].content and "tickets:" not in posts[0].content
    assert "👑" not in posts[0].content
    row = await table.bot.service.storage.game(table.game_id)
    assert row.status == "ended" and row.version == state.version  # kept as it was
    ex = await table.click(table.seat_user(state, state.current), board, label="Draw from deck")
    assert "The game is over" in ex.text
    ex = await table.slash("Ben", "status")
    assert "was ended" in ex.text
    ex = await table.slash("Ben", "draw", card="deck")
    assert "no game in this channel" in ex.text
    assert not table.bot.service.busy(table.game_id)
    await _channel_is_free(table)


@pytest.mark.slow
async def test_an_abandon_vote_needs_a_majority_and_survives_a_restart(table):
    await _started(table)
    ex = await table.slash("Ana", "abandon")
    vote = ex.reply
    assert not vote.ephemeral and "1 of 2 needed" in vote.content
    ex = await table.click("Ana", vote, label="Agree")  # voting twice counts once
    assert "1 of 2 needed" in table.fake.message(vote.id).content
    outsider = table.fake.add_user("Dee")
    ex = await table.click(outsider, vote, label="Agree")
    assert "not playing" in ex.text
    await table.restart()
    ex = await table.click("Cy", vote, label="Agree")
    assert "abandoned by a vote" in ex.text
    assert table.fake.message(vote.id).custom_ids() == []
    assert "agreed" in table.fake.message(vote.id).content  # the vote says it passed
    assert "press **Agree**" not in table.fake.message(vote.id).content
    row = await table.bot.service.storage.game(table.game_id)
    assert row.status == "abandoned"
    (h,) = [h for h in await table.bot.service.storage.history(table.game_id)
            if h.kind == "abandoned"]
    assert sorted(h.detail["voters"]) == sorted([table.users["Ana"], table.users["Cy"]])
    await _channel_is_free(table)


@pytest.mark.slow
async def test_resign_then_replace_and_play_to_the_end(table):
    state = await _started(table, names=("Ana", "Ben"), steps=8)
    routes_before = list(state.owner)
    ex = await table.slash("Ben", "seat resign")
    assert ex.reply.ephemeral and "for good" in ex.text
    ex = await table.click("Ben", ex.reply, label="Resign")
    assert any("Ben resigned" in s.content for s in ex.sent if s.public)
    info = await table.bot.service.info(table.game_id)
    ben = next(s for s in info.seats if s.name == "Ben")
    assert not ben.person and ben.controller == "computer:normal"
    assert list((await table.stored_state()).owner) == routes_before  # the routes stay
    ex = await table.slash("Ben", "hand")
    assert "not playing" in ex.text
    # Only the host (or an admin) replaces; a seated member cannot take a second seat.
    cy = table.fake.add_user("Cy")
    table.fake.permissions[cy] = NO_PERMISSIONS
    ex = await table.fake.slash(table.bot, cy, "seat replace", member=Mention(cy))
    assert "Only the host" in ex.text
    ex = await table.slash("Ana", "seat replace", member=Mention(table.users["Ana"]))
    assert "already has a seat" in ex.text
    ex = await table.slash("Ana", "seat replace", member=Mention(cy))
    assert ex.reply.ephemeral and f"plays seat {ben.seat + 1}" in ex.text
    line = [s for s in ex.sent if s.public and "takes over Ben's seat" in s.content]
    assert len(line) == 1 and "Your hand" not in line[0].content
    (dm,) = [s for s in ex.sent if s.kind == "dm"]
    assert dm.user_id == cy and "Your hand" in dm.content  # the hand, privately
    kinds = [h.kind for h in await table.bot.service.storage.history(table.game_id)]
    assert kinds == ["resign", "replace"]
    table.users["Ben"] = cy  # the engine still names the seat Ben: Cy plays it now
    version = (await table.stored_state()).version
    final = await table.play_to_end()
    assert final.phase == "game_over"
    # The final scores (text and image) name the seat's player now, not the one who left.
    (scores,) = [s for s in table.fake.channel_messages() if "Final scores" in s.content]
    assert "Cy" in scores.content
    (_, image), = [f for f in scores.uploaded if f[1].startswith(b"FINAL")]
    names = [p["name"] for p in json.loads(image[5:])["players"]]
    assert "Cy" in names and "Ben" not in names
    by_seat = {r.version: r.user_id for r in await table.bot.service.storage.actions(
        table.game_id)}
    later = [u for v, u in by_seat.items() if v > version]
    assert cy in later and ben.user_id not in by_seat.values()  # history: who played what
    assert not table.bot.service.busy(table.game_id)


async def test_the_last_member_resigning_abandons_the_game(table):
    await _started(table, names=("Ana", "Ben"), steps=4)
    for name in ("Ben", "Ana"):
        ex = await table.slash(name, "seat resign")
        ex = await table.click(name, ex.reply, label="Resign")
    assert any("abandoned: no member is left" in s.content for s in ex.sent if s.public)
    assert not any("by a vote" in s.content for s in ex.sent)  # nobody voted
    assert (await table.bot.service.storage.game(table.game_id)).status == "abandoned"
    await _channel_is_free(table)


async def test_replace_a_present_player_by_naming_the_seat(table):
    state = await _started(table, names=("Ana", "Ben"), steps=4)
    dee = table.fake.add_user("Dee")
    ex = await table.slash("Ana", "seat replace", member=Mention(dee))
    assert "Say which seat" in ex.text
    got = await table.fake.autocomplete(table.bot, table.users["Ana"], "seat replace", "seat",
                                        seat="ben", member=Mention(dee))
    (choice,) = got
    ex = await table.slash("Ana", "seat replace", member=Mention(dee), seat=choice["value"])
    info = await table.bot.service.info(table.game_id)
    seat = next(s.seat for s in info.seats if s.user_id == dee)
    assert state.config.players[seat] == "Ben" and info.seats[seat].name == "Dee"
    ex = await table.slash("Ben", "hand")
    assert "not playing" in ex.text


async def test_autopilot_hands_the_seat_over_and_back(table):
    await _started(table, names=("Ana", "Ben"), steps=2)
    old_hand = (await table.click("Ben", table.fake.last_board(), label="My hand")).reply
    ex = await table.click("Ben", old_hand, label="Autopilot")
    assert not ex.reply.ephemeral and "computer player" in ex.text
    info = await table.bot.service.info(table.game_id)
    seat = info.seat_of(table.users["Ben"])
    assert info.controller(seat) != "human" and info.seats[seat].person
    hand = (await table.click("Ben", table.fake.last_board(), label="My hand")).reply
    assert "Take my seat back" in str(hand.message["components"])
    ex = await table.click("Ben", old_hand, label="Autopilot")  # an old button
    assert "already" in ex.text
    ex = await table.slash("Ben", "tickets")
    assert "Take my seat back" in ex.text
    ex = await table.slash("Ben", "seat autopilot", mode="off")
    assert "plays their seat again" in ex.text
    assert (await table.bot.service.info(table.game_id)).controller(seat) == "human"
    kinds = [h.detail["on"] for h in await table.bot.service.storage.history(table.game_id)]
    assert kinds == [True, False]


async def test_computer_seats_in_the_lobby(table):
    fake = table.fake
    ana, ben = fake.add_user("Ana"), fake.add_user("Ben")
    lobby = (await fake.slash(table.bot, ana, "new", map="usa", players=3)).reply
    lobby = (await fake.slash(table.bot, ben, "join")).reply  # the newest copy has buttons
    addbot = f"ttr:{table.game_id or 1}:addbot"
    ex = await fake.choose(table.bot, ben, lobby, ["hard"], prefix=addbot)
    assert "Only the host (Ana)" in ex.text
    ex = await fake.choose(table.bot, ana, lobby, ["hard"], prefix=addbot)
    assert "Ana, Ben, Bot 1 (hard)" in fake.message(lobby.id).content
    # Full: the lobby offers no computer to add, and a click on an older copy is refused.
    assert not any(c.startswith(addbot) for c in fake.message(lobby.id).custom_ids())
    ex = await fake.feed(table.bot, fake.component_payload(ana, lobby, addbot, 3, ["easy"]))
    assert "full" in ex.text
    ex = await fake.feed(table.bot, fake.component_payload(ana, lobby, addbot, 3, ["robot"]))
    assert "Choose a level" in ex.text
    await fake.click(table.bot, ana, lobby, label="Leave")  # Ben hosts now
    ex = await fake.slash(table.bot, ana, "addbot", level="easy")  # the slash command too
    assert "Only the host (Ben)" in ex.text
    ex = await fake.slash(table.bot, ben, "addbot", level="easy")
    assert "Ben, Bot 1 (hard), Bot 2 (easy)" in ex.text
    lobby = ex.reply
    await fake.click(table.bot, ben, lobby, label="Leave")  # only computers are left
    assert "cancelled" in fake.message(lobby.id).content
    ex = await fake.slash(table.bot, ana, "new", map="usa")  # the channel is free
    assert "game #2" in ex.text
    # A lobby of computers alone cannot start (defended in the service too).
    service = table.bot.service
    await service.add_computer(2, ana, "easy")

    async def computers_alone(db):
        await db.execute("DELETE FROM seats WHERE game_id = 2 AND user_id = ?", (ana,))
        await db.execute("INSERT INTO seats (game_id, seat, user_id, name, controller) "
                         "VALUES (2, 5, -9, 'x', 'computer:easy')")
    await service.storage._transact(computers_alone)
    service._forget(2)
    ex = await fake.slash(table.bot, ana, "start")
    assert "computer players alone are refused" in ex.text


async def test_a_started_game_with_a_computer_seat_deals_it_in(table):
    fake = table.fake
    ana = fake.add_user("Ana")
    lobby = (await fake.slash(table.bot, ana, "new", map="usa")).reply
    await fake.choose(table.bot, ana, lobby, ["normal"], prefix="ttr:1:addbot")
    ex = await fake.slash(table.bot, ana, "start")
    assert "has started" in ex.text
    info = await table.bot.service.info(1)
    bot_seat = next(s for s in info.seats if not s.person)
    assert bot_seat.controller == "computer:normal" and info.state.n_players == 2
    assert all(f"<@{s.user_id}>" not in m.content for m in fake.channel_messages()
               for s in info.seats if not s.person)  # nobody is pinged for the computer
    assert not any(m.user_id is not None and m.user_id < 0 for m in fake.sent)


async def test_an_idle_lobby_never_blocks_its_channel(table):
    fake = table.fake
    ana, ben = fake.add_user("Ana"), fake.add_user("Ben")
    await fake.slash(table.bot, ana, "new", map="usa")
    ex = await fake.slash(table.bot, ben, "new", map="usa")
    assert "already has a game" in ex.text
    store: Storage = table.bot.service.storage
    await store._write("UPDATE games SET updated_at = updated_at - 2 * 86400")
    ex = await fake.slash(table.bot, ben, "new", map="europe")
    # A new game (PostgreSQL may skip the id the refused one took: ids need not be dense).
    assert "Ticket to Ride: Europe** — game #" in ex.text
    assert (await store.game(1)).status == "cancelled"
    assert [h.kind for h in await store.history(1)] == ["expired"]
    assert await store.expire_lobbies() == []  # game 2 is fresh


async def test_an_idle_lobby_closes_by_itself_and_says_so(table):
    """The scheduler's sweep closes a lobby a day after its last change, without anyone
    typing /ttr new; its Join button then answers that the lobby is gone."""
    fake = table.fake
    ana, ben = fake.add_user("Ana"), fake.add_user("Ben")
    lobby = (await fake.slash(table.bot, ana, "new", map="usa")).reply
    store: Storage = table.bot.service.storage
    assert await store.next_lobby_expiry() == table.clock.now() + 24 * 3600
    assert await table.advance(23) == []
    sent = await table.advance(2)
    assert [s.content for s in sent if not s.edit] == [
        "⌛ The lobby of game #1 closed after 24 hours without a change. `/ttr new` opens a "
        "new one."]
    assert sent[0].public and (await store.game(1)).status == "cancelled"
    assert await store.next_lobby_expiry() is None and await table.advance(48) == []
    shown = fake.message(lobby.id)  # the lobby itself says so, without its buttons
    assert "closed after 24 hours" in shown.content and shown.custom_ids() == []
    # A Join from a client that still shows the old buttons:
    ex = await fake.feed(table.bot, fake.component_payload(ben, lobby, "ttr:1:join"))
    assert (await store.game(1)).status == "cancelled" and len(await store.seats(1)) == 1
    assert ex.text == "You cannot join: this game is not open for joining."
    await fake.slash(table.bot, ben, "new", map="usa")  # the channel is free at once
    assert (await store.active_game(lobby.channel_id)) is not None


async def test_ending_a_lobby(table):
    fake = table.fake
    ana, ben = fake.add_user("Ana"), fake.add_user("Ben")
    fake.permissions[ben] = NO_PERMISSIONS
    await fake.slash(table.bot, ana, "new", map="usa")
    await fake.slash(table.bot, ben, "join")
    ex = await fake.slash(table.bot, ben, "end")
    assert "Only the host" in ex.text
    ex = await fake.slash(table.bot, ana, "end")
    ex = await fake.click(table.bot, ana, ex.reply, label="End the game")
    assert any("was closed by Ana" in s.content for s in ex.sent if s.public)
    assert not any("Scores" in s.content for s in ex.sent)
    assert (await table.bot.service.storage.game(1)).status == "cancelled"
    ex = await fake.slash(table.bot, ben, "seat resign")
    assert "no game" in ex.text


async def test_undo_an_action_that_revealed_nothing_by_its_player_alone(table):
    await table.open_game(["Ana", "Ben"], "usa")
    before = await table.stored_state()
    state = await table.step()  # someone keeps their first tickets: nothing is revealed
    last = (await table.bot.service.storage.actions(table.game_id))[-1]
    actor = next(n for n, u in table.users.items() if u == last.user_id)
    other = "Ben" if actor == "Ana" else "Ana"
    assert state.version == before.version + 1
    ex = await _undo(table, actor)
    assert "Undone" in ex.text, ex.text
    assert any("was undone" in s.content for s in ex.sent if s.public)
    after = await table.stored_state()
    assert after.version == before.version + 2  # the undo is a new version
    assert _but_version(after) == _but_version(before)
    await _snapshot_is_a_replay(table, after)
    ex = await _undo(table, other)
    assert "nothing to undo" in ex.text
    h = [h for h in await table.bot.service.storage.history(table.game_id) if h.kind == "undo"]
    assert len(h) == 1 and h[0].user_id == table.users[actor]


@pytest.mark.slow
async def test_undo_of_a_draw_needs_the_table(table):
    await table.open_game(["Ana", "Ben", "Cy"], "usa")
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step()
    before = state
    actor = state.config.players[state.current]
    await table.play(state, state.current, engine.DrawBlind())  # a card off the deck
    drawn = await table.stored_state()
    assert drawn.version == before.version + 1
    vote = await _ask_undo(table, actor)
    assert not vote.ephemeral and "1 of 2 needed" in vote.content
    assert f"{actor}'s last move (drawing from the deck)" in vote.content
    others = [n for n in ("Ana", "Ben", "Cy") if n != actor]
    await table.restart()  # the vote is stored
    ex = await table.click(others[0], vote, label="Agree")
    assert "Undone" in ex.text
    after = await table.stored_state()
    assert _but_version(after) == _but_version(before)
    await _snapshot_is_a_replay(table, after)
    assert table.fake.message(vote.id).custom_ids() == []  # the vote is closed
    rows = await table.bot.service.storage.actions(table.game_id)
    # The log only grew: the draw stays, and the undo that takes it back follows it.
    assert [(r.version, r.undoes) for r in rows[-2:]] == [
        (before.version + 1, None), (before.version + 2, before.version + 1)]
    assert rows[-1].user_id == table.users[others[0]] and rows[-1].seat == rows[-2].seat
    await table.play_to_end()  # the game goes on from the restored state


async def test_a_log_with_undos_rebuilds_the_game_after_a_restart(table):
    """With no snapshot at the game's version, a restarted bot replays the log, its undo
    rows included, to the very state the undo left; play goes on at growing versions."""
    await table.open_game(["Ana", "Ben"], "usa")
    before = await table.stored_state()
    await table.step()
    last = (await table.bot.service.storage.actions(table.game_id))[-1]
    actor = next(n for n, u in table.users.items() if u == last.user_id)
    assert "Undone" in (await _undo(table, actor)).text
    undone = await table.stored_state()
    await table.bot.service.storage.save_snapshot(table.game_id, 0, "{}")  # a lost snapshot
    await table.restart()
    info = await table.bot.service.info(table.game_id)
    assert info.state is not None and info.state.to_snapshot() == undone.to_snapshot()
    assert _but_version(info.state) == _but_version(before)
    state = await table.step()
    assert state.version == before.version + 3


async def test_a_stale_undo_vote_is_refused(table):
    await table.open_game(["Ana", "Ben", "Cy"], "usa")
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step()
    await table.play(state, state.current, engine.DrawBlind())
    actor = state.config.players[state.current]
    vote = await _ask_undo(table, actor)
    agree = vote.control(label="Agree")["custom_id"]
    await table.step()  # someone acts: the vote is about an old version now
    assert table.fake.message(vote.id).custom_ids() == []  # it says so (issue 27 item 11)
    other = next(n for n in ("Ana", "Ben", "Cy") if n != actor)
    # An Agree from a client that still shows the old button:
    ex = await table.fake.feed(table.bot, table.fake.component_payload(
        table.users[other], vote, agree))
    assert "out of date" in ex.text


async def _snapshot_is_a_replay(table, state):
    rows = await table.bot.service.storage.actions(table.game_id)
    replayed = engine.replay(state.config, [
        (r.seat, engine.LOG_ADAPTER.validate_json(r.action)) for r in rows])
    assert replayed.to_snapshot() == state.to_snapshot()
    assert json.loads(json.dumps(state.to_snapshot())) == state.to_snapshot()


def _but_version(state):
    """The snapshot apart from the version (an undo reaches an earlier state anew)."""
    return {**state.to_snapshot(), "version": None}


async def test_a_host_who_resigns_passes_the_role_on(table):
    await _started(table, steps=3)
    ex = await table.slash("Ana", "seat resign")
    await table.click("Ana", ex.reply, label="Resign")
    info = await table.bot.service.info(table.game_id)
    first = next(s for s in info.seats if s.person)
    assert info.row.host_id == first.user_id != table.users["Ana"]
    name = first.name
    ex = await table.slash(name, "end")  # the new host has no admin rights, and may end it
    ex = await table.click(name, ex.reply, label="End the game")
    assert (await table.bot.service.storage.game(table.game_id)).status == "ended"


async def test_a_seat_can_be_vacated_for_another_reason(table):
    state = await _started(table, steps=3)
    seat = next(s for s in range(3) if state.config.players[s] == "Cy")
    info = await table.bot.service.vacate(table.game_id, seat, kind="kick")
    assert not info.seats[seat].person
    (h,) = await table.bot.service.storage.history(table.game_id)
    assert (h.kind, h.seat, h.user_id, h.detail["from_user"]) == (
        "kick", seat, None, table.users["Cy"])


async def test_after_an_undo_the_channel_tells_the_undo_and_the_turn_played_again(table):
    """The undo is a new version, told with the board as it is after it; the claim played
    again is a new version too, and told again (versions only grow: no posting of an
    undone version is forgotten or reused)."""
    await table.open_game(["Ana", "Ben"], "usa")
    storage = table.bot.service.storage
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step()
    claim = next(a for a in engine.legal_actions(state, state.current)
                 if isinstance(a, engine.Claim))
    actor = state.config.players[state.current]
    await table.play(state, state.current, claim)
    claimed = "\n".join(s.content for s in table.fake.channel_now())
    boards = len([s for s in table.fake.sent if s.public and s.files and not s.edit])
    ex = await _undo(table, actor)
    assert "Undone" in ex.text, ex.text
    assert (await storage.table_message(table.game_id)).version == state.version + 2
    told = "\n".join(s.content for s in table.fake.channel_now())
    assert "was undone" in told
    assert len([s for s in table.fake.sent if s.public and s.files and not s.edit]) == boards + 1
    await table.play(state, state.current, claim)  # again, at a new version
    again = "\n".join(s.content for s in table.fake.channel_now())
    assert (await storage.table_message(table.game_id)).version == state.version + 3
    assert again.count(" claimed ") == claimed.count(" claimed ") + 1, again
