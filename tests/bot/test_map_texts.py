"""Iberia and Rails & Sails text and controls, without Discord: event lines, card names,
prompts for simultaneous choosers, rules, the keep-exactly select, custom_ids, tags."""

from __future__ import annotations

import dataclasses
import re

import engine
from bot.edge import components
from bot.game.service import Outcome
from bot.play import handlers
from bot.play.decisions import choice_tag, decisions, draft_round
from bot.play.presenters import (
    card_label,
    cards_text,
    choice_label,
    event_lines,
    hand_text,
    prompt_text,
    rules_text,
    status_text,
    ticket_text,
)
from engine import ChoosePieces, DraftPick, KeepTickets, TakeFestival
from engine.events import (
    CardDrawn,
    DraftPicked,
    FestivalCardPlaced,
    FestivalCardsTaken,
    HarborBuilt,
    LastRound,
    PiecesChosen,
    PiecesExchanged,
    TicketDraftStarted,
    TurnStarted,
)
from maps import load_map


def _game(map_id: str, n: int) -> engine.GameState:
    return engine.new_game(engine.GameConfig(map_id=map_id, players=list("ABCDE")[:n], seed=3))


def _draft_all(state: engine.GameState) -> None:
    """Everyone picks the first ticket of their packet until the draft is over."""
    while state.phase == "draft":
        for seat in engine.waiting_for(state):
            engine.apply(state, seat, engine.legal_actions(state, seat)[0])


def test_festival_and_draft_lines_name_no_holdings():
    names = ["Ana", "Ben"]
    lines = event_lines("iberia", names, [
        FestivalCardPlaced(0, "sevilla"), CardDrawn(0, None, None),
        FestivalCardPlaced(0, "porto"), CardDrawn(0, "red", 1), TurnStarted(1, 5),
        FestivalCardsTaken(1), DraftPicked(0),
        TicketDraftStarted(1, True, 6),
    ])
    assert lines == [
        "Ana drew 2 cards (1 from the market: red)",
        "🎉 A festival card for Sevilla was laid out.",
        "🎉 A festival card for Porto / Coimbra was laid out.",
        "🎉 Ben took festival cards",
        "Ana picked a ticket",
        "🎟️ The draft card came up: the second ticket draft begins: everyone gets 6 tickets, "
        "picks one a round in private and passes the rest to the right; at the end keep "
        "exactly 4.",
    ]


def test_rails_and_sails_lines_and_card_names():
    lines = event_lines("world", ["Ana", "Ben"], [
        CardDrawn(0, "locomotive", 2), TurnStarted(1, 2),
        CardDrawn(1, "red_double_ship", 4), CardDrawn(1, None, None),
        HarborBuilt(0, "casablanca", {"red_harbor": 2, "red_ship": 1, "locomotive": 1}),
        PiecesExchanged(1, 3, "ships", -3), PiecesExchanged(0, 1, "trains", -1), PiecesChosen(1),
        LastRound(0, 4),
    ])
    assert lines == [
        "Ana took a face-up joker",
        "Ben drew 2 cards (1 from the market: red double ship)",
        "⚓ Ana built a harbor in Casablanca, paying 2 red harbor trains + 1 red ship + 1 joker",
        "Ben exchanged 3 trains for 3 ships (−3)",
        "Ana exchanged 1 ship for 1 train (−1)",
        "Ben has chosen their pieces",
        "🚂 Last round! Ana is almost out of pieces: 4 turns left in the game.",
    ]
    # The penalty is the event's own points, as the engine scored them.
    assert event_lines("world", ["Ana"], [PiecesExchanged(0, 2, "ships", -5)]) == [
        "Ana exchanged 2 trains for 2 ships (−5)"]
    assert card_label("world", "green") == "green train"
    assert card_label("world", "green_harbor", 2) == "green harbor trains"
    assert card_label("usa", "green", 2) == "green"
    assert card_label("usa", "locomotive", 2) == "locomotives"
    assert cards_text("world", {"locomotive": 1, "white_ship": 2, "white_double_ship": 1}) == (
        "2 white ships + 1 white double ship + 1 joker")


