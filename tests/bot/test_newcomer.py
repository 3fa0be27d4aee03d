"""A newcomer's first game (issue 27): every turn by buttons and selects alone."""

from __future__ import annotations

import pytest

import engine
from bot.play import presenters
from engine import BuildStation, Claim
from engine.phases import Phase
from maps import load_map, map_ids


@pytest.mark.slow
@pytest.mark.parametrize("map_id", map_ids())
async def test_a_whole_game_by_buttons_alone_on_every_map(table, map_id):
    """After ``/ttr new``, three members (two on Nordic) join, start and play to the end
    without typing a command: claims, stations and harbors through the board's buttons."""
    names = ["Ana", "Ben"] if map_id == "nordic" else ["Ana", "Ben", "Cy"]
    table.buttons_only = True
    await table.open_game(names, map_id)
    state = await table.play_to_end(prefer="harbors" if map_id == "world" else "tunnels")
    assert state.phase == "game_over"
    assert table.typed == ["new"]
    assert table.counts.get("claim", 0) >= 5
    if map_id == "europe":
        assert table.counts.get("build_station", 0) >= 1
    if map_id == "world":
        assert table.counts.get("build_harbor", 0) >= 1
    # A typical claim takes at most 3 clicks: the button, the route, the colour if asked.
    claims = table.clicks["claim"]
    assert sorted(claims)[len(claims) // 2] <= 3, claims
    table.assert_no_secrets_before_final()


async def _turn(table, ready=lambda legal: True, prefer="draw-only"):
    """Play on until the current player is at the start of a turn where ``ready(legal)``."""
    state = await table.stored_state()
    for _ in range(400):
        if state.phase == "turn" and ready(engine.legal_actions(state, state.current)):
            return state
        state = await table.step(prefer=prefer)
    raise AssertionError("no such turn came")


def _claims(legal):
    by_route = {}
    for a in legal:
        if isinstance(a, Claim):
            by_route.setdefault(a.route, []).append(a)
    return by_route


async def test_every_turn_prompt_names_the_claim_button(table):
    """The channel prompt, the turn DM, My hand and /ttr rules say how to claim."""
    await table.open_game(["Ana", "Ben"], "europe")
    state = await _turn(table)
    user = table.seat_user(state, state.current)
    board = table.fake.last_board()
    for text in (board.content, table.fake.dms(user)[-1].content,
                 (await table.click(user, board, label="My hand")).text,
                 (await table.slash(user, "rules")).text):
        assert "**Claim a route**" in text and "**Build a station**" in text, text
        assert "`/ttr claim`" in text and "**Draw tickets**" in text, text
    assert [c["label"] for c in board.controls()][-3:] == [
        "Claim a route", "Build a station", "My hand"]
    hand = await table.click(user, board, label="My hand")
    assert "Claim a route" in [c.get("label") for c in hand.reply.controls()]


async def test_a_claim_in_two_clicks_and_the_colour_only_when_it_matters(table):
    """Claim → a private list of exactly the payable routes (paged under 25) → the route:
    claimed at once if one colour pays, else a choice of the colours that can."""
    await table.open_game(["Ana", "Ben"], "europe")

    def several(legal):
        return len(_claims(legal)) > 25 and any(len(w) > 1 for w in _claims(legal).values())
    state = await _turn(table, several)
    user = table.seat_user(state, state.current)
    by_route = _claims(engine.legal_actions(state, state.current))
    picker = (await table.click(user, table.fake.last_board(), label="Claim a route")).reply
    assert picker.ephemeral and "Page 1 of" in picker.content
    listed = []
    for page in range(1, 10):
        picker = table.fake.message(picker.id)
        (select,) = [c for c in picker.controls() if c["type"] == 3]
        assert 1 <= len(select["options"]) <= 25
        listed += [o["value"] for o in select["options"]]
        if not any(c.startswith(f"ttr:{table.game_id}:claimpg:{page}.")
                   for c in picker.custom_ids()):
            break
        await table.click(user, picker, prefix=f"ttr:{table.game_id}:claimpg:{page}.")
    assert sorted(listed) == sorted(map(str, by_route))  # each payable route, once
    # The routes for the player's tickets come first.
    useful = [o for o in select["options"] if o.get("description", "").startswith("🎫")]
    assert all(o.get("description", "").startswith("🎫") for o in select["options"][:len(useful)])
    route, ways = next((r, w) for r, w in by_route.items() if len(w) > 1)
    ex = await table.fake.choose(table.bot, user, picker, [str(route)],
                                 prefix=f"ttr:{table.game_id}:claimto:")
    asked = table.fake.message(picker.id)
    (select,) = [c for c in asked.controls() if c["type"] == 3]
    assert len(select["options"]) == len(ways)
    assert (await table.stored_state()).version == state.version  # nothing claimed yet
    choice = select["options"][-1]["value"]
    ex = await table.fake.choose(table.bot, user, asked, [choice],
                                 prefix=f"ttr:{table.game_id}:claimpay:")
    after = await table.stored_state()
    assert after.version == state.version + 1, ex.text
    assert after.owner[after.board.route_index[route]] == state.current or after.phase == "tunnel"


async def test_the_claim_list_refuses_the_wrong_player_and_an_old_list(table):
    await table.open_game(["Ana", "Ben"], "usa")
    state = await _turn(table, lambda legal: any(len(w) == 1 for w in _claims(legal).values()))
    me, other = table.seat_user(state, state.current), table.seat_user(state, 1 - state.current)
    board = table.fake.last_board()
    ex = await table.click(other, board, label="Claim a route")
    assert "It is not your turn" in ex.text and ex.reply.ephemeral
    picker = (await table.click(me, board, label="Claim a route")).reply
    route = next(r for r, w in _claims(engine.legal_actions(state, state.current)).items()
                 if len(w) == 1)
    # The game moves on (a card drawn): the list drawn before is out of date.
    await table.click(me, board, label="Draw from deck")
    moved = await table.stored_state()
    ex = await table.fake.choose(table.bot, me, picker, [str(route)],
                                 prefix=f"ttr:{table.game_id}:claimto:")
    assert "out of date" in ex.text
    assert (await table.stored_state()).version == moved.version
    ex = await table.click(me, table.fake.last_board(), label="My hand")
    assert "Claim a route" not in [c.get("label") for c in ex.reply.controls()]  # mid-turn


async def test_a_forged_payment_is_refused_by_the_engine(table):
    await table.open_game(["Ana", "Ben"], "usa")
    state = await _turn(table, lambda legal: bool(_claims(legal)))
    me = table.seat_user(state, state.current)
    route = next(iter(_claims(engine.legal_actions(state, state.current))))
    planted = table.fake.plant(table.fake.CHANNEL_ID, [{
        "type": 3, "custom_id": f"ttr:{table.game_id}:claimpay:{route}.{state.version}",
        "options": [{"label": "x", "value": "v"}]}])
    for value in ("red:99", "nonsense", "purple:1,locomotive:9"):
        payload = table.fake.component_payload(me, planted, planted.custom_ids()[0], 3, [value])
        ex = await table.fake.feed(table.bot, payload)
        assert ex.reply.ephemeral and ex.text
    assert (await table.stored_state()).version == state.version


@pytest.mark.slow
async def test_a_game_nobody_plays_ends_as_abandoned_and_the_players_are_told(table):
    """Issue 27: with everyone absent the timer played on for weeks and stored a normal
    finished game. After a week without a member's move it ends as abandoned (no
    statistics), with a line in the channel; the bot never drew tickets meanwhile."""
    await table.open_game(["Ana", "Ben"], "usa", timer=24)
    told = []
    for _ in range(12):  # twelve days, a timed-out turn or two each
        told += [s.content for s in await table.advance(24) if s.public]
    async with table.store() as store:
        row = await store.game(table.game_id)
        log = await store.actions(table.game_id)
        assert await store.results(table.fake.GUILD_ID) == []  # in no statistics
    assert row is not None and row.status == "abandoned"
    assert all(a.user_id is None for a in log) and len(log) >= 5
    assert not any('"draw_tickets"' in a.action for a in log)
    (line,) = [t for t in told if "was abandoned" in t]
    assert "no player has made a move for 7 days" in line and "Ana" in line and "Ben" in line
    assert not await table.advance(48)  # nothing more is played or posted


async def test_a_ticket_choice_mid_game_points_to_its_offer(table):
    """Issue 27 item 8: while a player chooses new tickets the board offers no draw button,
    the prompt names My hand, and a refused draw shows the offer again with its select."""
    await table.open_game(["Ana", "Ben"], "usa")
    state = await _turn(table)
    me = table.seat_user(state, state.current)
    await table.click(me, table.fake.last_board(), label="Draw tickets")
    board = table.fake.last_board()
    assert [c.get("label") for c in board.controls()] == ["My hand"]
    assert "press **My hand**" in board.content
    ex = await table.slash(me, "draw", card="deck")
    assert "First choose which tickets to keep" in ex.text and ex.reply.ephemeral
    assert any(c.startswith(f"ttr:{table.game_id}:keep") for c in ex.reply.custom_ids())
    offered = engine.private_view(await table.stored_state(), state.current).offered
    ex = await table.fake.choose(table.bot, me, ex.reply, [str(offered[0].id)])
    assert "Kept." in ex.text


async def test_a_capped_lobby_says_its_cap_and_a_full_one_invites_no_more(table):
    """Issue 27 item 9: '(2–3 players)' for a lobby capped at 3, and a full lobby says the
    host starts it, with Join disabled and no computer to add."""
    fake = table.fake
    ana, ben, cy = (fake.add_user(n) for n in ("Ana", "Ben", "Cy"))
    lobby = (await fake.slash(table.bot, ana, "new", map="usa", players=3)).reply
    assert "(2–3 players)" in lobby.content and "(2–5 players)" not in lobby.content
    await fake.click(table.bot, ben, lobby, label="Join")
    await fake.click(table.bot, cy, lobby, label="Join")
    full = fake.message(lobby.id)
    assert "The lobby is full" in full.content and "Press **Join**" not in full.content
    assert full.control(label="Join")["disabled"] is True
    assert not any(c.endswith(":addbot") for c in full.custom_ids())


async def test_the_host_removes_a_computer_player_from_the_lobby(table):
    """Issue 27 item 10: a computer player can be taken out of a lobby again."""
    fake = table.fake
    ana, ben = fake.add_user("Ana"), fake.add_user("Ben")
    lobby = (await fake.slash(table.bot, ana, "new", map="usa")).reply
    await fake.choose(table.bot, ana, lobby, ["easy"], prefix="ttr:1:addbot")
    assert "Players (2/5)" in fake.message(lobby.id).content
    ex = await fake.choose(table.bot, ben, lobby, ["1"], prefix="ttr:1:rmbot")
    assert "Only the host" in ex.text and ex.reply.ephemeral
    ex = await fake.choose(table.bot, ana, lobby, ["1"], prefix="ttr:1:rmbot")
    shown = fake.message(lobby.id)
    assert "Players (1/5): Ana" in shown.content
    assert not any(c.endswith(":rmbot") for c in shown.custom_ids())  # none left to remove
    ex = await fake.choose(table.bot, ana, lobby, ["0"], prefix="ttr:1:addbot")  # forged
    info = await table.bot.service.info(1)
    assert [s.name for s in info.seats] == ["Ana"]


async def test_german_posts_name_the_map_in_german_and_read_as_german(table):
    """Issue 27 item 13: 'Europa' in posts (not 'Europe'), 'Warten auf …' to everyone,
    'vom Stapel', one word for a game ('Partie')."""
    await table.open_game(["Ana", "Ben"], "europe", language="de")
    channel = "\n".join(s.content for s in table.fake.channel_messages())
    assert "Europa" in channel and "Europe" not in channel
    assert "Warten auf" in channel and "warte auf" not in channel
    state = await _turn(table)
    await table.click(table.seat_user(state, state.current), table.fake.last_board(),
                      label="Vom Stapel ziehen")
    await table.click(table.seat_user(state, state.current), table.fake.last_board(),
                      label="Vom Stapel ziehen")
    channel = "\n".join(s.content for s in table.fake.channel_messages())
    assert "2 Karten vom Stapel gezogen" in channel and "von dem Stapel" not in channel
    assert "Spiel #" not in channel and "Partie #" in channel


async def test_the_server_config_reads_as_typed(table):
    """Issue 27 item 12: every setting's choice whole (no meaning cut at 100 characters),
    values as they are typed ('all', 'true'/'false', 'off'), each option described, and a
    refused 0 for an optional hour count says how to switch it off."""
    fake = table.fake
    ana = fake.add_user("Ana")
    await fake.slash(table.bot, ana, "new", map="usa")  # syncs nothing; commands are built
    admin = next(c for c in fake.synced if c["name"] == "ttr-admin")
    (config,) = admin["options"]
    setting = next(o for o in config["options"] if o["name"] == "setting")
    assert "board_posts" in [c["name"] for c in setting["choices"]]
    ttr = next(c for c in fake.synced if c["name"] == "ttr")
    described = [(sub["name"], o["name"]) for sub in ttr["options"]
                 for o in sub.get("options", []) if o["description"] in ("…", "...")]
    assert described == []
    ex = await fake.slash(table.bot, ana, "config", group="ttr-admin")
    assert "`maps_offered` = **all**" in ex.text
    assert "`thread_per_game` = **false**" in ex.text and "False" not in ex.text
    assert "`turn_timer_hours` = **off**" in ex.text
    ex = await fake.slash(table.bot, ana, "config", group="ttr-admin",
                          setting="turn_timer_hours", value="0")
    assert "'off' turns it off" in ex.text


def test_parallel_routes_that_are_alike_read_differently():
    """Issue 27 item 14: a double route's two tracks had the same label in every list."""
    for map_id in map_ids():
        routes = load_map(map_id).routes
        labels = [presenters.route_label(map_id, r.id) for r in routes]
        assert len(set(labels)) == len(labels), map_id


async def test_smaller_rough_edges(table):
    """Issue 27 item 14: no internal action name reaches a player; a station asks for its
    colour as a claim does; a computer is not told to check its DMs; /ttr rules without a
    game shows a map the server offers."""
    await table.open_game(["Ana", "Ben"], "europe")
    ex = await table.slash("Ana", "exchange", trains=2)
    assert "exchange_pieces" not in ex.text and "Rails & Sails" in ex.text
    state = await _turn(table, lambda legal: len({
        next((c for c in a.cards if c != "locomotive"), "locomotive")
        for a in legal if isinstance(a, BuildStation) and a.city == "berlin"}) > 1)
    me = table.seat_user(state, state.current)
    ex = await table.slash(me, "station", city="berlin")
    assert "several colours" in ex.text
    assert (await table.stored_state()).version == state.version
    mentions = ["<@1>", "Robo (🤖)"]
    view = engine.public_view(state).model_copy(update={"phase": Phase.CHOOSE_SHARE,
                                                         "current": 1})
    assert "DMs" not in presenters.prompt_text(view, mentions)
    fake = table.fake
    await fake.slash(table.bot, me, "config", group="ttr-admin", setting="maps_offered",
                     value="usa")
    quiet = fake.next_id()  # a channel without a game
    fake.channels[quiet] = fake._text_channel(quiet)
    ex = await fake.slash(table.bot, me, "rules", channel_id=quiet)
    assert "**USA**" in ex.text


async def test_older_lobby_copies_follow_and_lose_their_buttons(table):
    """Issue 27 item 9: each typed /ttr join (or addbot) posts a new copy of the lobby; the
    older ones showed live buttons and 'Press Join' even after the start."""
    fake = table.fake
    ana, ben, cy = (fake.add_user(n) for n in ("Ana", "Ben", "Cy"))
    first = (await fake.slash(table.bot, ana, "new", map="usa")).reply
    second = (await fake.slash(table.bot, ben, "join")).reply
    assert fake.message(first.id).custom_ids() == []  # the newest copy has the buttons
    assert "Ana, Ben" in fake.message(first.id).content
    await fake.click(table.bot, cy, second, label="Join")
    assert "Ana, Ben, Cy" in fake.message(first.id).content
    await fake.slash(table.bot, ana, "start")
    for copy in (first, second):
        shown = fake.message(copy.id)
        assert "has started" in shown.content and shown.custom_ids() == []
