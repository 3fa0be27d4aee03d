"""Small pure pieces: custom_ids, event text, settings."""

from __future__ import annotations

import pytest

import engine
from bot.ops.config import ConfigError, Settings
from bot.play.decisions import decisions
from bot.play.presenters import (
    choice_done,
    choice_label,
    clip,
    event_lines,
    prompt_text,
    route_label,
    rules_text,
    status_text,
)
from bot.storage.codec import event_from_json, event_to_json
from engine import DeclineShare, DrawFaceUp, GiveNeutralShare, TakeShare, Undo
from engine.cards import CARD_INDEX
from engine.events import (
    CardDrawn,
    DeckReshuffled,
    PiecesExchanged,
    RouteClaimed,
    ShareTaken,
    TicketsKept,
    TunnelDeclined,
    TurnStarted,
)
from maps import load_map


def test_draw_lines_never_name_a_blind_card():
    names = ["Ana", "Ben"]
    lines = event_lines("usa", names, [
        CardDrawn(0, "red", 2), CardDrawn(0, None, None), TurnStarted(1, 2),
        CardDrawn(1, None, None), DeckReshuffled(1, 40), CardDrawn(1, None, None),
        TurnStarted(0, 3), CardDrawn(0, "locomotive", 1),
    ])
    assert lines == [
        "Ana drew 2 cards (1 from the market: red)",
        "Ben drew 2 cards from the deck",
        "The discards were shuffled into a new deck (40 cards).",
        "Ana took a face-up locomotive",
    ]


def test_claim_and_ticket_lines_are_public_facts_only():
    lines = event_lines("europe", ["Ana"], [
        RouteClaimed(0, 1, {"red": 2}, 2), TicketsKept(0, 2, 1),
        TunnelDeclined(0, 1),
    ])
    assert lines[0] == f"Ana claimed {route_label('europe', 1)} for 2 points, paying 2 red"
    assert lines[1] == "Ana kept 2 of 3 destination tickets"
    assert "could" not in lines[2] and "gave up" in lines[2]


def test_route_labels_name_cities_length_colour_and_kind():
    assert route_label("europe", 1) == "Bruxelles–Paris (2 red)"
    # As a player says it (issue 27: '(2, gray, tunnel)').
    labels = {route_label("europe", r) for r in range(1, 102)}
    assert "Zürich–München (gray tunnel of 2)" in labels or any(
        "gray tunnel of 2)" in label for label in labels)
    assert not any(", tunnel" in label or ", gray" in label for label in labels)
    ferries = {route_label("nordic", r.id) for r in load_map("nordic").routes
               if r.ferry_locomotives == 1 and r.color == "gray" and r.length == 2}
    assert any(label.endswith("(gray ferry of 2 with 1 locomotive)") for label in ferries)
    assert route_label("usa", 10_000) == "route 10000"


def test_clip_keeps_messages_under_discord_limit():
    text = "\n".join(f"line {i} " + "x" * 50 for i in range(100))
    out = clip(text)
    assert len(out) <= 1900 and out.endswith("…")
    assert clip("short") == "short"


def test_settings_from_environment():
    s = Settings.from_env({"DISCORD_TOKEN": " abc ", "TTR_DEV_GUILD_ID": "123"})
    assert (s.token, s.db_path, s.dev_guild_id, s.log_level) == ("abc", "./ttr.sqlite3", 123,
                                                                 "INFO")
    s = Settings.from_env({"DISCORD_TOKEN": "t", "TTR_DB_PATH": "/data/x.db",
                           "TTR_LOG_LEVEL": "debug"})
    assert (s.db_path, s.dev_guild_id, s.log_level) == ("/data/x.db", None, "DEBUG")
    with pytest.raises(ConfigError, match="DISCORD_TOKEN"):
        Settings.from_env({})
    with pytest.raises(ConfigError, match="numeric"):
        Settings.from_env({"DISCORD_TOKEN": "t", "TTR_DEV_GUILD_ID": "my-server"})


def test_share_lines_never_name_the_company():
    lines = event_lines("pennsylvania", ["Ana", "Ben"], [
        ShareTaken(0, False), ShareTaken(0, True), ShareTaken(1, False)])
    assert lines == ["Ana took a share", "Ana gave a share to the neutral investor",
                     "Ben took a share"]


def test_module_decisions_are_labelled_from_the_presenter_table():
    pa = "pennsylvania"
    assert choice_label(pa, TakeShare(company="B&O")) == "Take a B&O share"
    assert choice_label(pa, DeclineShare()) == "No share"
    assert choice_label(pa, GiveNeutralShare(company="PRR")) == (
        "Give PRR to the neutral investor")
    assert choice_done(pa, GiveNeutralShare(company="PRR")) == (
        "The neutral investor got a PRR share.")
    # A decision without a row still gets a readable button.
    assert choice_label(pa, DrawFaceUp(slot=3)) == "Draw face up 3"


def test_pennsylvania_rules_and_status_text():
    text = rules_text("pennsylvania")
    for part in ("Shares:", "neutral investor", "Globetrotter", "+15", "No longest-path",
                 "PRR 30/21/14/9/6"):
        assert part in text, part
    assert "Longest continuous path: +10" in rules_text("usa")
    view = engine.public_view(_share_choice_state())
    status = status_text(view)
    assert "must choose which company's share to take" in status
    assert "Share stacks: PRR 15" in status  # the stacks are public, like on the table
    prompt = prompt_text(view, ["<@1>", "<@2>", "<@3>"])
    assert "choose which company's share" in prompt and "My hand" in prompt