def test_the_draft_prompt_names_who_still_picks_and_mentions_only_the_new_round():
    state = _game("iberia", 3)
    mentions = ["<@1>", "<@2>", "<@3>"]
    view = engine.public_view(state)
    everyone = engine.waiting_for(state)
    text = prompt_text(view, mentions, waiting=everyone, fresh=everyone,
                       draft=draft_round(state))
    assert text == ("Draft round 1 of 6: waiting for A, B, C.\n"
                    "<@1>, <@2>, <@3>: check your DMs or press **My hand**.")
    engine.apply(state, 1, engine.legal_actions(state, 1)[0])
    view = engine.public_view(state)
    text = prompt_text(view, mentions, waiting=engine.waiting_for(state),
                       draft=draft_round(state))
    assert text == "Draft round 1 of 6: waiting for A, C."
    status = status_text(view, waiting=engine.waiting_for(state), draft=draft_round(state))
    assert status.startswith("Setup: Draft round 1 of 6: waiting for A, C.")
    # B's options are gone until the next round; A's still stand.
    assert decisions(state, 1) == [] and all(isinstance(a, DraftPick) for a in decisions(state, 0))
    _draft_all(state)
    assert state.phase == "draft_keep" and draft_round(state) is None
    view = engine.public_view(state)
    text = prompt_text(view, mentions, waiting=engine.waiting_for(state))
    assert text == "Ticket draft: keep exactly 4 of your drafted tickets: waiting for A, B, C."


def test_keeping_exactly_four_is_one_select_of_four():
    state = _game("iberia", 2)
    _draft_all(state)
    private = engine.private_view(state, 0)
    assert len(private.offered) == 6 and private.keep_min == private.keep_max == 4
    assert decisions(state, 0) == []  # a select, not a button per combination
    item = components.keep_select(1, "iberia", private)
    assert (item.min_values, item.max_values) == (4, 4)
    assert item.placeholder == "Keep exactly 4 ticket(s)"
    assert "**Offered — keep exactly 4:**" in hand_text("iberia", private)
    keep = [t.id for t in private.offered[:4]]
    engine.apply(state, 0, KeepTickets(tickets=keep))
    assert [t.id for t in engine.private_view(state, 0).tickets] == keep


def test_a_drafter_sees_the_tickets_picked_so_far():
    state = _game("iberia", 2)
    assert "Picked in this draft" not in hand_text("iberia", engine.private_view(state, 0))
    pick = engine.legal_actions(state, 0)[0]
    assert isinstance(pick, DraftPick)
    picked = engine.private_view(state, 0).draft_packet[0]
    engine.apply(state, 0, pick)
    text = hand_text("iberia", engine.private_view(state, 0))
    assert "**Picked in this draft so far:**" in text
    assert text.split("**Picked in this draft so far:**")[1].strip().startswith(
        f"• {ticket_text('iberia', picked)}")


def test_festival_choice_and_piece_presets_are_labelled():
    assert choice_label("iberia", TakeFestival(pile="cordoba")) == (
        "Take the Córdoba festival cards")
    state = _game("iberia", 2)
    options = engine.legal_actions(state, 0)
    ticket = options[0]
    assert isinstance(ticket, DraftPick)
    view = engine.private_view(state, 0).draft_packet[0]
    names = {c.id: c.name for c in load_map("iberia").cities}
    assert choice_label("iberia", ticket) == (
        f"{' → '.join(names[c] for c in view.cities)} ({view.points})")
    assert choice_label("world", ChoosePieces(trains=20, ships=40)) == "20 trains + 40 ships"


def test_choice_tags_fingerprint_one_players_options():
    state = _game("iberia", 3)
    tags = {seat: choice_tag(seat, state.phase, decisions(state, seat)) for seat in range(3)}
    assert len(set(tags.values())) == 3 and all(0 <= t < 10**9 for t in tags.values())
    engine.apply(state, 0, engine.legal_actions(state, 0)[0])
    # Another player's pick changes the game's version, not seat 1's options or tag.
    assert choice_tag(1, state.phase, decisions(state, 1)) == tags[1]


