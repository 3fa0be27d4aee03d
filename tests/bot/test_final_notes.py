"""What players are told about a map's estimated data (Iberia) and about the shares behind
Pennsylvania's majorities, in both languages (issue 25, items 5 and 6)."""

from __future__ import annotations

import pytest

import engine
from bot import i18n
from bot.edge.options import map_label
from bot.play.estimates import estimate_note
from bot.play.presenters import final_text, rules_text
from maps import load_map

ESTIMATED_EN = ("Estimated, as no public source gives the printed values: destination "
                "tickets, festival card counts, festival score table.")
ESTIMATED_DE = ("Geschätzt, da keine öffentliche Quelle die gedruckten Werte nennt: die "
                "Zielkarten, die Anzahl der Festivalkarten, die Festival-Wertungstabelle.")


def test_iberia_says_what_is_estimated_where_it_is_chosen_and_in_its_rules():
    label = map_label("iberia")
    assert label == "Iberia (2–5 players; some data estimated, see /ttr rules)"
    assert i18n.translate(label, {}, "de") == (
        "Iberia (2–5 Spieler; manche Daten geschätzt, siehe /ttr rules)")
    assert estimate_note(load_map("iberia")) == ESTIMATED_EN
    assert ESTIMATED_EN in rules_text("iberia")
    with i18n.language("de"):
        assert ESTIMATED_DE in rules_text("iberia")
    for printed in ("usa", "europe", "nordic", "pennsylvania", "world"):
        assert estimate_note(load_map(printed)) is None
        assert "estimated" not in map_label(printed)
        assert "Estimated" not in rules_text(printed)


def finished_pennsylvania() -> engine.PublicView:
    """A 2-player Pennsylvania game ended with known shares: A 3 B&O; B 2 PRR and 1 B&O;
    the neutral investor 2 B&O, one of them revealed."""
    state = engine.new_game(engine.GameConfig(map_id="pennsylvania", players=["A", "B"], seed=3))
    for seat in range(2):
        engine.apply(state, seat, engine.legal_actions(state, seat)[0])
    engine.setup_position(state, engine.Position(
        shares={0: {"B&O": [1, 3, 5]}, 1: {"B&O": [6], "PRR": [1, 2]}},
        neutral_shares={"B&O": [2, 4]}, turns_left=1, deck_top=["red", "red"]))
    engine.apply(state, state.current, engine.DrawBlind())
    engine.apply(state, state.current, engine.DrawBlind())
    assert state.phase == "game_over"
    return engine.public_view(state)


def test_pennsylvania_final_text_shows_the_shares_behind_the_majorities():
    view = finished_pennsylvania()
    text = final_text(view)
    assert "A's shares: B&O 3" in text and "B's shares: PRR 2, B&O 1" in text
    assert "The neutral investor's revealed shares: B&O 1" in text
    with i18n.language("de"):
        text = final_text(view)
    assert "Anteilsscheine von A: B&O 3" in text and "Anteilsscheine von B: PRR 2, B&O 1" in text
    assert "Aufgedeckte Anteilsscheine des neutralen Investors: B&O 1" in text


@pytest.mark.parametrize(("language", "note"), [("en", ESTIMATED_EN), ("de", ESTIMATED_DE)])
async def test_the_iberia_lobby_says_what_is_estimated(table, language, note):
    ana = table.fake.add_user("Ana")
    ex = await table.fake.slash(table.bot, ana, "new", map="iberia", language=language)
    assert note in ex.text
