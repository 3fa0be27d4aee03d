"""Issue 27's last rough edges: lobby copies and vote messages that follow what happened,
German card names in images, and the smaller texts."""

from __future__ import annotations

from discord.utils import escape_markdown

import engine
from bot.edge.testing import Mention
from bot.settings.preferences import ServerSettings
from engine.cards import LOCO

LOBBY_CLOSED = "closed after 24 hours without a change"


async def _lobby_with_two_copies(table):
    fake = table.fake
    ana, ben = fake.add_user("Ana"), fake.add_user("Ben")
    first = (await fake.slash(table.bot, ana, "new", map="usa")).reply
    second = (await fake.slash(table.bot, ben, "join")).reply
    assert fake.message(first.id).custom_ids() == [] and second.custom_ids()
    return ana, first, second


async def test_lobby_copies_closed_by_the_idle_sweep_say_so_without_buttons(table):
    """Issue 27 item 9: the idle sweep closed the lobby but its copies still invited a join."""
    _ana, first, second = await _lobby_with_two_copies(table)
    await table.advance(25)
    for copy in (first, second):
        shown = table.fake.message(copy.id)
        assert LOBBY_CLOSED in shown.content and shown.custom_ids() == [], shown.content


async def test_lobby_copies_follow_an_expiry_after_a_restart(table):
    _ana, first, second = await _lobby_with_two_copies(table)
    await table.restart()  # the copies are remembered in the database
    await table.advance(25)
    for copy in (first, second):
        shown = table.fake.message(copy.id)
        assert LOBBY_CLOSED in shown.content and shown.custom_ids() == [], shown.content


async def test_lobby_copies_say_the_host_closed_it(table):
    ana, first, second = await _lobby_with_two_copies(table)
    confirm = (await table.fake.slash(table.bot, ana, "end")).reply
    await table.fake.click(table.bot, ana, confirm, label="End the game")
    for copy in (first, second):
        shown = table.fake.message(copy.id)
        assert "was closed by Ana" in shown.content and shown.custom_ids() == [], shown.content


async def _turn(table):
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step()
    return state


async def test_an_abandon_vote_says_it_passed_in_every_copy(table):
    """Issue 27 item 11: vote messages were never updated after they passed or the game
    ended: their Agree stayed live."""
    await table.open_game(["Ana", "Ben", "Cy"], "usa")
    first = (await table.slash("Ana", "abandon")).reply
    assert "1 of 2 needed" in first.content and first.custom_ids()
    await table.slash("Ben", "abandon")  # a second copy: this vote passes
    shown = table.fake.message(first.id)
    assert "Ana, Ben voted to abandon the game: agreed" in shown.content, shown.content
    assert shown.custom_ids() == []


async def test_an_open_vote_closes_when_the_game_ends_otherwise(table):
    await table.open_game(["Ana", "Ben", "Cy"], "usa")
    vote = (await table.slash("Ben", "abandon")).reply
    confirm = (await table.slash("Ana", "end")).reply
    await table.click("Ana", confirm, label="End the game")
    shown = table.fake.message(vote.id)
    assert "closed: the game is over" in shown.content and shown.custom_ids() == []


async def _ask_undo(table, name):
    """My hand → Undo the last action → Ask the table: the public vote, if it is still open."""
    hand = (await table.click(name, table.fake.last_board(), label="My hand")).reply
    confirm = (await table.click(name, hand, label="Undo the last action")).reply
    ex = await table.click(name, confirm, label="Ask the table")
    return next((s for s in ex.sent if s.public and "vote" in s.content), None)