def test_world_board_has_two_market_rows_and_both_decks():
    state = _game("world", 2)
    view = engine.public_view(state)
    controls = components.draw_buttons(1, view, state.version, second=False)
    rows = {c.label: c.row for c in controls}  # type: ignore[attr-defined]
    assert len(view.market) == 6
    assert [rows[k] for k in rows if k and k[0].isdigit()] == [0, 0, 0, 1, 1, 1]
    assert rows["Train deck"] == rows["Ship deck"] == rows["Draw tickets"] == 2


def test_nordic_market_buttons_close_with_the_deck_and_discards():
    state = _game("nordic", 2)
    for seat in range(2):
        engine.apply(state, seat, engine.legal_actions(state, seat)[0])
    engine.setup_position(state, engine.Position(deck=[], discards=[]))
    controls = components.draw_buttons(1, engine.public_view(state), state.version,
                                       second=False)
    market = [c for c in controls if c.label[0].isdigit()]  # type: ignore[attr-defined]
    assert len(market) == 5 and all(b.disabled for b in market)  # type: ignore[attr-defined]


def test_world_hand_pieces_and_status():
    state = _game("world", 2)
    for seat in range(2):
        engine.apply(state, seat, engine.legal_actions(state, seat)[0])
    assert state.phase == "choose_pieces"
    assert "**Your pieces:** not chosen yet." in hand_text("world", engine.private_view(state, 0))
    engine.apply(state, 0, ChoosePieces(trains=17, ships=43))
    status = status_text(engine.public_view(state))
    assert not re.search(r"\d+ (trains?|ships?)\b", status)  # secret while Ben chooses
    engine.apply(state, 1, ChoosePieces(trains=20, ships=40))
    text = hand_text("world", engine.private_view(state, 0))
    assert "**Your pieces:** 17 trains, 43 ships (reserve: 8 trains, 7 ships)" in text
    assert "harbors to build: 3" in text
    status = status_text(engine.public_view(state))
    assert "train deck" in status and "ship deck" in status
    # Once everyone has chosen, every split is public (seed 002).
    assert "60 pieces (17 trains, 43 ships)" in status
    assert "60 pieces (20 trains, 40 ships)" in status


def test_rules_texts_of_the_new_maps():
    iberia = rules_text("iberia")
    for part in ("Ticket draft", "keep exactly 4", "Festival cards", "Porto and Coimbra",
                 "1/3/6/10/14/18/22", "second draft", "No longest-path", "35 trains"):
        assert part in iberia, part
    world = rules_text("world")
    for part in ("60 pieces", "at most 25 trains and 50 ships", "`/ttr exchange trains:<n>`",
                 "**Ship deck**", "Rough terrain", "`/ttr harbor`", "`/ttr exchange",
                 "20/30/40", "−4", "2 more turns", "Tour tickets"):
        assert part in world, part
    assert "locomotive" not in world.lower()


def test_an_exchange_answer_tells_the_points_the_engine_scored():
    state = _game("world", 2)
    while state.phase != "turn":
        for seat in engine.waiting_for(state):
            engine.apply(state, seat, engine.legal_actions(state, seat)[0])
    seat = state.current
    before = engine.private_view(state, seat)
    action = engine.ExchangePieces(trains=2)
    (event, *rest) = engine.apply(state, seat, action)
    assert isinstance(event, PiecesExchanged) and event.points == -2
    outcome = Outcome(game_id=1, version=state.version, seat=seat, action=action,
                      events=[dataclasses.replace(event, points=-7), *rest], before=before,
                      after=engine.private_view(state, seat), view=engine.public_view(state),
                      published=True)
    text, _controls = handlers._result(outcome)
    assert text.startswith("You took 2 trains for 2 ships from your reserve (-7 points).")
