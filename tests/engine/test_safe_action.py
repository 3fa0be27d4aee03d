"""The automatic move for an absent player is always legal, and the least committal one."""

from __future__ import annotations

import random

import pytest

from engine import (
    GameConfig,
    GameState,
    IllegalAction,
    apply,
    legal_actions,
    new_game,
    waiting_for,
)
from engine.actions import Claim, DeclineTunnel, DrawBlind, DrawTickets, KeepTickets
from engine.agents import random_action, safe_action
from maps import map_ids

NAMES = ["Ann", "Bob", "Cid", "Dee"]


@pytest.mark.slow
@pytest.mark.parametrize("map_id", map_ids())
def test_safe_action_is_legal_in_every_phase(map_id: str) -> None:
    """Random games where, at every step, every waiting seat's safe action is accepted."""
    phases: set[str] = set()
    for seed in range(4):
        players = 3 if map_id == "nordic" else 4
        state = new_game(GameConfig(map_id=map_id, players=NAMES[:players], seed=seed))
        rng = random.Random(seed)
        while state.phase != "game_over":
            for seat in waiting_for(state):
                trial = GameState.from_snapshot(state.to_snapshot())
                apply(trial, seat, safe_action(trial, seat))  # raises if it were illegal
                phases.add(state.phase)
            seat = waiting_for(state)[0]
            apply(state, seat, random_action(state, seat, rng))
    assert {"turn", "second_draw"} < phases  # and at least one setup decision


def test_safe_action_keeps_the_fewest_cheapest_tickets() -> None:
    state = new_game(GameConfig(map_id="usa", players=NAMES[:2], seed=3))
    board = state.board
    action = safe_action(state, 0)
    assert isinstance(action, KeepTickets)
    cheapest = sorted(state.offered[0], key=lambda t: (board.t_points[t], board.t_ids[t]))
    assert action.tickets == [board.t_ids[t] for t in cheapest[: state.keep_min[0]]]


def test_safe_action_draws_blind_and_declines_tunnels() -> None:
    state = new_game(GameConfig(map_id="europe", players=NAMES[:2], seed=5))
    for seat in (0, 1):
        apply(state, seat, safe_action(state, seat))
    assert isinstance(safe_action(state, state.current), DrawBlind)
    rng = random.Random(1)
    while state.phase != "tunnel":
        seat = waiting_for(state)[0]
        apply(state, seat, random_action(state, seat, rng))
        if state.phase == "game_over":
            pytest.fail("no tunnel in this game")
    assert isinstance(safe_action(state, state.current), DeclineTunnel)


def test_safe_action_refuses_a_seat_with_nothing_to_decide() -> None:
    state = new_game(GameConfig(map_id="usa", players=NAMES[:2], seed=3))
    for seat in (0, 1):
        apply(state, seat, safe_action(state, seat))
    idle = 1 - state.current
    with pytest.raises(IllegalAction):
        safe_action(state, idle)


def _no_cards_to_draw() -> GameState:
    """A USA game at a turn where the deck, the discards and the market are empty."""
    state = new_game(GameConfig(map_id="usa", players=NAMES[:2], seed=3))
    for seat in (0, 1):
        apply(state, seat, safe_action(state, seat))
    state.deck, state.discards = [], []
    state.market = [-1] * len(state.market)
    return state


def test_safe_action_never_draws_tickets_when_no_card_can_be_drawn() -> None:
    """Issue 27: with no card to draw, the timed-out turn took tickets (the first legal
    action), charging the absent player for failing them. It claims a route instead, the
    one that spends the fewest cards."""
    state = _no_cards_to_draw()
    seat = state.current
    legal = legal_actions(state, seat)
    assert DrawTickets() in legal and any(isinstance(a, Claim) for a in legal)
    action = safe_action(state, seat)
    assert isinstance(action, Claim)
    assert sum(action.cards.values()) == min(
        sum(a.cards.values()) for a in legal if isinstance(a, Claim))


def test_safe_action_refuses_when_only_tickets_are_left_unless_allowed() -> None:
    state = _no_cards_to_draw()
    seat = state.current
    state.hands[seat] = [0] * len(state.hands[seat])
    assert legal_actions(state, seat) == [DrawTickets()]
    with pytest.raises(IllegalAction, match="Only new destination tickets"):
        safe_action(state, seat)
    assert safe_action(state, seat, tickets=True) == DrawTickets()  # a computer moves on