async def test_an_undo_vote_says_the_game_moved_on_or_that_it_was_undone(table):
    await table.open_game(["Ana", "Ben", "Cy"], "usa")
    state = await _turn(table)
    await table.play(state, state.current, engine.DrawBlind())
    actor = state.config.players[state.current]
    vote = await _ask_undo(table, actor)
    await table.step()  # someone acts: the vote is about an old version now
    shown = table.fake.message(vote.id)
    assert "closed: the game moved on" in shown.content and shown.custom_ids() == []
    # A vote that passes through another copy: the first says it was undone.
    state = await _turn(table)
    await table.play(state, state.current, engine.DrawBlind())
    actor = state.config.players[state.current]
    first = await _ask_undo(table, actor)
    others = [n for n in ("Ana", "Ben", "Cy") if n != actor]
    assert await _ask_undo(table, others[0]) is None  # the second of three: undone
    shown = table.fake.message(first.id)
    assert "Undone" in shown.content and shown.custom_ids() == [], shown.content


async def test_an_action_with_no_open_vote_reads_the_games_votes_once(table):
    """The usual action has nothing to close: one read of the game's open votes, not one to
    look for a kick vote and another in ``close_votes``."""
    await table.open_game(["Ana", "Ben"], "usa")
    state = await _turn(table)
    storage = table.bot.service.storage
    read, reads = storage.bot_state, []

    async def counted(key):
        reads.append(key)
        return await read(key)
    storage.bot_state = counted
    await table.play(state, state.current, engine.DrawBlind())
    assert reads.count(f"votes:{table.game_id}") == 1, reads


async def test_nordic_takes_a_face_up_locomotive_as_the_second_card(table):
    """RULES.md §4: on Nordic a face-up locomotive is one card like any other; the board
    disabled it as the second card."""
    await table.open_game(["Ana", "Ben"], "nordic")
    state = await _turn(table)
    for _ in range(200):
        if state.phase == "turn" and LOCO in state.market and engine.DrawBlind() in (
                engine.legal_actions(state, state.current)):
            break
        state = await table.step(prefer="draw-only")
    else:
        raise AssertionError("no locomotive came face up")
    await table.play(state, state.current, engine.DrawBlind())  # the first card, blind
    second = await table.stored_state()
    assert second.phase == "second_draw"
    slot = second.market.index(LOCO)
    user = table.seat_user(second, second.current)
    board = table.fake.last_board()
    button = board.control(custom_id=f"ttr:{table.game_id}:up:{slot}.{second.version}")
    assert not button.get("disabled"), button
    await table.click(user, board, custom_id=button["custom_id"])
    after = await table.stored_state()
    assert after.version == second.version + 1 and after.hands[second.current][LOCO] == (
        second.hands[second.current][LOCO] + 1)


async def test_nordic_rules_say_what_locomotives_do_there(table):
    """RULES.md §4: on Nordic a face-up locomotive is one card, locomotives pay only on
    tunnels and ferries, any 3 cards stand in for a ferry's locomotive, and any 4 for one
    card on Murmansk–Lieksa; /ttr rules said the base game's 'counts as two', 'wild'."""
    fake = table.fake
    me = fake.add_user("Ana")
    text = (await fake.slash(table.bot, me, "rules", map="nordic")).text
    assert "counts as both" not in text and "wild" not in text, text
    assert "one card like any other" in text and "only on tunnels and ferries" in text
    assert "Any 3 cards may stand in for one locomotive" in text
    assert "Murmansk–Lieksa: any 4 cards" in text or "Lieksa–Murmansk: any 4 cards" in text
    usa = (await fake.slash(table.bot, me, "rules", map="usa")).text
    assert "counts as both" in usa and "locomotives are wild" in usa
    fake.locales[me] = "de"
    german = (await fake.slash(table.bot, me, "rules", map="nordic")).text
    assert "Karte wie jede andere" in german and "nur auf Tunneln und Fähren" in german
    assert "Joker" not in german and "zählt als beide" not in german
    assert "je 3 beliebige Karten eine Lokomotive" in german and "je 4 beliebige" in german


async def test_private_refusals_escape_player_names(table):
    """Issue 27 item 14: a name like '*Ana*' turned a refusal's text italic."""
    await table.open_game(["*Ana*", "__Ben__"], "usa")
    table.fake.permissions[table.users["__Ben__"]] = 1 << 10  # view channel only
    ex = await table.slash("__Ben__", "end")
    assert ex.reply.ephemeral and r"Only the host (\*Ana\*)" in ex.text, ex.text
    state = await _turn(table)
    await table.play(state, state.current, engine.DrawBlind())
    other = state.config.players[1 - state.current]
    hand = (await table.click(other, table.fake.last_board(), label="My hand")).reply
    confirm = (await table.click(other, hand, label="Undo the last action")).reply
    name = state.config.players[state.current]
    assert f"{escape_markdown(name)}'s last move" in confirm.content, confirm.content


