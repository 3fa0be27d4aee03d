"""Positions by name (engine.position): what a position names is what the game holds, and
reading a played position back onto a new game gives the same game."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import (
    Claim,
    DeclineShare,
    DeclineTunnel,
    DrawBlind,
    GameConfig,
    GameState,
    PayTunnel,
    Position,
    ShareChoice,
    TakeShare,
    TunnelChoice,
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


# Pending decisions --------------------------------------------------------------------------

PENDING = ("tunnel", "choose_share", "choose_neutral_share", "draft", "draft_keep")
PENDING += ("choose_festival", "choose_pieces")


def _same_rng(built: GameState, played: GameState) -> GameState:
    """``built`` with ``played``'s random generator (a position does not name it)."""
    snap = built.to_snapshot()
    snap["rng"] = played.to_snapshot()["rng"]
    return GameState.from_snapshot(snap)


def _comparable(state: GameState) -> dict[str, object]:
    snap = state.to_snapshot()
    del snap["version"], snap["skips"]  # how many actions led here, not the position
    return snap


def _check_pending(played: GameState) -> None:
    """Built by name from ``played``'s position, a game is the same game, and every legal
    action of every seat that must act does the same in both."""
    built = new_game(played.config)
    setup_position(built, position_of(played))
    built = _same_rng(built, played)
    assert position_of(built) == position_of(played)
    assert _comparable(built) == _comparable(played)
    assert public_view(built) == public_view(played)
    for seat in waiting_for(played):
        assert private_view(built, seat) == private_view(played, seat)
        options = legal_actions(played, seat)
        assert options and legal_actions(built, seat) == options
        for action in options:
            a, b = played.copy(), built.copy()
            assert apply(b, seat, action) == apply(a, seat, action)
            assert _comparable(b) == _comparable(a)


@pytest.mark.parametrize(
    ("map_id", "players", "phases"),
    [
        ("europe", 3, {"tunnel"}),
        ("nordic", 2, {"tunnel"}),
        ("pennsylvania", 3, {"choose_share"}),
        ("pennsylvania", 2, {"choose_share", "choose_neutral_share"}),
        ("iberia", 3, {"draft", "draft_keep", "choose_festival"}),
        ("world", 3, {"choose_pieces"}),
    ],
)
def test_a_pending_decision_read_by_name_sets_up_the_same_game(
    map_id: str, players: int, phases: set[str]
) -> None:
    met: Counter[str] = Counter()  # decisions checked, by phase
    for seed in range(12):
        config = GameConfig(map_id=map_id, players=["A", "B", "C", "D"][:players], seed=seed)
        state, rng = new_game(config), random.Random(seed)
        while state.phase != "game_over":
            if state.phase in PENDING and met[state.phase] < 2 * (seed + 1):
                _check_pending(state)
                met[state.phase] += 1
            seat = waiting_for(state)[0]
            apply(state, seat, random_action(state, seat, rng))
        if set(met) >= phases:
            return
    raise AssertionError(f"random play never reached {phases - set(met)}")


def test_a_tunnel_set_up_by_name_asks_what_the_reveal_asked() -> None:
    """München–Venezia (blue tunnel, 2) claimed with 2 blue: blue, locomotive, red revealed."""
    played = new_game(GameConfig(map_id="europe", players=["Ann", "Bob"], seed=1))
    setup_position(played, Position(phase="turn", current=0, offered={0: [], 1: []}))
    route = next(
        r.id
        for r in played.board.map.routes
        if {r.a, r.b} == {"munchen", "venezia"}
    )
    setup_position(
        played,
        Position(hands={0: {"blue": 3, "locomotive": 1}}, deck_top=["blue", "locomotive", "red"]),
    )
    apply(played, 0, Claim(route=route, cards={"blue": 2}))
    built = new_game(played.config)
    setup_position(
        built,
        Position(
            **{k: v for k, v in position_of(played) if k != "tunnel"},
            tunnel=TunnelChoice(
                route=route, paid={"blue": 2}, revealed=["blue", "locomotive", "red"]
            ),
        ),
    )
    assert public_view(built).tunnel == public_view(played).tunnel
    assert public_view(built).tunnel.extra == 2
    assert legal_actions(built, 0) == legal_actions(played, 0) == [
        PayTunnel(cards={"blue": 1, "locomotive": 1}),
        DeclineTunnel(),
    ]
    built = _same_rng(built, played)
    assert apply(built, 0, PayTunnel()) == apply(played, 0, PayTunnel())
    assert _comparable(built) == _comparable(played)


def test_a_share_choice_set_up_by_name_offers_the_route_companies() -> None:
    state = new_game(GameConfig(map_id="pennsylvania", players=["Ann", "Bob", "Cid"], seed=1))
    route = next(r for r in state.board.map.routes if len(r.shares) >= 2)
    setup_position(
        state,
        Position(
            phase="choose_share",
            current=1,
            offered={0: [], 1: [], 2: []},
            owners={route.id: 1},
            share_choice=ShareChoice(route=route.id),
        ),
    )
    assert legal_actions(state, 1) == [
        *(TakeShare(company=c) for c in route.shares),
        DeclineShare(),
    ]
    assert private_view(state, 1).share_options == list(route.shares)
    apply(state, 1, TakeShare(company=route.shares[0]))
    assert position_of(state).shares[1] == {route.shares[0]: [1]}
    assert state.phase == "turn" and state.current == 2


@pytest.mark.parametrize(
    ("map_id", "position", "message"),
    [
        ("europe", Position(phase="tunnel"), "needs a tunnel"),
        ("pennsylvania", Position(phase="choose_share"), "needs a share_choice"),
        ("iberia", Position(phase="choose_festival"), "needs a festival_choice"),
        (
            "europe",
            Position(tunnel=TunnelChoice(route=1, paid={"blue": 9}, revealed=[])),
            "no payment",
        ),
    ],
)
def test_a_pending_phase_without_its_decision_is_refused(
    map_id: str, position: Position, message: str
) -> None:
    state = new_game(GameConfig(map_id=map_id, players=["A", "B", "C"], seed=1))
    with pytest.raises(ValueError, match=message):
        setup_position(state, position)
