"""Positions by name (engine.position): what a position names is what the game holds, and
reading a played position back onto a new game gives the same game."""

from __future__ import annotations

import random

import pytest

from engine import (
    DrawBlind,
    GameConfig,
    GameState,
    Position,
    apply,
    legal_actions,
    new_game,
    position_of,
    private_view,
    public_view,
    setup_position,
    waiting_for,
)
from engine.agents import random_action
from engine.modules import playable_maps

CORE = ("deck", "discards", "market", "hands", "trains", "scores", "owner", "ticket_deck")
CORE += ("tickets", "offered", "keep_min", "stations_left", "stations", "turns_left", "current")


def _played(map_id: str, seed: int, steps: int) -> GameState:
    state = new_game(GameConfig(map_id=map_id, players=["A", "B", "C"], seed=seed))
    rng = random.Random(seed)
    for _ in range(steps):
        if state.phase == "game_over":
            break
        seat = waiting_for(state)[0]
        apply(state, seat, random_action(state, seat, rng))
    return state


@pytest.mark.parametrize("map_id", playable_maps())
def test_a_played_position_read_by_name_sets_up_the_same_game(map_id: str) -> None:
    checked = 0
    for seed in range(4):
        state = _played(map_id, seed, 40 + 25 * seed)
        if state.phase not in ("turn", "second_draw"):
            continue
        position = position_of(state)
        copy = new_game(state.config)
        setup_position(copy, position)
        snap, got = state.to_snapshot(), copy.to_snapshot()
        for field in CORE:
            assert got[field] == snap[field], field
        assert position_of(copy) == position
        seat = state.current
        assert legal_actions(copy, seat) == legal_actions(state, seat)
        assert public_view(copy) == public_view(state)
        assert private_view(copy, seat) == private_view(state, seat)
        checked += 1
    assert checked


def test_a_position_by_names_is_the_game_the_engine_holds() -> None:
    state = new_game(GameConfig(map_id="europe", players=["Ann", "Bob"], seed=1))
    setup_position(
        state,
        Position(
            phase="turn",
            current=1,
            offered={0: [], 1: []},
            hands={1: {"red": 3, "locomotive": 1}},
            deck_top=["blue", "locomotive"],
            market=["red", None, "white", "white", "locomotive"],
            tickets={0: [1, 2]},
            owners={state.board.route_ids[0]: 0},
            stations={"paris": 1},
        ),
    )
    board = state.board
    view, mine = public_view(state), private_view(state, 1)
    assert view.current == 1 and view.phase == "turn"
    assert mine.hand == {"red": 3, "locomotive": 1}
    assert view.market == ["red", None, "white", "white", "locomotive"]
    assert view.claimed == {board.route_ids[0]: 0}
    assert view.stations == {"paris": 1} and view.players[1].stations == 2
    assert view.players[0].trains == 45 - board.r_len[0]
    assert view.players[0].score == board.r_points[0]
    assert [t.id for t in private_view(state, 0).tickets] == [1, 2]
    assert waiting_for(state) == [1]
    apply(state, 1, legal_actions(state, 1)[-1])  # still a legal game


def test_the_deck_top_is_drawn_in_the_order_named() -> None:
    state = _played("usa", 0, 10)
    seat = state.current
    setup_position(state, Position(phase="turn", hands={seat: {}}, deck_top=["orange", "purple"]))
    apply(state, seat, DrawBlind())
    assert private_view(state, seat).hand == {"orange": 1}
    apply(state, seat, DrawBlind())
    assert private_view(state, seat).hand == {"orange": 1, "purple": 1}


def test_freeing_a_route_gives_its_pieces_and_points_back() -> None:
    state = _played("world", 2, 0)
    setup_position(state, Position(phase="turn", offered={0: [], 1: [], 2: []}))
    ship = next(r for r in state.board.map.routes if r.kind == "ship")
    before = position_of(state)
    setup_position(state, Position(owners={ship.id: 2}))
    assert position_of(state).pieces[2]["ships"] == before.pieces[2]["ships"] - ship.length
    setup_position(state, Position(owners={ship.id: None}))
    assert position_of(state) == before


@pytest.mark.parametrize(
    ("position", "message"),
    [
        (Position(hands={0: {"purple_ship": 1}}), "no card 'purple_ship'"),
        (Position(owners={99999: 0}), "no route 99999"),
        (Position(stations={"atlantis": 0}), "no city 'atlantis'"),
        (Position(tickets={0: [99999]}), "no ticket 99999"),
        (Position(current=7), "no seat 7"),
        (Position(deck_top=["joker"]), "no card 'joker'"),
    ],
)
def test_names_not_on_the_map_are_refused(position: Position, message: str) -> None:
    state = new_game(GameConfig(map_id="usa", players=["A", "B"], seed=1))
    with pytest.raises(ValueError, match=message):
        setup_position(state, position)