async def test_the_channel_says_once_that_a_player_gets_no_dms(table):
    """Issue 27 item 14: 'I cannot DM you' came with every turn of a player refusing DMs."""
    await table.open_game(["Ana", "Ben"], "usa", refuse_dms=("Ben",))
    ben = table.users["Ben"]
    await _turn(table)
    for _ in range(12):
        await table.step(prefer="draw-only")
    notices = [s for s in table.fake.channel_messages()
               if f"<@{ben}>: I cannot DM you" in s.content and not s.edit]
    assert len(notices) == 1, [s.content for s in notices]


async def test_private_threads_replace_the_hand_dm_of_each_turn(table):
    """With ``player_threads`` on, the hand still came by DM every turn as well."""
    store = table.bot.service.storage
    await store.save_server_settings(table.fake.GUILD_ID, ServerSettings(player_threads=True))
    await table.open_game(["Ana", "Ben"], "usa")
    state = await _turn(table)
    before = {u: len(table.fake.dms(u)) for u in table.users.values()}
    for _ in range(8):
        state = await table.step(prefer="draw-only")
    assert state.phase in ("turn", "second_draw")
    assert {u: len(table.fake.dms(u)) for u in table.users.values()} == before


async def test_a_member_seated_again_takes_their_seat_back(table):
    """Issue 27 item 14: replacing a member who resigned into their own seat said
    'Ben takes over Ben's seat'."""
    await table.open_game(["Ana", "Ben"], "usa")
    await _turn(table)
    ex = await table.slash("Ben", "seat resign")
    await table.click("Ben", ex.reply, label="Resign")
    ex = await table.slash("Ana", "seat replace", member=Mention(table.users["Ben"]))
    line = [s.content for s in ex.sent if s.public and "🔁" in s.content]
    assert line and "Ben takes their seat back" in line[0], line


async def test_a_replaced_member_is_told_privately(table):
    await table.open_game(["Ana", "Ben"], "usa")
    await _turn(table)
    dee = table.fake.add_user("Dee")
    info = await table.bot.service.info(table.game_id)
    seat = info.seat_of(table.users["Ben"])
    before = len(table.fake.dms(table.users["Ben"]))
    await table.slash("Ana", "seat replace", member=Mention(dee), seat=str(seat + 1))
    told = table.fake.dms(table.users["Ben"])[before:]
    assert [m.content for m in told] == [
        f"🔁 You no longer play in game #{table.game_id}: the host or an admin gave your seat "
        "to Dee."]


async def test_a_command_in_the_parent_channel_points_to_the_games_thread(table):
    """Issue 27 item 14: `/ttr` in the channel a game's thread was opened from said only
    'There is no game in this channel'."""
    parent = table.channel_id
    await table.open_game(["Ana", "Ben"], "usa", thread=True)
    assert table.channel_id != parent
    ex = await table.fake.slash(table.bot, table.users["Ana"], "hand", channel_id=parent)
    assert ex.reply.ephemeral
    assert f"Game #{table.game_id} is played in its thread <#{table.channel_id}>" in ex.text


async def test_rails_and_sails_asks_for_the_pieces_once_in_a_dm(table):
    """Issue 27 item 14: a player who kept their tickets in the DM got the piece split there
    twice: in the answer, and in a new DM."""
    await table.open_game(["Ana", "Ben"], "world")
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step()
    for user in table.users.values():
        asked = [m for m in table.fake.dms(user) if not m.edit and any(
            f"ttr:{table.game_id}:pick:" in c for c in table.fake.message(m.id).custom_ids()
            + m.custom_ids())]
        assert len(asked) <= 1, [m.content[:80] for m in asked]