def _share_choice_state():
    """A 3-player Pennsylvania game just after a claim that asks for a share choice."""
    state = engine.new_game(engine.GameConfig(map_id="pennsylvania", players=["A", "B", "C"],
                                              seed=1))
    for seat in range(3):
        offer = engine.private_view(state, seat).offered
        engine.apply(state, seat, engine.KeepTickets(tickets=[t.id for t in offer]))
    m = load_map("pennsylvania")
    seat = state.current
    route = next(r for r in m.routes if len(r.shares) >= 2 and r.color != "gray")
    state.hands[seat][CARD_INDEX[route.color]] += route.length  # a test hand, not a draw
    engine.apply(state, seat, engine.Claim(route=route.id, cards={route.color: route.length}))
    assert state.phase == "choose_share"
    return state


def test_decisions_are_the_engine_options_for_the_chooser_only():
    state = _share_choice_state()
    seat = state.current
    options = decisions(state, seat)
    assert options[-1] == DeclineShare()  # taking a share is optional
    assert options[:-1] and all(isinstance(a, TakeShare) for a in options[:-1])
    assert {a.company for a in options[:-1]} == set(
        engine.private_view(state, seat).share_options)
    assert decisions(state, (seat + 1) % 3) == []
    keep = engine.new_game(engine.GameConfig(map_id="usa", players=["A", "B"], seed=1))
    assert decisions(keep, 0) == []  # the common phases have their own controls


def test_a_games_views_follow_its_state():
    """The views a game keeps are those of its state's current version: after an action,
    or an undo (a new version: versions only grow), they are anew."""
    from bot.game.games import Game
    from bot.storage.api import GameRow, SeatRow

    def started(seed):
        return engine.new_game(engine.GameConfig(map_id="usa", players=["A", "B"], seed=seed))

    state = started(1)
    game = Game(row=GameRow(1, None, 2, "running", "usa", 2, 1, None, 0, 0),
                seats=[SeatRow(0, 1, "A"), SeatRow(1, 2, "B")], state=state)
    for seat in (0, 1):
        engine.apply(state, seat, engine.legal_actions(state, seat)[0])  # keep tickets
    assert game.private_view(0) == engine.private_view(state, 0)
    assert game.public_view() == engine.public_view(state)
    seat = state.current
    engine.apply(state, seat, DrawFaceUp(slot=0))
    assert game.private_view(seat).hand == engine.private_view(state, seat).hand
    assert game.public_view().market == engine.public_view(state).market
    log = [(0, engine.legal_actions(started(1), 0)[0])]
    log += [(1, engine.legal_actions(engine.replay(state.config, log), 1)[0])]
    undone = engine.replay(state.config, [*log, (seat, DrawFaceUp(slot=0)), (seat, Undo())])
    assert undone.version > state.version and undone.hands != state.hands
    game.state = undone
    assert game.private_view(seat).hand == engine.private_view(undone, seat).hand
    assert game.public_view().market == engine.public_view(undone).market


@pytest.mark.parametrize("emoji", [None, "🚂", "🃏"])
@pytest.mark.parametrize("label", ["1: Red", ""])
def test_a_sent_button_is_what_discord_py_would_send(emoji, label):
    """The bot's buttons skip ``discord.ui.Button``'s objects, not a byte of its payload."""
    import discord

    from bot.edge.components import SentButton

    for style in (discord.ButtonStyle.primary, discord.ButtonStyle.danger):
        for disabled in (False, True):
            args = dict(custom_id="ttr:7:up:3.41", label=label, style=style,
                        disabled=disabled, emoji=emoji, row=1)
            ours = SentButton(**args)
            theirs = discord.ui.Button(**args)
            assert ours.to_component_dict() == theirs.to_component_dict()
            assert (ours.row, ours.width, ours.type) == (theirs.row, theirs.width, theirs.type)


@pytest.mark.parametrize("map_id", ["usa", "europe", "nordic", "pennsylvania", "iberia", "world"])
def test_the_stored_snapshot_is_the_engines_json_data(map_id):
    """The bot serialises each snapshot with orjson: the same data as the standard library's
    JSON of the snapshot, and it loads back to the same state."""
    import json
    import random

    from bot.storage.codec import snapshot_json

    players = load_map(map_id).rules.players_min + 1
    state = engine.new_game(engine.GameConfig(map_id=map_id, players=list("ABCDE")[:players],
                                              seed=7))
    rng = random.Random(7)
    for _ in range(40):
        seat = engine.waiting_for(state)[0]
        engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
    stored = json.loads(snapshot_json(state))
    assert stored == json.loads(json.dumps(state.to_snapshot()))
    assert engine.GameState.from_snapshot(stored).to_snapshot() == state.to_snapshot()


def test_an_exchange_stored_before_events_carried_points_loads_with_its_penalty():
    old = {"type": "PiecesExchanged", "seat": 1, "count": 3, "to": "ships"}
    assert event_from_json(old) == PiecesExchanged(1, 3, "ships", -3)
    new = PiecesExchanged(0, 2, "trains", -4)
    assert event_from_json(event_to_json(new)) == new
